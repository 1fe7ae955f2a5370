"""Hypothesis strategies for instances of generated classes, valid at a given version.

The same space as :mod:`kwire.fuzz.values` (see there for what "valid at v" means), built from
``FIELDS`` so any generated package works; hypothesis adds shrinking, so a failing example comes
out minimal. Lists are kept short: Kafka messages nest arrays three or four deep.
"""
from __future__ import annotations

import uuid
from functools import cache
from typing import Any

from hypothesis import strategies as st

from kwire.wire.message import FieldInfo, GeneratedStruct, KeyedList, is_flexible
from kwire.wire.primitives import INT_RANGES, MAX_STRING_BYTES

from .values import BOUNDARY_LENGTHS, MAX_TAG

MAX_ITEMS = 3
_KEEP = object()  # marks "leave the field at its default"

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=24)
# strings right at Kafka's limit, with characters of every UTF-8 width
_long_text = st.sampled_from(("é", "\u4e2d", "\U0001f600", "a")).flatmap(
    lambda wide: st.integers(0, MAX_STRING_BYTES // len(wide.encode())).map(
        lambda n: wide * n + "a" * (MAX_STRING_BYTES - n * len(wide.encode()))))
# strings whose length prefix changes width (compact: len+1 crosses 0x80 or 0x4000)
_boundary_text = st.sampled_from(BOUNDARY_LENGTHS).map(lambda n: "a" * n)
# mostly short text; now and then a length boundary or the limit itself
_strings = st.integers(0, 20).flatmap(lambda k: _long_text if k == 0 else _boundary_text if k < 3 else _text)
_floats = st.floats(allow_nan=False)
_uuids = st.one_of(st.just(uuid.UUID(int=0)), st.uuids(allow_nil=True))


def scalar(type_name: str) -> st.SearchStrategy:
    if type_name in INT_RANGES:
        low, high = INT_RANGES[type_name]
        return st.integers(low, high)
    if type_name == "bool":
        return st.booleans()
    if type_name == "string":
        return _strings
    if type_name in ("bytes", "records"):
        return st.binary(max_size=300)
    if type_name == "uuid":
        return _uuids
    if type_name == "float64":
        return _floats
    raise ValueError(f"no strategy for type {type_name!r}")


def instances(cls: type[GeneratedStruct], version: int, *, unknown_tags: bool = True) -> st.SearchStrategy:
    """Instances of the message class ``cls`` valid at ``version``."""
    return _struct(cls, version, unknown_tags and is_flexible(cls, version))


@cache
def _struct(cls: type[GeneratedStruct], version: int, flexible_tags: bool) -> st.SearchStrategy:
    fields = {}
    for info in cls.FIELDS:
        if not info.present(version):
            continue
        value = _field(info, version, flexible_tags)
        if info.tagged_in(version):
            value = st.one_of(st.just(_KEEP), value)  # tagged fields at and away from their default
        fields[info.attr] = value
    tags = unknown_tag_sets(cls) if flexible_tags else st.just(())
    return st.builds(lambda values, unknown: _make(cls, values, unknown), st.fixed_dictionaries(fields), tags)


def _make(cls: type[GeneratedStruct], values: dict[str, Any], unknown: tuple) -> GeneratedStruct:
    obj = cls()
    for attr, value in values.items():
        if value is not _KEEP:
            setattr(obj, attr, value)  # setattr, not the constructor: there None means "default"
    obj.unknown_tagged_fields = unknown
    return obj


def _field(info: FieldInfo, version: int, flexible_tags: bool) -> st.SearchStrategy:
    element = info.element_type
    if element is None:
        value = _struct(info.struct, version, flexible_tags) if info.struct is not None else scalar(info.type)
    elif info.struct is None:
        # now and then a count whose compact varint needs two bytes
        value = st.integers(0, 20).flatmap(
            lambda k: st.lists(scalar(element), min_size=127, max_size=130) if k == 0
            else st.lists(scalar(element), max_size=MAX_ITEMS))
    elif info.struct._MAP_KEYS:
        value = _keyed_list(info.struct, version, flexible_tags)
    else:
        value = st.lists(_struct(info.struct, version, flexible_tags), max_size=MAX_ITEMS)
    return st.one_of(st.none(), value) if info.nullable_in(version) else value


def _keyed_list(struct_cls: type[GeneratedStruct], version: int, flexible_tags: bool) -> st.SearchStrategy:
    """mapKey arrays, some elements reusing an earlier element's key (duplicates are legal)."""
    copies = st.lists(st.tuples(st.integers(0, MAX_ITEMS), st.integers(0, MAX_ITEMS)), max_size=2)
    elements = st.lists(_struct(struct_cls, version, flexible_tags), max_size=MAX_ITEMS)
    return st.builds(lambda items, pairs: _with_duplicates(items, pairs, struct_cls._MAP_KEYS), elements, copies)


def _with_duplicates(items: list, pairs: list[tuple[int, int]], keys: tuple[str, ...]) -> KeyedList:
    for source, target in pairs:
        if source < target < len(items):
            for key in keys:
                setattr(items[target], key, getattr(items[source], key))
    return KeyedList(items)


def unknown_tag_sets(cls: type[GeneratedStruct]) -> st.SearchStrategy:
    """Sets of unknown tagged fields (tags no field of ``cls`` uses), in ascending tag order."""
    used = {info.tag for info in cls.FIELDS if info.tag is not None}
    tag = st.one_of(st.integers(0, max(used, default=-1) + 6),
                    st.sampled_from((127, 128, 16383, 16384, MAX_TAG)),
                    st.integers(0, MAX_TAG)).filter(lambda t: t not in used)
    return st.dictionaries(tag, st.binary(max_size=12), max_size=3).map(lambda d: tuple(sorted(d.items())))
