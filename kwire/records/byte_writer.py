"""A pure-Python stand-in for the parts of ``librt.strings`` the column decoder uses.

Compiled by mypyc, :mod:`kwire.records.column_decoder` writes its buffers with mypyc's own
``librt.strings.BytesWriter`` and ``write_i32_le`` / ``write_i64_le`` primitives, which become a
few C instructions each. Run as plain Python it uses these instead, so that a kwire installed
without mypy or a C compiler still decodes: a ``bytearray`` for bytes, and for the integer
columns arrays of C integers whose ``append`` the writers *are* (a C call, where a Python
function packing bytes would cost a Python call per value). ``len`` and ``truncate`` of an
integer column count values, not bytes; ``getvalue`` gives the little-endian bytes either way.
"""
from __future__ import annotations

import struct
import sys
from array import array

_unpack_i32 = struct.Struct("<i").unpack_from
_BIG_ENDIAN = sys.byteorder == "big"


class BytesWriter(bytearray):
    """A growable byte buffer: ``append`` one byte, ``write`` many, ``getvalue`` a copy."""

    write = bytearray.extend

    def getvalue(self) -> bytes:
        return bytes(self)

    def truncate(self, size: int) -> None:
        del self[size:]


class _IntColumn(array):
    TYPECODE = ""

    def __new__(cls):
        return super().__new__(cls, cls.TYPECODE)

    def getvalue(self) -> bytes:
        if _BIG_ENDIAN:
            swapped = array(self.typecode, self)
            swapped.byteswap()
            return swapped.tobytes()
        return self.tobytes()

    def truncate(self, size: int) -> None:
        del self[size:]


class Int32Writer(_IntColumn):
    TYPECODE = "i"


class Int64Writer(_IntColumn):
    TYPECODE = "q"


for _column in (Int32Writer, Int64Writer):
    if array(_column.TYPECODE).itemsize != (4 if _column is Int32Writer else 8):
        raise ImportError(f"array typecode {_column.TYPECODE!r} has the wrong size on this platform")

write_i32_le = array.append  # on an Int32Writer
write_i64_le = array.append  # on an Int64Writer


def read_i32_le(data: bytes, index: int) -> int:
    return _unpack_i32(data, index)[0]
