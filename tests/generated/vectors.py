"""Helpers of the hand-worked byte vectors: hex with spaces and comments, and the three-way check."""
from __future__ import annotations


def h(*parts: str) -> bytes:
    """Bytes from hex pieces (spaces allowed), one piece per field so each can carry its comment."""
    return bytes.fromhex("".join(parts).replace(" ", ""))


def check(obj, version: int, wire: bytes) -> None:
    """``obj`` encodes to exactly ``wire`` at ``version`` and decodes back equal."""
    assert obj.encode(version).hex() == wire.hex()
    assert type(obj).decode(wire, version) == obj
