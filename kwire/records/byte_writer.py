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
from functools import partial

_unpack_i32 = struct.Struct("<i").unpack_from
_BIG_ENDIAN = sys.byteorder == "big"


class BytesWriter(bytearray):
    """A growable byte buffer: ``append`` one byte, ``write`` many, ``getvalue`` a copy."""

    write = bytearray.extend

    def getvalue(self) -> bytes:
        return bytes(self)

    def truncate(self, size: int) -> None:
        del self[size:]


class IntColumn(array):
    """An int32 (typecode ``i``) or int64 (``q``) column: :data:`Int32Writer` or :data:`Int64Writer`."""

    def getvalue(self) -> bytes:
        if _BIG_ENDIAN:
            swapped = array(self.typecode, self)
            swapped.byteswap()
            return swapped.tobytes()
        return self.tobytes()

    def truncate(self, size: int) -> None:
        del self[size:]


# Made with no argument, as librt's writers are, by ``partial`` binding the typecode: a C call,
# where a ``__new__`` written in Python cost a frame and a ``super()`` (~3,000 instructions a
# column, eleven columns a ColumnBuilder).
Int32Writer = partial(IntColumn, "i")
Int64Writer = partial(IntColumn, "q")

for _typecode, _size in (("i", 4), ("q", 8)):
    if array(_typecode).itemsize != _size:
        raise ImportError(f"array typecode {_typecode!r} has the wrong size on this platform")

write_i32_le = array.append  # on an Int32Writer
write_i64_le = array.append  # on an Int64Writer


def read_i32_le(data: bytes, index: int) -> int:
    return _unpack_i32(data, index)[0]
