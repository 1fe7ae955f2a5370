"""A map of an image being changed by a delta: copied at its first change, changed in place after.

Copy-on-write keeps a delta cheap (a part no record touches is handed on as it is) and keeps the
insertion order the one record-by-record changes give (a changed key keeps its place, a new or
re-added key goes last), which the writer needs to write records back in Kafka's map order.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class MapChanges(Generic[K, V]):
    """The image's map ``base`` and the changes made to it so far."""

    __slots__ = ("base", "_copy")

    def __init__(self, base: Mapping[K, V]) -> None:
        self.base = base
        self._copy: dict[K, V] | None = None

    @property
    def changed(self) -> bool:
        return self._copy is not None

    def current(self) -> Mapping[K, V]:
        """The map as the changes so far make it (read it only; change it with the methods below)."""
        return self.base if self._copy is None else self._copy

    def get(self, key: K) -> V | None:
        return self.current().get(key)

    def __contains__(self, key: object) -> bool:
        return key in self.current()

    def __iter__(self) -> Iterator[K]:
        return iter(list(self.current()))  # a snapshot: callers may change the map while they go

    def set(self, key: K, value: V) -> None:
        self._writable()[key] = value

    def remove(self, key: K) -> V | None:
        if key not in self.current():
            return None
        return self._writable().pop(key)

    def frozen(self) -> Mapping[K, V]:
        """The changed map, read-only (the base itself when nothing changed). The delta hands this
        copy over: no change may follow."""
        return self.base if self._copy is None else MappingProxyType(self._copy)

    def _writable(self) -> dict[K, V]:
        if self._copy is None:
            self._copy = dict(self.base)
        return self._copy
