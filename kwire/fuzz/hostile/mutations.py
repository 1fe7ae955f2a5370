"""Hostile byte strings: pure random bytes, and mutations of valid seeds.

Everything takes a ``random.Random`` and nothing else that varies, so the same generator state
gives the same bytes on every machine. The mutations are the classic ones of byte fuzzers (bit
flips, insertions, deletions, truncation, splicing two seeds, chunk copies) plus overwrites with
the values that break length and count fields: -1, zero, the extremes of int16/int32/int64, and
unsigned varints that are over-long, too big for 32 bits, or huge but legal.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

MAX_INPUT_BYTES = 256 * 1024  # inputs never grow beyond this (a chunk copy can double a seed)

# Big-endian fixed-width values at the edges of each width, and varints Kafka's readers must refuse
# or bound: 0xFFFFFFFF as a 5-byte uvarint (count 2**32-2 after the compact -1), the int32 maximum,
# six-byte and never-ending varints.
INTERESTING: tuple[bytes, ...] = (
    b"\x00", b"\x01", b"\x7f", b"\x80", b"\xff",
    b"\x00\x00", b"\xff\xff", b"\x7f\xff", b"\x80\x00", b"\x00\x01", b"\x00\x7f", b"\x01\x00",
    b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x80\x00\x00\x00",
    b"\x00\x00\x00\x01", b"\x00\x00\xff\xff", b"\x00\x01\x00\x00", b"\xff\xff\xff\xfe",
    b"\x7f\xff\xff\xff\xff\xff\xff\xff", b"\x80\x00\x00\x00\x00\x00\x00\x00", b"\xff" * 8,
    b"\xff\xff\xff\xff\x0f", b"\xff\xff\xff\x7f", b"\xff\xff\xff\xff\x7f", b"\x80\x80\x80\x80\x80\x00",
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x80\x80\x80\x80\x10", b"\xfe\xff\xff\xff\x07",
    b"\x80\x01", b"\xff\x7f", b"\x80\x80\x01", b"\x81\x80\x80\x80\x00",
)

# Bytes that are common in valid encodings (null markers, small lengths, varint continuation).
_ALPHABET = bytes((0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF, 0xFE, 0x10, 0x20))


def random_input(rng: random.Random) -> bytes:
    """Bytes made from nothing: mostly short, sometimes a few KiB, from two byte distributions."""
    r = rng.random()
    if r < 0.5:
        size = rng.randint(0, 24)
    elif r < 0.9:
        size = rng.randint(0, 300)
    else:
        size = rng.randint(0, 5000)
    if rng.random() < 0.5:
        return rng.randbytes(size)
    return bytes(rng.choice(_ALPHABET) for _ in range(size))


def mutate(rng: random.Random, data: bytes, seeds: Sequence[bytes] = ()) -> bytes:
    """Apply one to eight random mutations to ``data``; ``seeds`` feed splicing."""
    out = bytearray(data)
    for _ in range(1 << rng.randint(0, 3)):
        rng.choice(_MUTATIONS)(rng, out, seeds)
        if len(out) > MAX_INPUT_BYTES:
            del out[MAX_INPUT_BYTES:]
    return bytes(out)


def _position(rng: random.Random, out: bytearray) -> int:
    """A position in ``out`` (or 0 for empty), biased towards the start where headers are."""
    if not out:
        return 0
    if rng.random() < 0.3:
        return rng.randrange(min(len(out), 32))
    return rng.randrange(len(out))


def _flip_bit(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    if out:
        out[_position(rng, out)] ^= 1 << rng.randrange(8)


def _set_byte(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    if out:
        out[_position(rng, out)] = rng.choice((rng.randrange(256), rng.choice(_ALPHABET)))


def _overwrite_interesting(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    value = rng.choice(INTERESTING)
    pos = _position(rng, out)
    out[pos:pos + len(value)] = value


def _insert_interesting(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    pos = _position(rng, out)
    out[pos:pos] = rng.choice(INTERESTING)


def _insert_random(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    pos = _position(rng, out)
    out[pos:pos] = rng.randbytes(rng.randint(1, 16))


def _delete(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    if out:
        pos = _position(rng, out)
        del out[pos:pos + rng.randint(1, 16)]


def _truncate(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    if out:
        del out[rng.randrange(len(out)):]


def _append(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    out += rng.choice((rng.randbytes(rng.randint(1, 8)), rng.choice(INTERESTING)))


def _splice(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    """Keep a prefix of ``out`` and continue with the tail of another seed."""
    if not seeds:
        return
    other = rng.choice(seeds)
    cut = rng.randint(0, len(out))
    out[cut:] = other[rng.randint(0, len(other)):]


def _copy_chunk(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    """Repeat a piece of the input somewhere else (grows arrays, duplicates tagged fields)."""
    if not out:
        return
    start = rng.randrange(len(out))
    chunk = out[start:start + rng.randint(1, 64)]
    pos = rng.randint(0, len(out))
    out[pos:pos] = chunk * rng.choice((1, 1, 2, 8, 64))


def _swap_chunks(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    if len(out) < 4:
        return
    size = rng.randint(1, max(1, len(out) // 4))
    a = rng.randrange(len(out) - size + 1)
    b = rng.randrange(len(out) - size + 1)
    first, second = bytes(out[a:a + size]), bytes(out[b:b + size])
    out[a:a + size] = second
    out[b:b + size] = first


def _arith(rng: random.Random, out: bytearray, seeds: Sequence[bytes]) -> None:
    """Nudge one byte up or down a little: off-by-one lengths and counts."""
    if out:
        pos = _position(rng, out)
        out[pos] = (out[pos] + rng.choice((-2, -1, 1, 2))) & 0xFF


_MUTATIONS = (
    _flip_bit, _set_byte, _overwrite_interesting, _overwrite_interesting, _insert_interesting,
    _insert_random, _delete, _truncate, _append, _splice, _copy_chunk, _swap_chunks, _arith, _arith,
)
