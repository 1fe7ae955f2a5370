"""Seeded random instances of generated classes, valid at a given version.

Only the standard library and ``random.Random`` are used, so the same code runs on the command
line, in tests and on Spark executors, and a (seed, message, version, index) always yields the
same instance on every machine.

"Valid at version v": fields absent at v keep their default; null only where the field is
nullable at v; tagged fields are at their default about half of the time; unknown tagged fields
only in flexible versions and only with tags no field of the struct uses in any version; strings
are valid UTF-8 of at most 0x7fff bytes; integers within their type; float64 never NaN (NaN != NaN
would make every equality property fail for a reason that is not a codec bug).
"""
from __future__ import annotations

import random
import struct
import uuid
from typing import Any

from kwire.wire.message import FieldInfo, GeneratedStruct, KeyedList, is_flexible
from kwire.wire.primitives import INT32_MAX, INT_RANGES, MAX_STRING_BYTES

MAX_TAG = INT32_MAX  # Kafka reads tags into a Java int

# Byte lengths where a length prefix changes width (compact: len+1 crosses 0x80, 0x4000).
BOUNDARY_LENGTHS = (126, 127, 128, 255, 256, 16382, 16383, 16384)
NULL_CHANCE = 0.15
DEFAULT_CHANCE = 0.15  # untagged fields sometimes at their default (what KIP-778 calls lossless)
TAGGED_DEFAULT_CHANCE = 0.5
UNKNOWN_TAGS_CHANCE = 0.25
DUPLICATE_KEY_CHANCE = 0.3

_FLOATS = (0.0, -0.0, 1.0, -1.5, 0.1, 1e-300, 5e-324, 2.2250738585072014e-308,
           1.7976931348623157e308, -1.7976931348623157e308, float("inf"), float("-inf"))
# Characters of every UTF-8 width plus awkward ones (NUL, BOM, line separator); no surrogates,
# which have no UTF-8 form.
_TEXT_POOL = "abcxyzABC019-_.:/ \x00\t\n\x7fé\u00dfü\u0394\u05d0\u4e2d\u6587\u2028\ufeff\U0001f600\U00010348"
_ASCII = "abcdefghijklmnopqrstuvwxyz0123456789-_."


def case_random(seed: int, message: str, version: int, index: int) -> random.Random:
    """The generator for one case; seeding with text hashes it with SHA-512 (stable everywhere)."""
    return random.Random(f"kwire-fuzz:{seed}:{message}:{version}:{index}")


def case_instance(cls: type[GeneratedStruct], version: int, seed: int, index: int,
                  *, unknown_tags: bool = True) -> GeneratedStruct:
    """Case ``index`` of the stream ``seed`` for message class ``cls`` at ``version``."""
    return random_instance(cls, version, case_random(seed, cls.NAME, version, index),
                           unknown_tags=unknown_tags)


def random_instance(cls: type[GeneratedStruct], version: int, rng: random.Random,
                    *, unknown_tags: bool = True) -> GeneratedStruct:
    """A random instance of the message class ``cls`` valid at ``version``."""
    return _Maker(rng, version, unknown_tags and is_flexible(cls, version)).struct(cls, 0)


class _Maker:
    """One instance's worth of random choices (the version and flexibility are fixed)."""

    def __init__(self, rng: random.Random, version: int, unknown_tags: bool) -> None:
        self.rng = rng
        self.version = version
        self.unknown_tags = unknown_tags

    def struct(self, cls: type[GeneratedStruct], depth: int) -> GeneratedStruct:
        rng = self.rng
        obj = cls()
        for info in cls.FIELDS:
            if not info.present(self.version):
                continue
            keep_default = TAGGED_DEFAULT_CHANCE if info.tagged_in(self.version) else DEFAULT_CHANCE
            if rng.random() < keep_default:
                continue
            setattr(obj, info.attr, self.field(info, depth))
        if self.unknown_tags and rng.random() < UNKNOWN_TAGS_CHANCE:
            obj.unknown_tagged_fields = random_unknown_tags(rng, cls)
        return obj

    def field(self, info: FieldInfo, depth: int) -> Any:
        rng = self.rng
        if info.nullable_in(self.version) and rng.random() < NULL_CHANCE:
            return None
        element = info.element_type
        if element is None:
            if info.struct is not None:
                return self.struct(info.struct, depth + 1)
            return random_scalar(rng, info.type, info.default)
        if info.struct is not None:
            items = [self.struct(info.struct, depth + 1) for _ in range(self.length(depth))]
            if info.struct._MAP_KEYS:
                duplicate_some_keys(rng, items, info.struct._MAP_KEYS)
                return KeyedList(items)
            return items
        n = self.length(depth)
        if n and rng.random() < 0.02:  # a count whose compact varint needs two bytes
            n = rng.choice((127, 128, 130))
        return [random_scalar(rng, element, None) for _ in range(n)]

    def length(self, depth: int) -> int:
        """Array lengths shrink with depth so nested messages stay small."""
        top = 3 if depth < 2 else 2
        if self.rng.random() < 0.35:
            return 0
        return self.rng.randint(1, top)


