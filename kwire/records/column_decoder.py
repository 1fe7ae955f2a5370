"""The records of magic 2 batches straight into column buffers, with no Python object per record.

:class:`ColumnBuilder` reads the records area of a batch (after decompression; wire layout in
:mod:`kwire.records.record_codec`) and appends each record's fields to growing buffers laid out
the way Apache Arrow lays out its arrays, little-endian:

============================  ===============================================================
offsets, timestamps           int64 per row (base offset + offset delta; base timestamp +
                              timestamp delta, or the batch's max timestamp for log-append time)
key_ends / value_ends         int32 end positions into key_data / value_data, after a leading 0
                              (Arrow's binary offsets)
key_nulls / value_nulls       int32 row numbers whose key / value is null (length -1)
header_ends                   int32 headers so far per row, after a leading 0 (list offsets)
header_key_ends / _data       the header keys (checked UTF-8), one entry per header
header_value_ends / _data     the header values; header_value_nulls: int32 header numbers
null_rows                     int32 row numbers that stand for no record (a skipped range)
============================  ===============================================================

:meth:`ColumnBuilder.finish` turns them into :class:`RecordColumns` (bytes, null lists made into
validity bitmaps), from which ``pa.Array.from_buffers`` builds arrays without copying.

This one source is two of the three flavours. mypyc compiles it (``python -m
kwire.generator.native.records``, run by ``make test``) into
``kwire.records._column_decoder_mypyc``, where the buffers are mypyc's ``librt.strings``
writers and every integer is a machine integer; run as plain Python it is the fallback, with
:mod:`kwire.records.byte_writer` standing in for ``librt``. The fastest, the C flavour
(``column_decoder_c.c``, emitted from the same layout), subclasses this plain-Python builder and
replaces only :meth:`ColumnBuilder.add_records`. :mod:`kwire.records.columns` picks one.

The record loop (``_add_records``, ``_add_headers``) and its helpers are emitted, with the object
decoder of :mod:`kwire.records.record_codec`, from the one description of the record layout in
``generator/records/layout.py`` (``python -m kwire.generator.records.decoders``; then rebuild) into
the wholly generated :mod:`kwire.records._generated_columns`, imported below (the methods in the
class body); the mypyc build pastes their definitions in place of those two imports.

Every length is checked against the bytes left in its record before anything is copied, so bad
input raises :class:`~kwire.wire.errors.DecodeError` (or ``CorruptRecordError``) with the byte
offset, and a batch that fails leaves the builder as it was before that batch.
"""
from __future__ import annotations

from typing import Final

from kwire.wire.errors import CorruptRecordError, DecodeError

#: True only in the copy that mypyc compiles, where the build also tells mypy to take it as true
#: (``--always-true=COMPILED``): mypyc then sees librt's writers and machine integers, plain
#: Python the stand-ins.
COMPILED = False

if COMPILED:
    from librt.strings import BytesWriter, read_i32_le, write_i32_le, write_i64_le
    from librt.strings import BytesWriter as Int32Writer
    from librt.strings import BytesWriter as Int64Writer
    from mypy_extensions import i32, i64, u8
else:
    from kwire.records.byte_writer import (  # type: ignore[assignment]
        BytesWriter,
        Int32Writer,
        Int64Writer,
        read_i32_le,
        write_i32_le,
        write_i64_le,
    )

    i32 = i64 = u8 = int  # type: ignore[misc]

# int64 constants: typed i64 so that the overflow checks are machine arithmetic. mypyc still stores
# the two widest as Python ints (they do not fit its tagged ints) and unboxes them at every use, so
# the record loop copies them into i64 locals first.
INT32_MAX: Final[i64] = 2**31 - 1
INT64_MAX: Final[i64] = 2**63 - 1
INT64_MIN: Final[i64] = -(2**63)
#: The smallest record: a one-byte length, then six one-byte fields.
MIN_RECORD_SIZE: Final = 7

# ---- the record loop's helpers are pasted here when compiled (kwire.generator.native.records) ----


