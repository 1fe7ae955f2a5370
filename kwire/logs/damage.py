"""What to tell an operator about a damaged, foreign or empty log file: the file, the byte offset,
what is wrong, and what to do.

A crash mid-write leaves an incomplete batch at the end of a segment (Kafka's own recovery cuts it
off), but 4 KiB of random bytes is not "an incomplete batch": an entry whose header already shows an
impossible length or a magic byte Kafka never writes is called what it is, not a record batch.
"""
from __future__ import annotations

import os
import struct
from pathlib import Path

from kwire.wire.errors import CorruptRecordError, DecodeError

#: Magic bytes Kafka writes: 0 and 1 (legacy messages), 2 (record batches).
KAFKA_MAGICS = (0, 1, 2)
_HEADER = struct.Struct(">qi")  # baseOffset, length
_MAGIC_AT = 16
_SMALLEST_ENTRY = 14  # a magic 0 message: crc, magic, attributes, key and value lengths


def not_a_batch(header: bytes) -> str | None:
    """Why the entry whose first bytes are ``header`` cannot be a record batch, or None when it may be one."""
    if len(header) >= _HEADER.size:
        _, length = _HEADER.unpack_from(header)
        if length < _SMALLEST_ENTRY:
            return f"its length field says {length} bytes, below the smallest entry ({_SMALLEST_ENTRY})"
    if len(header) > _MAGIC_AT and header[_MAGIC_AT] not in KAFKA_MAGICS:
        return f"its magic byte is {header[_MAGIC_AT]} (Kafka writes 0, 1 or 2)"
    return None


def header_at(source: object, position: int) -> bytes:
    """The first bytes of the entry at ``position`` of ``source`` (a path or bytes); empty if unreadable."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source[position:position + _MAGIC_AT + 1])
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, "rb") as file:
                file.seek(position)
                return file.read(_MAGIC_AT + 1)
        except OSError:
            return b""
    return b""


def incomplete_tail(source: object, position: int) -> DecodeError:
    """The error for an entry at ``position`` that runs past the end of ``source``: not a record
    batch when its header says it cannot be one, else an incomplete last batch (a crash mid-write)."""
    reason = not_a_batch(header_at(source, position))
    if reason is not None:
        return CorruptRecordError(f"not a record batch: {reason}", offset=position)
    return DecodeError("the last batch is incomplete", offset=position)


def in_file(path: str | os.PathLike, err: DecodeError, *, hint: str | None = None) -> DecodeError:
    """``err`` told about ``path``: the file first, then what is wrong at which byte offset, then ``hint``.

    Damage at byte offset 0 means the file does not start with a record batch at all."""
    reason = err.reason
    if err.offset == 0 and isinstance(err, CorruptRecordError) and not reason.startswith("not a record batch"):
        reason = f"not a record batch ({reason})"
    text = f"{Path(path)}: {reason}"
    located = type(err).__new__(type(err))
    DecodeError.__init__(located, text, path=err.path, offset=err.offset)
    if hint:
        located.args = (f"{located.args[0]}; {hint}",)
    return located