def duplicate_some_keys(rng: random.Random, items: list, keys: tuple[str, ...]) -> None:
    """Give some elements the map key of an earlier one (Kafka keeps such duplicates)."""
    for i in range(1, len(items)):
        if rng.random() < DUPLICATE_KEY_CHANCE:
            source = items[rng.randrange(i)]
            for key in keys:
                setattr(items[i], key, getattr(source, key))


def random_unknown_tags(rng: random.Random, cls: type[GeneratedStruct]) -> tuple[tuple[int, bytes], ...]:
    """1-3 tagged fields with tags no field of ``cls`` uses, in ascending tag order."""
    used = {info.tag for info in cls.FIELDS if info.tag is not None}
    top = max(used, default=-1)
    tags: set[int] = set()
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.6:
            tag = rng.randint(0, top + 6)
        elif r < 0.8:
            tag = rng.choice((127, 128, 16383, 16384, MAX_TAG))  # varint width boundaries
        else:
            tag = rng.randint(0, MAX_TAG)
        if tag not in used:
            tags.add(tag)
    if not tags:
        tags.add(top + 1)
    return tuple((tag, random_bytes(rng, small=True)) for tag in sorted(tags))


def random_scalar(rng: random.Random, type_name: str, default: Any) -> Any:
    if type_name in INT_RANGES:
        low, high = INT_RANGES[type_name]
        return random_int(rng, low, high, default)
    if type_name == "bool":
        return rng.random() < 0.5
    if type_name == "string":
        return random_string(rng)
    if type_name in ("bytes", "records"):
        return random_bytes(rng)
    if type_name == "uuid":
        return random_uuid(rng)
    if type_name == "float64":
        return random_float(rng)
    raise ValueError(f"no generator for type {type_name!r}")


def random_int(rng: random.Random, low: int, high: int, default: Any = None) -> int:
    r = rng.random()
    if r < 0.1 and isinstance(default, int) and not isinstance(default, bool):
        return default
    if r < 0.35:
        return rng.choice([v for v in (low, high, low + 1, high - 1, 0, 1, -1) if low <= v <= high])
    if r < 0.7:
        return rng.randint(max(low, -128), min(high, 1000))
    return rng.randint(low, high)


def random_float(rng: random.Random) -> float:
    r = rng.random()
    if r < 0.3:
        return rng.choice(_FLOATS)
    if r < 0.6:
        return rng.uniform(-1e6, 1e6)
    while True:  # any bit pattern except NaN
        (value,) = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))
        if value == value:
            return value


def random_uuid(rng: random.Random) -> uuid.UUID:
    r = rng.random()
    if r < 0.1:
        return uuid.UUID(int=0)
    if r < 0.15:
        return uuid.UUID(int=2**128 - 1)
    return uuid.UUID(int=rng.getrandbits(128))


def random_string(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.1:
        return ""
    if r < 0.6:
        return "".join(rng.choice(_ASCII) for _ in range(rng.randint(1, 12)))
    if r < 0.97:
        return "".join(rng.choice(_TEXT_POOL) for _ in range(rng.randint(1, 16)))
    if r < 0.995:
        return _string_of_bytes(rng, rng.choice(BOUNDARY_LENGTHS))
    return _string_of_bytes(rng, MAX_STRING_BYTES)


def _string_of_bytes(rng: random.Random, size: int) -> str:
    """A string whose UTF-8 form is exactly ``size`` bytes, with some multi-byte characters."""
    wide = rng.choice(("é", "\u4e2d", "\U0001f600"))
    count = rng.randint(0, size // (4 * len(wide.encode("utf-8"))))
    text = wide * count
    return text + "a" * (size - len(text.encode("utf-8")))


def random_bytes(rng: random.Random, small: bool = False) -> bytes:
    r = rng.random()
    if r < 0.15:
        return b""
    if small or r < 0.97:
        return rng.randbytes(rng.randint(1, 12))
    return rng.randbytes(rng.choice(BOUNDARY_LENGTHS))


def non_default_value(rng: random.Random, info: FieldInfo, version: int) -> Any:
    """A value for ``info`` at ``version`` that differs from its default (for directed searches)."""
    maker = _Maker(rng, version, unknown_tags=False)
    default = info.make_default()
    for _ in range(1000):
        value: Any
        if info.element_type is not None:
            # one element: enough to differ from the default, small enough to read in a report
            if info.struct is not None:
                element = maker.struct(info.struct, 1)
                value = KeyedList([element]) if info.struct._MAP_KEYS else [element]
            else:
                value = [random_scalar(rng, info.element_type, None)]
        elif info.struct is not None:
            value = maker.struct(info.struct, 1)
        else:
            value = random_scalar(rng, info.type, info.default)
        if value != default or (value is None) != (default is None):
            return value
    raise ValueError(f"could not find a non-default value for {info.attr}")
