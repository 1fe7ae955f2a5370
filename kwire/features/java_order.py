"""The order in which Kafka's Java maps hand back their keys, so kwire meets and writes them as Kafka does.

Two places depend on it. Kafka's controller walks hash maps when it judges an UpdateFeatures
request and reports the first refusal it meets (the request's updates in a ``HashMap<String,
Short>``, the registrations in a ``TimelineHashMap<Integer, ...>``); Kafka's image writer walks
the image's maps, so the order of a snapshot's records (and of the lists inside one record: a
broker's endpoints, a quota entity's parts) is their iteration order. Both orders are functions
of the keys, the order they were put in and how the map was built:

- ``java.util.HashMap``: a key's bucket is the low bits of ``h ^ (h >>> 16)`` (``h`` its
  ``hashCode()``); iteration goes bucket by bucket, each in insertion order (a resize splits a
  bucket without reordering it, so only the final table size matters). The table starts at 16
  buckets (``new HashMap<>()``), at the power of two at or above ``n`` (``new HashMap<>(n)``) or
  above ``size / 0.75 + 1`` (``new HashMap<>(map)``), and doubles when it holds more than 3/4 of
  its size, or when a put finds 8 keys already in its bucket and the table is under 64 buckets
  (Java resizes instead of turning the bucket into a tree). A bucket of 9 or more keys in a table
  of 64 or more does become a tree, whose order is not modelled: no map Kafka's image or
  controller builds comes near it.
- PCollections' ``HashTreePMap`` (Kafka's ``ImmutableMap``, which holds the topics): ascending
  hash code.
- Kafka's ``BaseHashTable`` under ``TimelineHashMap``: 2 slots to begin with, doubled before an
  insertion would fill more than 3/4; a key's slot is the top bits of ``hashCode *
  0x9E3779B97F4A7C15`` (Fibonacci hashing); a slot keeps its keys in insertion order and a
  doubling re-inserts slot by slot, but ``SnapshottableHashTable``'s iterator hands a slot's keys
  out from its end, so keys sharing a slot come out newest first. Removals are not modelled: the
  keys are taken as inserted in the order given, none removed since.

Facts from the JDK 17 sources and Kafka's ``server-common`` (``BaseHashTable``, ``ImmutableMap``);
checked against the JDK on the machine in the tests.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar
from uuid import UUID

T = TypeVar("T")

_MASK32 = 0xFFFF_FFFF
_MASK64 = (1 << 64) - 1
_GOLDEN = -7046029254386353131 & _MASK64  # 0x9E3779B97F4A7C15 as Java's long
DEFAULT_CAPACITY = 16
LOAD_FACTOR = 0.75
TREEIFY_THRESHOLD = 8  # keys already in a bucket when a put makes Java treeify (or resize) it
MIN_TREEIFY_CAPACITY = 64


def _signed32(value: int) -> int:
    value &= _MASK32
    return value - (1 << 32) if value >= 1 << 31 else value


def java_string_hash(text: str) -> int:
    """``String.hashCode()``: over UTF-16 code units, as a signed 32-bit int."""
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & _MASK32
    return _signed32(h)


string_hash = java_string_hash


def int_hash(value: int) -> int:
    """``Integer.hashCode()``: the value itself."""
    return _signed32(value)


def uuid_hash(value: UUID) -> int:
    """``org.apache.kafka.common.Uuid.hashCode()``: both halves xor-ed, then folded to 32 bits."""
    h = (value.int >> 64) ^ (value.int & _MASK64)
    return _signed32((h >> 32) ^ h)


def _table_size_for(n: int) -> int:
    size = 1
    while size < n:
        size <<= 1
    return size


def _bucket(hash_code: int, capacity: int) -> int:
    h = hash_code & _MASK32
    return (h ^ (h >> 16)) & (capacity - 1)


def _final_capacity(hashes: Sequence[int], capacity: int) -> int:
    """The table size after putting keys with these (distinct keys') hashes into a table of ``capacity``."""
    def counts(upto: int) -> Counter[int]:
        return Counter(_bucket(h, capacity) for h in hashes[:upto])

    in_bucket = counts(0)
    for size, hash_code in enumerate(hashes):
        if capacity < MIN_TREEIFY_CAPACITY:  # only a small table resizes for a crowded bucket
            if in_bucket[_bucket(hash_code, capacity)] >= TREEIFY_THRESHOLD:
                capacity <<= 1
                in_bucket = counts(size)
            in_bucket[_bucket(hash_code, capacity)] += 1
        if size + 1 > int(capacity * LOAD_FACTOR):
            capacity <<= 1
            if capacity < MIN_TREEIFY_CAPACITY:
                in_bucket = counts(size + 1)
    return capacity


def _ordered(keys: list[T], key_hash: Callable[[T], int], initial_capacity: int) -> list[T]:
    if not keys:
        return keys
    hashes = [key_hash(k) for k in keys]
    capacity = _final_capacity(hashes, initial_capacity)
    by_key = dict(zip(keys, hashes, strict=False))
    return sorted(keys, key=lambda k: _bucket(by_key[k], capacity))  # stable: a bucket keeps insertion order


def hash_map_order(keys: Iterable[T], key_hash: Callable[[Any], int] = java_string_hash) -> list[T]:
    """The order of ``new HashMap<>()`` after ``put`` of each key in turn (a repeated key keeps its place)."""
    return _ordered(list(dict.fromkeys(keys)), key_hash, DEFAULT_CAPACITY)


def sized_copy_order(keys: Iterable[T], key_hash: Callable[[Any], int] = java_string_hash) -> list[T]:
    """The order of ``new HashMap<>(n)`` filled from a fresh map of the same n keys."""
    listed = hash_map_order(keys, key_hash)
    return _ordered(listed, key_hash, max(1, _table_size_for(len(listed))))


def copied_hash_map_order(keys: Iterable[T], key_hash: Callable[[Any], int] = java_string_hash) -> list[T]:
    """The order of ``new HashMap<>(map)`` where ``map`` is a fresh map filled with ``keys``."""
    listed = hash_map_order(keys, key_hash)
    return _ordered(listed, key_hash, _table_size_for(int(len(listed) / LOAD_FACTOR + 1.0)))


def hash_tree_order(keys: Iterable[T], key_hash: Callable[[T], int]) -> list[T]:
    """The order of a PCollections ``HashTreePMap``: ascending (signed) hash code."""
    return sorted(keys, key=key_hash)


def _slot(hash_code: int, slots: int) -> int:
    log2size = slots.bit_length()  # 32 - numberOfLeadingZeros(slots)
    return ((hash_code & _MASK64) * _GOLDEN & _MASK64) >> (65 - log2size)


def timeline_hash_order(keys: Sequence[int]) -> list[int]:
    """The iteration order of Kafka's ``TimelineHashMap<Integer, ...>`` after inserting ``keys`` in turn."""
    table: list[list[int]] = [[], []]
    size = 0
    for key in keys:
        if any(key in slot for slot in table):
            continue  # a re-registration replaces the entry where it is
        if (size + 1) * 0.75 > len(table):
            old, table = table, [[] for _ in range(len(table) * 2)]
            for slot in old:
                for moved in slot:
                    table[_slot(moved, len(table))].append(moved)
        table[_slot(key, len(table))].append(key)
        size += 1
    # CurrentIterator takes ``ready.remove(ready.size() - 1)``: the last key put in a slot first
    return [key for slot in table for key in reversed(slot)]


def sized_hash_map_order(keys: Iterable[T], key_hash: Callable[[Any], int] = java_string_hash) -> list[T]:
    """The order of ``new HashMap<>(n)`` after ``put`` of each of its n keys in turn
    (``VoterSet.fromVotersRecord``: a map sized for the record's voters, filled in record order)."""
    listed = list(dict.fromkeys(keys))
    return _ordered(listed, key_hash, max(1, _table_size_for(len(listed))))
