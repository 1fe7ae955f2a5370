"""The C flavour's column builder in Python: ``finish()`` hands its buffers over, uncopied.

The plain-Python builder's ``finish()`` copies every buffer into ``bytes``
(:class:`~kwire.records.column_decoder.RecordColumns`), so that it may go on growing while the
columns it gave stay as they were. The C flavour (``kwire.records._column_decoder_c``, whose
``add_records`` is C) subclasses this builder instead: ``finish()`` gives read-only views of the
buffers themselves (``memoryview``, one byte per item, which Arrow takes as it takes ``bytes``),
and the builder copies its buffers only when it is written to after that (copy on write; the C
``add_records`` calls :meth:`ColumnBuilder._take_back` too). The usual reader
(:mod:`kwire.arrow.pieces`) finishes a builder once and drops it, so nothing is copied: one copy
of every key and value fewer per batch.
"""
from __future__ import annotations

import sys
from array import array

from kwire.records import column_decoder
from kwire.records.byte_writer import BytesWriter

RecordColumns = column_decoder.RecordColumns  # (the C flavour's module takes both from here)


def _writer_names() -> tuple[str, ...]:
    """The attribute names of ColumnBuilder._writers(), in its order (which RecordColumns reads its
    values in), read off a new builder: _writers() stays the one list of the buffers."""
    builder = column_decoder.ColumnBuilder()
    name_of = {id(value): name for name, value in vars(builder).items()}
    return tuple(name_of[id(writer)] for writer in builder._writers())


WRITER_NAMES = _writer_names()
_LITTLE_ENDIAN = sys.byteorder == "little"


def _view(writer: BytesWriter | array) -> memoryview | bytes:
    """The writer's bytes without a copy: a read-only view (an integer column's as bytes)."""
    if isinstance(writer, bytearray):
        return memoryview(writer).toreadonly()
    if _LITTLE_ENDIAN:
        return memoryview(writer).cast("B").toreadonly()
    return writer.getvalue()  # (big-endian: byte-swapped, which is a copy anyway)


def _copy(writer: BytesWriter | array) -> BytesWriter | array:
    """A new writer of the same kind holding the same values."""
    if isinstance(writer, bytearray):
        return type(writer)(writer)
    return type(writer)(writer.typecode, writer)  # (an integer column: IntColumn)


class ColumnBuilder(column_decoder.ColumnBuilder):
    """:class:`kwire.records.column_decoder.ColumnBuilder` whose ``finish()`` does not copy."""

    #: True from a finish() until the next write: that finish's columns view the buffers.
    _handed_over = False

    def finish(self) -> column_decoder.RecordColumns:
        self._handed_over = True
        writers = self._writers()
        if not _LITTLE_ENDIAN:
            return column_decoder.RecordColumns(self, [_view(writer) for writer in writers])
        # _view inline (a Python call per writer cost more than the views themselves)
        return column_decoder.RecordColumns(self, [
            (memoryview(writer) if type(writer) is BytesWriter else memoryview(writer).cast("B")).toreadonly()
            for writer in writers])

    def _take_back(self) -> None:
        """Before a write after finish(): the buffers become copies of their own, leaving the
        ones finish() handed over as they are (a view held on them also forbids resizing)."""
        for name in WRITER_NAMES:
            setattr(self, name, _copy(getattr(self, name)))
        self._handed_over = False

    def add_record(self, offset: int, timestamp: int, key: bytes | None, value: bytes | None,
                   headers: list[tuple[str, bytes | None]]) -> None:
        if self._handed_over:
            self._take_back()
        super().add_record(offset, timestamp, key, value, headers)

    def add_null_row(self) -> None:
        if self._handed_over:
            self._take_back()
        super().add_null_row()
