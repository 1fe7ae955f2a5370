"""Varints: the one module that reads and writes them (little-endian groups of 7 bits).

Kafka uses two kinds. The protocol's flexible versions use *unsigned* varints (counts, lengths,
tags: at most 5 bytes and 32 bits, as Kafka's ``ByteUtils.readUnsignedVarint``); records use
*zigzag* varints (int32, at most 5 bytes) and varlongs (int64, at most 10 bytes). Every reader
takes an explicit ``end``: a varint that would run past it raises :class:`DecodeError` naming the
varint's offset. A varint may spell a value in more bytes than it needs (``0x81 0x00`` is 1);
Kafka accepts that, and so do these readers.

Hot decoders read the one- and two-byte cases inline (the emitter's generated code, and
:mod:`kwire.records.record_codec` / :mod:`kwire.records.column_decoder`) and call these for the
rest. This module must stay compilable by mypyc: the compiled builds that cannot call a Python
function cheaply (the record column decoder, the generated package's ``_base``) get its
definitions pasted in at build time (``kwire.generator.native.inline``), since mypyc cannot
inline across modules.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from kwire.wire.errors import DecodeError, EncodeError

if TYPE_CHECKING:  # machine integers for mypyc (annotations only; plain ints in Python)
    from mypy_extensions import i64


def read_uvarint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """The unsigned varint at ``buf[pos]`` that ends before ``end``: ``(value, position after it)``.

    At most 5 bytes and at most 2**32 - 1, else :class:`DecodeError`.
    """
    if pos < end:
        b: i64 = buf[pos]
        if b < 0x80:
            return b, pos + 1
    start = pos
    value: i64 = 0
    shift: i64 = 0
    while True:
        if pos >= end:
            raise DecodeError("truncated unsigned varint", offset=start)
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            break
        shift += 7
        if shift > 28:
            raise DecodeError("unsigned varint is longer than 5 bytes", offset=start)
    if value > 0xFFFFFFFF:
        raise DecodeError("unsigned varint exceeds 32 bits", offset=start)
    return value, pos


def read_zigzag(buf: bytes, pos: i64, end: i64, long: bool, report_base: i64) -> tuple[i64, i64]:
    """The zigzag varint at ``buf[pos]`` (a varlong with ``long``) that ends before ``end``:
    ``(value, position after it)``. Longer than 5 (10) bytes or outside int32 (int64), or running
    past ``end``: :class:`DecodeError` at offset ``report_base + pos``."""
    start = pos
    last_shift: i64 = 63 if long else 28
    top: i64 = 0x01 if long else 0x0F  # what the last byte may hold without leaving the range
    raw: i64 = 0
    shift: i64 = 0
    while True:
        if pos >= end:
            raise DecodeError("varint runs past the end of its record", offset=report_base + start)
        b: i64 = buf[pos]
        pos += 1
        if shift == last_shift:
            if b >= 0x80:
                raise DecodeError(f"varint is longer than {last_shift // 7 + 1} bytes", offset=report_base + start)
            if b > top:
                raise DecodeError(f"varint is out of {'int64' if long else 'int32'} range", offset=report_base + start)
            # raw >> 1 with the last byte's bits on top, so that no bit lands in the sign bit of an i64
            return ((raw >> 1) | (b << (shift - 1))) ^ -(raw & 1), pos
        raw |= (b & 0x7F) << shift
        if b < 0x80:
            return (raw >> 1) ^ -(raw & 1), pos
        shift += 7


def uvarint(value: int) -> bytes:
    """Encode an unsigned varint (0 <= value < 2**32)."""
    if 0 <= value < 0x80:
        return _ONE_BYTE[value]
    if value < 0 or value > 0xFFFFFFFF:
        raise EncodeError(f"{value} does not fit an unsigned varint")
    return _groups(value)


def zigzag(value: int) -> bytes:
    """Encode ``value`` as a zigzag varint or varlong (the caller range-checks it: int64 at most)."""
    raw = (value << 1) ^ (value >> 63)
    if raw < 0x80:
        return _ONE_BYTE[raw]
    return _groups(raw)


def uvarint_size(value: int) -> int:
    """Bytes :func:`uvarint` takes for ``value``."""
    if value < 0x80:
        return 1
    if value < 0x4000:
        return 2
    if value < 0x200000:
        return 3
    if value < 0x10000000:
        return 4
    return 5


def _groups(raw: int) -> bytes:
    out = bytearray()
    while raw >= 0x80:
        out.append((raw & 0x7F) | 0x80)
        raw >>= 7
    out.append(raw)
    return bytes(out)


# Most counts, lengths and deltas are small: their one-byte encodings are made once.
_ONE_BYTE: tuple[bytes, ...] = tuple(bytes((i,)) for i in range(0x80))
