"""Which fields of two instances of the same generated class differ.

Paths use attribute names, ``[]`` for "some element of this array" (so the same field lost in
every element is named once) and ``(unknown tags)`` for unknown tagged fields:
``topics[].partitions[].error_message``.
"""
from __future__ import annotations

from typing import Any

from kwire.wire.errors import join_path
from kwire.wire.message import GeneratedStruct

UNKNOWN_TAGS = "(unknown tags)"


def differences(a: GeneratedStruct, b: GeneratedStruct) -> list[str]:
    """Sorted paths of the leaf fields whose values differ between ``a`` and ``b``."""
    found: set[str] = set()
    _struct(a, b, "", found)
    return sorted(found)


def _struct(a: GeneratedStruct, b: GeneratedStruct, prefix: str, found: set[str]) -> None:
    for info in type(a).FIELDS:
        left, right = getattr(a, info.attr), getattr(b, info.attr)
        path = join_path(prefix, info.attr)
        if info.struct is not None and left is not None and right is not None:
            if info.element_type is None:
                _struct(left, right, path, found)
                continue
            if len(left) == len(right):
                for x, y in zip(left, right, strict=False):
                    _struct(x, y, path + "[]", found)
                continue
        if not _same(left, right):
            found.add(path)
    if a.unknown_tagged_fields != b.unknown_tagged_fields:
        found.add(join_path(prefix, UNKNOWN_TAGS))


def _same(left: Any, right: Any) -> bool:
    return left == right and (left is None) == (right is None)
