"""A pure-Python stand-in for the parts of ``librt.strings`` the column decoder uses.

Compiled by mypyc, :mod:`kwire.records.column_decoder` writes its buffers with mypyc's own
``librt.strings.BytesWriter`` and ``write_i32_le`` / ``read_i32_le`` primitives, which become a
few C instructions each. Run as plain Python it uses these instead: the same calls on a
``bytearray``, so a kwire installed without mypy or a C compiler still decodes.
"""
from __future__ import annotations

import struct

_I32 = struct.Struct("<i")
_I64 = struct.Struct("<q")
_pack_i32 = _I32.pack
_pack_i64 = _I64.pack
_unpack_i32 = _I32.unpack_from


class BytesWriter(bytearray):
    """A growable byte buffer: ``append`` one byte, ``write`` many, ``getvalue`` a copy."""

    write = bytearray.extend

    def getvalue(self) -> bytes:
        return bytes(self)

    def truncate(self, size: int) -> None:
        del self[size:]


def write_i32_le(writer: BytesWriter, value: int) -> None:
    writer += _pack_i32(value)


def write_i64_le(writer: BytesWriter, value: int) -> None:
    writer += _pack_i64(value)


def read_i32_le(data: bytes, index: int) -> int:
    return _unpack_i32(data, index)[0]
