"""Zigzag varints as record batches use them (protobuf encoding, little-endian groups of 7 bits).

Records carry signed zigzag varints (int32, at most 5 bytes) and varlongs (int64, at most 10
bytes). The record decoder inlines the one- and two-byte cases for speed and calls
:func:`read_zigzag` for anything longer, so this function also owns the over-long and
out-of-range checks.
"""
from __future__ import annotations

from kwire.wire.errors import DecodeError
from kwire.wire.primitives import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN  # noqa: F401  (used by the record codec)

VARINT_MAX_BYTES = 5
VARLONG_MAX_BYTES = 10


def read_zigzag(buf, pos: int, max_bytes: int) -> tuple[int, int]:
    """Read one zigzag varint of at most ``max_bytes`` bytes; return ``(value, next_pos)``.

    ``max_bytes`` is 5 for an int32 varint and 10 for an int64 varlong; the decoded value must fit
    that width. Raises :class:`DecodeError` when the buffer ends first or the varint is too long.
    """
    raw = 0
    shift = 0
    start = pos
    end = len(buf)
    for _ in range(max_bytes):
        if pos >= end:
            raise DecodeError("varint runs past the end of the data", offset=start)
        byte = buf[pos]
        pos += 1
        raw |= (byte & 0x7F) << shift
        if byte < 0x80:
            value = (raw >> 1) ^ -(raw & 1)
            if max_bytes == VARINT_MAX_BYTES:
                low, high = INT32_MIN, INT32_MAX
            else:
                low, high = INT64_MIN, INT64_MAX
            if not low <= value <= high:
                raise DecodeError(f"varint value {value} is out of range", offset=start)
            return value, pos
        shift += 7
    raise DecodeError(f"varint is longer than {max_bytes} bytes", offset=start)


def zigzag_varint_bytes(value: int) -> bytes:
    """Encode ``value`` as a zigzag varint (the caller range-checks it)."""
    raw = (value << 1) ^ (value >> 63)
    if raw < 0x80:
        return _ONE_BYTE[raw]
    out = bytearray()
    while raw >= 0x80:
        out.append((raw & 0x7F) | 0x80)
        raw >>= 7
    out.append(raw)
    return bytes(out)


# Most lengths and deltas in a batch are small: reuse their one-byte encodings.
_ONE_BYTE = [bytes((i,)) for i in range(0x80)]
