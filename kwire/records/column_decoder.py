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
kwire.generator.native_records``, run by ``make test``) into
``kwire.records._column_decoder_mypyc``, where the buffers are mypyc's ``librt.strings``
writers and every integer is a machine integer; run as plain Python it is the fallback, with
:mod:`kwire.records.byte_writer` standing in for ``librt``. The fastest, the C flavour
(``column_decoder_c.c``, emitted from the same layout), subclasses this plain-Python builder and
replaces only :meth:`ColumnBuilder.add_records`. :mod:`kwire.records.columns` picks one.

The record loop (``_add_records``, ``_add_headers``) is emitted, with the object decoder of
:mod:`kwire.records.record_codec`, from the one description of the record layout in
``generator/record_layout.py`` (``python -m kwire.generator.record_decoders``; then rebuild).

Every length is checked against the bytes left in its record before anything is copied, so bad
input raises :class:`~kwire.wire.errors.DecodeError` (or ``CorruptRecordError``) with the byte
offset, and a batch that fails leaves the builder as it was before that batch.
"""
from __future__ import annotations

from typing import Final

from kwire.wire.errors import CorruptRecordError, DecodeError
from kwire.wire.varint import read_zigzag  # pasted in when compiled (kwire.generator.native_inline)

#: True only in the copy that mypyc compiles, where the build also tells mypy to take it as true
#: (``--always-true=COMPILED``): mypyc then sees librt's writers and machine integers, plain
#: Python the stand-ins.
COMPILED = False

if COMPILED:
    from librt.strings import BytesWriter
    from librt.strings import BytesWriter as Int32Writer
    from librt.strings import BytesWriter as Int64Writer
    from librt.strings import read_i32_le, write_i32_le, write_i64_le
    from mypy_extensions import i32, i64, u8
else:
    from kwire.records.byte_writer import (  # type: ignore[assignment]
        BytesWriter, Int32Writer, Int64Writer, read_i32_le, write_i32_le, write_i64_le,
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
_NO_ERROR: Final = -1


class RecordColumns:
    """Finished column buffers of ``rows`` rows (see the module docstring for each buffer).

    A ``*_validity`` is an Arrow validity bitmap (bit set = value present), None when nothing is
    null; ``*_nulls`` counts the nulls.
    """

    def __init__(self, builder: ColumnBuilder) -> None:
        rows = builder.rows
        headers = builder.header_count
        self.rows: i32 = rows
        self.header_count: i32 = headers
        self.offsets: bytes = builder.offsets.getvalue()
        self.timestamps: bytes = builder.timestamps.getvalue()
        self.key_ends: bytes = builder.key_ends.getvalue()
        self.key_data: bytes = builder.key_data.getvalue()
        nulls = builder.key_nulls.getvalue()
        self.key_nulls: i64 = len(nulls) // 4
        self.key_validity: bytes | None = _validity(nulls, rows)
        self.value_ends: bytes = builder.value_ends.getvalue()
        self.value_data: bytes = builder.value_data.getvalue()
        nulls = builder.value_nulls.getvalue()
        self.value_nulls: i64 = len(nulls) // 4
        self.value_validity: bytes | None = _validity(nulls, rows)
        self.header_ends: bytes = builder.header_ends.getvalue()
        self.header_key_ends: bytes = builder.header_key_ends.getvalue()
        self.header_key_data: bytes = builder.header_key_data.getvalue()
        self.header_value_ends: bytes = builder.header_value_ends.getvalue()
        self.header_value_data: bytes = builder.header_value_data.getvalue()
        nulls = builder.header_value_nulls.getvalue()
        self.header_value_nulls: i64 = len(nulls) // 4
        self.header_value_validity: bytes | None = _validity(nulls, headers)
        nulls = builder.null_rows.getvalue()
        self.null_rows: i64 = len(nulls) // 4
        self.row_validity: bytes | None = _validity(nulls, rows)


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

    # ---- generated by `python -m kwire.generator.record_decoders` from generator/record_layout.py: do not edit ----
    def _add_records(self, data: bytes, pos: i64, limit: i64, count: i64, base_offset: i64,
                     base_timestamp: i64, append_time: i64, log_append_time: bool, report_base: i64) -> None:
        offsets, timestamps = self.offsets, self.timestamps
        key_ends, key_data, key_nulls = self.key_ends, self.key_data, self.key_nulls
        value_ends, value_data, value_nulls = self.value_ends, self.value_data, self.value_nulls
        header_ends = self.header_ends
        # INT64_MAX and INT64_MIN are too wide for mypyc's tagged ints: as constants they would be
        # unboxed on every record (~170 instructions), as locals once a batch
        int64_max: i64 = INT64_MAX
        int64_min: i64 = INT64_MIN
        row = self.rows
        n: i64 = 0
        b: i64 = 0
        c: i64 = 0
        rec_start = pos
        try:
            while n < count:
                rec_start = pos
                # -- length
                b = data[pos]
                if b < 0x80:
                    length = (b >> 1) ^ -(b & 1)
                    pos += 1
                else:
                    c = data[pos + 1]
                    if c < 0x80:
                        b = (b & 0x7F) | (c << 7)
                        length = (b >> 1) ^ -(b & 1)
                        pos += 2
                    else:
                        length, pos = read_zigzag(data, pos, limit, False, report_base)
                end = pos + length
                if length < 6 or end > limit:  # 6: the one-byte minimum of every field after it
                    raise DecodeError(f"record length {length} does not fit the {limit - pos} bytes left",
                                      offset=report_base + rec_start)
                # -- attributes
                pos += 1  # not kept
                # -- timestamp delta
                b = data[pos]
                if b < 0x80:
                    timestamp_delta = (b >> 1) ^ -(b & 1)
                    pos += 1
                else:
                    c = data[pos + 1]
                    if c < 0x80:
                        b = (b & 0x7F) | (c << 7)
                        timestamp_delta = (b >> 1) ^ -(b & 1)
                        pos += 2
                    else:
                        timestamp_delta, pos = read_zigzag(data, pos, end, True, report_base)
                # -- offset delta
                b = data[pos]
                if b < 0x80:
                    offset_delta = (b >> 1) ^ -(b & 1)
                    pos += 1
                else:
                    c = data[pos + 1]
                    if c < 0x80:
                        b = (b & 0x7F) | (c << 7)
                        offset_delta = (b >> 1) ^ -(b & 1)
                        pos += 2
                    else:
                        offset_delta, pos = read_zigzag(data, pos, end, False, report_base)
                # -- key
                b = data[pos]
                if b < 0x80:
                    size = (b >> 1) ^ -(b & 1)
                    pos += 1
                else:
                    c = data[pos + 1]
                    if c < 0x80:
                        b = (b & 0x7F) | (c << 7)
                        size = (b >> 1) ^ -(b & 1)
                        pos += 2
                    else:
                        size, pos = read_zigzag(data, pos, end, False, report_base)
                if size >= 0:
                    stop = pos + size
                    if stop > end:
                        raise _overrun("key", size, end - pos, report_base + pos)
                    key_data.write(data[pos:stop])
                    pos = stop
                elif size == -1:
                    write_i32_le(key_nulls, row)
                else:
                    raise _negative("key", size, report_base + pos)
                write_i32_le(key_ends, len(key_data))
                # -- value
                b = data[pos]
                if b < 0x80:
                    size = (b >> 1) ^ -(b & 1)
                    pos += 1
                else:
                    c = data[pos + 1]
                    if c < 0x80:
                        b = (b & 0x7F) | (c << 7)
                        size = (b >> 1) ^ -(b & 1)
                        pos += 2
                    else:
                        size, pos = read_zigzag(data, pos, end, False, report_base)
                if size >= 0:
                    stop = pos + size
                    if stop > end:
                        raise _overrun("value", size, end - pos, report_base + pos)
                    value_data.write(data[pos:stop])
                    pos = stop
                elif size == -1:
                    write_i32_le(value_nulls, row)
                else:
                    raise _negative("value", size, report_base + pos)
                write_i32_le(value_ends, len(value_data))
                # -- headers
                if data[pos] == 0:  # no headers: the usual case
                    pos += 1
                else:
                    count_pos = pos
                    header_count, pos = read_zigzag(data, pos, end, False, report_base)
                    pos = self._add_headers(data, pos, end, header_count, report_base, count_pos)
                write_i32_le(header_ends, self.header_count)
                if pos != end:
                    raise DecodeError(f"record fields take {pos - rec_start} bytes, its length says {end - rec_start}",
                                      offset=report_base + rec_start)
                if base_offset > int64_max - offset_delta if offset_delta > 0 else base_offset < int64_min - offset_delta:
                    raise DecodeError(f"offset {base_offset} + {offset_delta} is out of int64 range",
                                      offset=report_base + rec_start)
                write_i64_le(offsets, base_offset + offset_delta)
                if log_append_time:
                    write_i64_le(timestamps, append_time)
                elif (base_timestamp > int64_max - timestamp_delta if timestamp_delta > 0
                      else base_timestamp < int64_min - timestamp_delta):
                    raise DecodeError(f"timestamp {base_timestamp} + {timestamp_delta} is out of int64 range",
                                      offset=report_base + rec_start)
                else:
                    write_i64_le(timestamps, base_timestamp + timestamp_delta)
                row += 1
                n += 1
        except IndexError:
            raise DecodeError("record is truncated", offset=report_base + rec_start) from None
        if pos != limit:
            raise CorruptRecordError(f"{limit - pos} bytes left over after the batch's {count} records",
                                     offset=report_base + pos)
        self.rows = row

    def _add_headers(self, data: bytes, pos: i64, end: i64, count: i64, report_base: i64, count_pos: i64) -> i64:
        """Append one record's ``count`` headers, which must end at ``end``; return ``end``."""
        # Each header takes at least 2 bytes, which bounds a hostile count before the loop.
        if count < 0 or count * 2 > end - pos:
            raise DecodeError(f"header count {count} does not fit the record", offset=report_base + count_pos)
        key_ends, key_data = self.header_key_ends, self.header_key_data
        value_ends, value_data, value_nulls = self.header_value_ends, self.header_value_data, self.header_value_nulls
        header = self.header_count
        for _ in range(count):
            # -- header key
            size, pos = read_zigzag(data, pos, end, False, report_base)
            if size < 0:
                raise _negative("header key", size, report_base + pos)
            stop = pos + size
            if stop > end:
                raise _overrun("header key", size, end - pos, report_base + pos)
            bad = _utf8_error(data, pos, stop)
            if bad != _NO_ERROR:
                raise DecodeError(f"header key is not UTF-8: invalid byte 0x{data[bad]:02x} at its byte {bad - pos}",
                                  offset=report_base + pos)
            key_data.write(data[pos:stop])
            pos = stop
            write_i32_le(key_ends, len(key_data))
            # -- header value
            size, pos = read_zigzag(data, pos, end, False, report_base)
            if size >= 0:
                stop = pos + size
                if stop > end:
                    raise _overrun("header value", size, end - pos, report_base + pos)
                value_data.write(data[pos:stop])
                pos = stop
            elif size == -1:
                write_i32_le(value_nulls, header)
            else:
                raise _negative("header value", size, report_base + pos)
            write_i32_le(value_ends, len(value_data))
            header += 1
        self.header_count = header
        if pos != end:
            raise DecodeError("record headers do not end where the record does", offset=report_base + pos)
        return pos
    # ---- end of generated record decoder ----

    # ------------------------------------------------------------------ single rows (rare)

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
        for writer, length in zip(self._writers(), lengths):
            writer.truncate(length)


