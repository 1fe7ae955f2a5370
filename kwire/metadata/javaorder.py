"""The order in which Kafka's Java maps hand back their entries, so records come out as Kafka writes them.

Kafka's image keeps most of its state in ``java.util.HashMap``s and writes a snapshot by walking
them, so the order of records (and of the lists inside one record: a broker's endpoints and
supported features, a quota entity's parts) is the map's iteration order. A HashMap iterates its
buckets in index order, ``(hash ^ hash >>> 16) & (capacity - 1)``, and each bucket in insertion
order (a resize splits a bucket without reordering it); the capacity depends on how the map was
built. Topics live in a PCollections hash map instead, which iterates by ascending hash code.

These facts are from the JDK 17 ``HashMap`` and Kafka's ``ImmutableMap`` (PCollections); the
order matters only for writing the same bytes in the same sequence, never for what an image means.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar
from uuid import UUID

from kwire.features.java_order import java_string_hash

T = TypeVar("T")

_MASK32 = 0xFFFF_FFFF
DEFAULT_CAPACITY = 16
LOAD_FACTOR = 0.75


def _signed32(value: int) -> int:
    value &= _MASK32
    return value - (1 << 32) if value >= 1 << 31 else value


def string_hash(text: str) -> int:
    """``String.hashCode()``: over UTF-16 code units."""
    return java_string_hash(text)


def int_hash(value: int) -> int:
    """``Integer.hashCode()``: the value itself."""
    return _signed32(value)


def uuid_hash(value: UUID) -> int:
    """``org.apache.kafka.common.Uuid.hashCode()``: both halves xor-ed, then folded to 32 bits."""
    h = (value.int >> 64) ^ (value.int & 0xFFFF_FFFF_FFFF_FFFF)
    return _signed32((h >> 32) ^ h)


def _table_size_for(n: int) -> int:
    size = 1
    while size < n:
        size <<= 1
    return size


def capacity_after_puts(count: int, initial_capacity: int | None = None) -> int:
    """The table size of ``new HashMap<>()`` (or ``new HashMap<>(initial_capacity)``) after ``count`` puts."""
    if count == 0:
        return 0
    capacity = DEFAULT_CAPACITY if initial_capacity is None else max(1, _table_size_for(initial_capacity))
    threshold = int(capacity * LOAD_FACTOR)
    for size in range(1, count + 1):
        if size > threshold:
            capacity <<= 1
            threshold = int(capacity * LOAD_FACTOR)
    return capacity


def capacity_of_copy(count: int) -> int:
    """The table size of ``new HashMap<>(other)`` when ``other`` has ``count`` entries (JDK 17 sizing)."""
    if count == 0:
        return 0
    return _table_size_for(int(count / LOAD_FACTOR + 1.0))


def hash_map_order(items: Iterable[T], key_hash: Callable[[T], int], capacity: int) -> list[T]:
    """``items`` (in insertion order) as a HashMap of ``capacity`` buckets iterates them."""
    listed = list(items)
    if capacity <= 0:
        return listed

    def bucket(item: T) -> int:
        h = key_hash(item) & _MASK32
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(listed, key=bucket)  # stable: a bucket keeps insertion order


def fresh_hash_map_order(items: Iterable[T], key_hash: Callable[[T], int]) -> list[T]:
    """The order of ``new HashMap<>()`` filled with ``items``: Kafka's maps built from one record."""
    listed = list(items)
    return hash_map_order(listed, key_hash, capacity_after_puts(len(listed)))


def copied_hash_map_order(items: Iterable[T], key_hash: Callable[[T], int]) -> list[T]:
    """The order of ``new HashMap<>(new HashMap<>() filled with items)``: a map built then copied."""
    listed = fresh_hash_map_order(items, key_hash)
    return hash_map_order(listed, key_hash, capacity_of_copy(len(listed)))


def sized_copy_order(items: Iterable[T], key_hash: Callable[[T], int]) -> list[T]:
    """The order of ``new HashMap<>(n)`` filled from a fresh map of the same n entries."""
    listed = fresh_hash_map_order(items, key_hash)
    return hash_map_order(listed, key_hash, capacity_after_puts(len(listed), len(listed)))


def hash_tree_order(items: Iterable[T], key_hash: Callable[[T], int]) -> list[T]:
    """The order of a PCollections ``HashTreePMap``: ascending (signed) hash code."""
    return sorted(items, key=key_hash)
