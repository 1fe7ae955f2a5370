"""The order in which Kafka's controller walks its hash maps, so that kwire meets the same entry first.

When several features of one UpdateFeatures request are wrong, or several brokers lack a level,
Kafka reports the first one its loop meets, and its loops walk hash maps: the request's updates in
a ``java.util.HashMap<String, Short>``, the broker and controller registrations in Kafka's
``TimelineHashMap<Integer, ...>`` (``BaseHashTable``). Both orders are deterministic functions of
the keys and of the order they were inserted in, reproduced here:

- ``HashMap``: a table of 16 buckets doubled whenever it holds more than 3/4 of its size; a key's
  bucket is the low bits of ``h ^ (h >>> 16)`` (``h`` is ``String.hashCode()``); iteration goes
  bucket by bucket, and within a bucket in insertion order (resizing keeps that order). Buckets of
  8 or more keys turn into trees in Java, which this does not model (no request has that many
  features with one hash).
- ``BaseHashTable``: 2 slots to begin with, doubled before an insertion would fill more than 3/4;
  a key's slot is the top bits of ``hashCode * 0x9E3779B97F4A7C15`` (Fibonacci hashing,
  ``Integer.hashCode()`` being the value); within a slot, in insertion order, and a doubling
  re-inserts slot by slot. Removals are not modelled: the registrations are taken as inserted in
  the order given, none removed since the controller started.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

K = TypeVar("K")

_MASK64 = (1 << 64) - 1
_GOLDEN = -7046029254386353131 & _MASK64  # 0x9E3779B97F4A7C15 as Java's long


def java_string_hash(text: str) -> int:
    """``String.hashCode()``: over UTF-16 code units, as a signed 32-bit int."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def hash_map_order(keys: Iterable[str]) -> list[str]:
    """The iteration order of a ``java.util.HashMap`` after ``put`` of each key in turn."""
    distinct = list(dict.fromkeys(keys))
    capacity = 16
    while len(distinct) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        h = java_string_hash(key) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(distinct, key=lambda key: bucket(key))  # sorted() is stable: insertion order within a bucket


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
    return [key for slot in table for key in slot]
