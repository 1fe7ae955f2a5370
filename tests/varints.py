"""Varints written here from the protobuf description, not by kwire's encoder: the one independent
encoder for tests that build Kafka bytes by hand (record lengths and deltas, compact lengths)."""
from __future__ import annotations


def uvarint(value: int) -> bytes:
    """Unsigned varint: seven bits a byte, least significant group first, the high bit set on every
    byte but the last."""
    out = bytearray()
    while True:
        group = value & 0x7F
        value >>= 7
        if not value:
            out.append(group)
            return bytes(out)
        out.append(group | 0x80)


def zigzag(value: int) -> bytes:
    """Signed varint as Kafka's DefaultRecord writes it: zig-zag encoded (64-bit), then ``uvarint``."""
    return uvarint((value << 1) ^ (value >> 63))