def _append_binary(data: BytesWriter, ends: BytesWriter, nulls: BytesWriter, value: bytes | None, index: i32) -> None:
    if value is None:
        write_i32_le(nulls, index)
    else:
        data.write(value)
    write_i32_le(ends, len(data))


def _utf8_error(data: bytes, pos: i64, stop: i64) -> i64:
    """Where ``data[pos:stop]`` stops being well-formed UTF-8 (Unicode's table 3-7: no overlong
    forms, no surrogates, nothing past U+10FFFF), or -1 when all of it is."""
    while pos < stop:
        b: i64 = data[pos]
        if b < 0x80:
            pos += 1
            continue
        low: i64 = 0x80
        high: i64 = 0xBF
        if 0xC2 <= b <= 0xDF:
            follow: i64 = 1
        elif 0xE0 <= b <= 0xEF:
            follow = 2
            if b == 0xE0:
                low = 0xA0
            elif b == 0xED:
                high = 0x9F
        elif 0xF0 <= b <= 0xF4:
            follow = 3
            if b == 0xF0:
                low = 0x90
            elif b == 0xF4:
                high = 0x8F
        else:
            return pos
        if pos + follow >= stop:
            return pos
        c: i64 = data[pos + 1]
        if c < low or c > high:
            return pos
        k: i64 = 2
        while k <= follow:
            c = data[pos + k]
            if c < 0x80 or c > 0xBF:
                return pos
            k += 1
        pos += follow + 1
    return _NO_ERROR


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


# ---- generated by `python -m kwire.generator.record_decoders` from generator/record_layout.py: do not edit ----
def _overrun(what: str, size: i64, left: i64, offset: i64) -> DecodeError:
    return DecodeError(f"{what} length {size} exceeds the {left} bytes left in the record", offset=offset)


def _negative(what: str, size: i64, offset: i64) -> DecodeError:
    return DecodeError(f"{what} length {size} is negative", offset=offset)
# ---- end of generated record decoder ----