class RecordColumns:
    """Finished column buffers of ``rows`` rows (see the module docstring for each buffer).

    A ``*_validity`` is an Arrow validity bitmap (bit set = value present), None when nothing is
    null; ``*_nulls`` counts the nulls.
    """

    def __init__(self, builder: ColumnBuilder, values: list | None = None) -> None:
        # ``values``: the writers' contents in ColumnBuilder._writers() order, where the builder
        # hands them over itself (the C flavour's views, kwire.records.column_handover); else
        # each writer's copy.
        if values is None:
            values = [writer.getvalue() for writer in builder._writers()]
        # (a validity bitmap only where some value is null: _validity is not called for none)
        rows = builder.rows
        headers = builder.header_count
        self.rows: i32 = rows
        self.header_count: i32 = headers
        self.offsets: bytes = values[0]
        self.timestamps: bytes = values[1]
        self.key_ends: bytes = values[2]
        self.key_data: bytes = values[3]
        nulls = values[4]
        self.key_nulls: i64 = len(nulls) // 4
        self.key_validity: bytes | None = None if not nulls else _validity(nulls, rows)
        self.value_ends: bytes = values[5]
        self.value_data: bytes = values[6]
        nulls = values[7]
        self.value_nulls: i64 = len(nulls) // 4
        self.value_validity: bytes | None = None if not nulls else _validity(nulls, rows)
        self.header_ends: bytes = values[8]
        self.header_key_ends: bytes = values[9]
        self.header_key_data: bytes = values[10]
        self.header_value_ends: bytes = values[11]
        self.header_value_data: bytes = values[12]
        nulls = values[13]
        self.header_value_nulls: i64 = len(nulls) // 4
        self.header_value_validity: bytes | None = None if not nulls else _validity(nulls, headers)
        nulls = values[14]
        self.null_rows: i64 = len(nulls) // 4
        self.row_validity: bytes | None = None if not nulls else _validity(nulls, rows)


