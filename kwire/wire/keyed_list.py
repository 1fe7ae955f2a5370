"""The list type of ``mapKey`` arrays.

Kept apart from the base class so that the base class compiles with mypyc (which cannot compile
subclasses of ``list``); generated code uses this module as plain Python in both builds.
"""
from __future__ import annotations

from typing import Any, Generic, TypeVar

T = TypeVar("T")


class KeyedList(list[T], Generic[T]):
    """A list of struct elements with map keys: ordered, duplicates kept, lookup by key.

    Kafka's Java code uses an implicit linked hash multi-collection for ``mapKey`` arrays; a list
    keeps the wire order and duplicates exactly, and ``find``/``find_all`` look elements up.
    """

    __slots__ = ()

    def find(self, *key: Any) -> T | None:
        """The first element whose map key fields equal ``key``, or None."""
        for element in self:
            if element._map_key() == key:  # type: ignore[attr-defined]
                return element
        return None

    def find_all(self, *key: Any) -> list[T]:
        """Every element whose map key fields equal ``key``, in order."""
        return [e for e in self if e._map_key() == key]  # type: ignore[attr-defined]

    def index_by_key(self) -> dict[tuple, list[T]]:
        """All elements grouped by key, for many lookups at once."""
        index: dict[tuple, list[T]] = {}
        for element in self:
            index.setdefault(element._map_key(), []).append(element)  # type: ignore[attr-defined]
        return index