class ColumnBuilder:
    """Column buffers that grow batch by batch (and row by row for legacy or skipped rows)."""

    def __init__(self) -> None:
        # Row and header counts are int32, as Arrow's offsets are.
        self.rows: i32 = 0
        self.header_count: i32 = 0
        self.offsets = Int64Writer()
        self.timestamps = Int64Writer()
        self.key_ends = Int32Writer()
        self.key_data = BytesWriter()
        self.key_nulls = Int32Writer()
        self.value_ends = Int32Writer()
        self.value_data = BytesWriter()
        self.value_nulls = Int32Writer()
        self.header_ends = Int32Writer()
        self.header_key_ends = Int32Writer()
        self.header_key_data = BytesWriter()
        self.header_value_ends = Int32Writer()
        self.header_value_data = BytesWriter()
        self.header_value_nulls = Int32Writer()
        self.null_rows = Int32Writer()
        for ends in (self.key_ends, self.value_ends, self.header_ends, self.header_key_ends, self.header_value_ends):
            write_i32_le(ends, 0)

    def data_bytes(self) -> i64:
        """Bytes of keys, values and headers gathered so far (Arrow's int32 offsets cap each at 2 GiB)."""
        return len(self.key_data) + len(self.value_data) + len(self.header_key_data) + len(self.header_value_data)

    def finish(self) -> RecordColumns:
        return RecordColumns(self)

    # ----------------------------------------------------------------------- whole batches

    def add_records(self, data: bytes, pos: i64, limit: i64, count: i64, base_offset: i64,
                    base_timestamp: i64, append_time: i64, log_append_time: bool, report_base: i64) -> None:
        """Append the ``count`` records that fill ``data[pos:limit]`` exactly.

        ``log_append_time``: every record's timestamp is ``append_time`` (the batch's max
        timestamp). Errors carry ``offset = report_base + position in data``; on an error the
        builder is left as it was.
        """
        if not 0 <= pos <= limit <= len(data):
            raise DecodeError(f"region {pos}..{limit} is outside the {len(data)}-byte buffer", offset=report_base + pos)
        if count < 0 or count > (limit - pos) // MIN_RECORD_SIZE:
            raise CorruptRecordError(f"{count} records cannot fit in {limit - pos} bytes", offset=report_base + pos)
        if self.data_bytes() + (limit - pos) > INT32_MAX:
            raise DecodeError("more than 2 GiB of keys, values and headers for one set of Arrow arrays",
                              offset=report_base + pos)
        rows, headers = self.rows, self.header_count
        marks = self._lengths()
        try:
            self._add_records(data, pos, limit, count, base_offset, base_timestamp, append_time, log_append_time,
                              report_base)
        except BaseException:
            self.rows, self.header_count = rows, headers
            self._truncate(marks)
            raise

    # The record loop, generated from generator/records/layout.py: plain Python takes it as methods
    # by this import; the mypyc build pastes its definitions here in place of it.
    from kwire.records._generated_columns import _add_headers, _add_records  # pasted in when compiled (native.records)

    def add_record(self, offset: i64, timestamp: i64, key: bytes | None, value: bytes | None,
                   headers: list[tuple[str, bytes | None]]) -> None:
        """Append one record given as values (a legacy magic 0/1 message)."""
        row = self.rows
        write_i64_le(self.offsets, offset)
        write_i64_le(self.timestamps, timestamp)
        _append_binary(self.key_data, self.key_ends, self.key_nulls, key, row)
        _append_binary(self.value_data, self.value_ends, self.value_nulls, value, row)
        for name, data in headers:
            self.header_key_data.write(name.encode("utf-8"))
            write_i32_le(self.header_key_ends, len(self.header_key_data))
            _append_binary(self.header_value_data, self.header_value_ends, self.header_value_nulls, data,
                           self.header_count)
            self.header_count += 1
        write_i32_le(self.header_ends, self.header_count)
        self.rows = row + 1

    def add_null_row(self) -> None:
        """Append a row that stands for no record: every record column null."""
        row = self.rows
        write_i32_le(self.null_rows, row)
        write_i64_le(self.offsets, 0)
        write_i64_le(self.timestamps, 0)
        _append_binary(self.key_data, self.key_ends, self.key_nulls, None, row)
        _append_binary(self.value_data, self.value_ends, self.value_nulls, None, row)
        write_i32_le(self.header_ends, self.header_count)
        self.rows = row + 1

    # ------------------------------------------------------------------------- rollback

    def _writers(self) -> list[BytesWriter]:
        return [self.offsets, self.timestamps, self.key_ends, self.key_data, self.key_nulls, self.value_ends,
                self.value_data, self.value_nulls, self.header_ends, self.header_key_ends, self.header_key_data,
                self.header_value_ends, self.header_value_data, self.header_value_nulls, self.null_rows]

    def _lengths(self) -> list[i64]:
        # (in plain Python an integer column's length counts values; truncate counts alike)
        return [len(writer) for writer in self._writers()]

    def _truncate(self, lengths: list[i64]) -> None:
        for writer, length in zip(self._writers(), lengths, strict=False):
            writer.truncate(length)


def _append_binary(data: BytesWriter, ends: BytesWriter, nulls: BytesWriter, value: bytes | None, index: i32) -> None:
    if value is None:
        write_i32_le(nulls, index)
    else:
        data.write(value)
    write_i32_le(ends, len(data))


def _validity(nulls: bytes, rows: i32) -> bytes | None:
    """An Arrow validity bitmap for ``rows`` rows with the rows listed in ``nulls`` (int32s)
    cleared; None when none is."""
    if not nulls:
        return None
    bitmap = BytesWriter()
    bitmap.write(b"\xff" * ((i64(rows) + 7) // 8))
    k: i64 = 0
    while k < len(nulls):
        row: i64 = i64(read_i32_le(nulls, k))
        byte = row >> 3
        bitmap[byte] = u8(i64(bitmap[byte]) & (0xFF ^ (1 << (row & 7))))
        k += 4
    return bitmap.getvalue()
