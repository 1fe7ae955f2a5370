"""Record batch v2 (magic 2): decoding one batch from a buffer.

Layout (61-byte header, big-endian)::

    baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 | magic int8 |
    crc uint32 | attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 |
    maxTimestamp int64 | producerId int64 | producerEpoch int16 | baseSequence int32 |
    recordCount int32 | records (compressed as one stream when the codec is not none)

``batchLength`` counts the bytes after itself; CRC-32C covers ``attributes`` to the end.
Attributes: bits 0-2 codec, bit 3 log-append time, bit 4 transactional, bit 5 control,
bit 6 delete horizon (``baseTimestamp`` then holds the delete horizon).

:func:`decode_batch` reads the header and checks the CRC without copying the input; the
records are decoded on first access to :attr:`RecordBatch.records`. Keys and values are
``bytes``: from a ``bytes`` input (or a memoryview of a whole ``bytes`` object) they are sliced
straight out of it; from a partial memoryview or a bytearray the record area is first taken as
one ``bytes`` (one memcpy, cheaper than converting every field).
"""
from __future__ import annotations

import struct

from crc32c import crc32c

from kwire.records.compression import (
    DEFAULT_MAX_DECOMPRESSED_SIZE,
    Codec,
    codec_name,
    codec_of,
    decompress,
)
from kwire.records.record import Record, TimestampType
from kwire.records.record_codec import read_records
from kwire.wire.errors import CorruptRecordError, DecodeError

HEADER = struct.Struct(">qiibIhiqqqhii")
_LENGTH = struct.Struct(">i")
HEADER_SIZE = HEADER.size  # 61
LOG_OVERHEAD = 12  # baseOffset + batchLength, the part not counted by batchLength
MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD
MAGIC_OFFSET = 16
CRC_START = 21  # first byte covered by the CRC: attributes
MAGIC = 2

TIMESTAMP_TYPE_FLAG = 0x08
TRANSACTIONAL_FLAG = 0x10
CONTROL_FLAG = 0x20
DELETE_HORIZON_FLAG = 0x40

_MIN_RECORD_SIZE = 7  # length varint + the six one-byte fields


class RecordBatch:
    """A decoded magic 2 batch: header fields, derived flags, and lazily decoded records."""

    __slots__ = (
        "base_offset",
        "batch_length",
        "partition_leader_epoch",
        "magic",
        "crc",
        "attributes",
        "last_offset_delta",
        "base_timestamp",
        "max_timestamp",
        "producer_id",
        "producer_epoch",
        "base_sequence",
        "record_count",
        "position",
        "_buf",
        "_max_decompressed_size",
        "_records",
        "_crc_valid",
    )

    def __init__(self, buf, position: int, fields: tuple, max_decompressed_size: int) -> None:
        (
            self.base_offset,
            self.batch_length,
            self.partition_leader_epoch,
            self.magic,
            self.crc,
            self.attributes,
            self.last_offset_delta,
            self.base_timestamp,
            self.max_timestamp,
            self.producer_id,
            self.producer_epoch,
            self.base_sequence,
            self.record_count,
        ) = fields
        self.position = position
        self._buf = buf
        self._max_decompressed_size = max_decompressed_size
        self._records: list[Record] | None = None
        self._crc_valid: bool | None = None

    # ---------------------------------------------------------------- derived from the header

    @property
    def compression(self) -> Codec:
        return codec_of(self.attributes, offset=self.position)

    @property
    def timestamp_type(self) -> TimestampType:
        if self.attributes & TIMESTAMP_TYPE_FLAG:
            return TimestampType.LOG_APPEND_TIME
        return TimestampType.CREATE_TIME

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_FLAG)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_FLAG)

    @property
    def has_delete_horizon(self) -> bool:
        return bool(self.attributes & DELETE_HORIZON_FLAG)

    @property
    def delete_horizon_ms(self) -> int | None:
        return self.base_timestamp if self.attributes & DELETE_HORIZON_FLAG else None

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @property
    def size_in_bytes(self) -> int:
        return LOG_OVERHEAD + self.batch_length

    @property
    def raw(self) -> memoryview:
        """The batch's bytes as they were read (a view, not a copy)."""
        start = self.position
        return memoryview(self._buf)[start:start + LOG_OVERHEAD + self.batch_length]

    def computed_crc(self) -> int:
        start = self.position
        return crc32c(memoryview(self._buf)[start + CRC_START:start + LOG_OVERHEAD + self.batch_length])

    @property
    def crc_valid(self) -> bool:
        """Whether the stored CRC-32C matches (computed once, on demand)."""
        if self._crc_valid is None:
            self._crc_valid = self.computed_crc() == self.crc
        return self._crc_valid

    # ------------------------------------------------------------------------------- records

    @property
    def records(self) -> list[Record]:
        records = self._records
        if records is None:
            records = self._records = self._decode_records()
        return records

    def __iter__(self):
        return iter(self.records)

    def __len__(self) -> int:
        return self.record_count

    def _decode_records(self) -> list[Record]:
        if self.record_count == 0:
            return []  # like Kafka, never look at the record area of an empty batch
        data, start, end, report_base, codec = self._records_area()
        try:
            records = read_records(
                data, start, end, self.record_count, self.base_offset, self.base_timestamp, report_base
            )
        except DecodeError as err:
            raise self._located(err, codec) from None
        if self.attributes & TIMESTAMP_TYPE_FLAG:
            # Log-append time: every record takes the broker's time, kept in maxTimestamp.
            append_time = self.max_timestamp
            for record in records:
                record.timestamp = append_time
        return records

    def add_columns_to(self, builder) -> None:
        """Append this batch's records to a :class:`kwire.records.columns.ColumnBuilder` (one
        row per record, no Python object per record); errors as :attr:`records` raises them."""
        if self.record_count == 0:
            return
        data, start, end, report_base, codec = self._records_area()
        try:
            builder.add_records(
                data, start, end, self.record_count, self.base_offset, self.base_timestamp,
                self.max_timestamp, bool(self.attributes & TIMESTAMP_TYPE_FLAG), report_base,
            )
        except DecodeError as err:
            raise self._located(err, codec) from None

    def _records_area(self) -> tuple[bytes, int, int, int, Codec]:
        """``(data, start, end, report_base, codec)``: the records are ``data[start:end]``, a
        position p in it is byte ``report_base + p`` of this batch's buffer (uncompressed), or
        of the decompressed records (any other codec)."""
        count = self.record_count
        buf = self._buf
        start = self.position + HEADER_SIZE
        end = self.position + LOG_OVERHEAD + self.batch_length
        codec = codec_of(self.attributes, offset=self.position)
        if codec == Codec.NONE:
            if count > (end - start) // _MIN_RECORD_SIZE:
                raise self._count_error(end - start)
            whole = _whole_bytes(buf)
            if whole is not None:
                return whole, start, end, 0, codec
            return bytes(memoryview(buf)[start:end]), 0, end - start, start, codec
        data = decompress(codec, memoryview(buf)[start:end], self._max_decompressed_size, offset=start)
        if count > len(data) // _MIN_RECORD_SIZE:
            raise self._count_error(len(data))
        return data, 0, len(data), 0, codec

    def _located(self, err: DecodeError, codec: Codec) -> DecodeError:
        """``err`` from decoding the records area: as it is for uncompressed records, else
        pointing at this batch and saying where in the decompressed records it happened."""
        if codec == Codec.NONE:
            return err
        return type(err)(
            f"{err.reason} (at byte {err.offset} of the {codec.name.lower()}-decompressed "
            f"records of the batch at base offset {self.base_offset})",
            offset=self.position,
        )

    def _count_error(self, available: int) -> CorruptRecordError:
        return CorruptRecordError(
            f"batch at base offset {self.base_offset} claims {self.record_count} records "
            f"but has only {available} bytes of records",
            offset=self.position,
        )

    def __repr__(self) -> str:
        return (
            f"RecordBatch(base_offset={self.base_offset}, records={self.record_count}, "
            f"compression={codec_name(self.attributes)}, timestamp_type={self.timestamp_type.name}, "
            f"control={self.is_control}, transactional={self.is_transactional}, "
            f"bytes={self.size_in_bytes})"
        )


def _whole_bytes(buf) -> bytes | None:
    """``buf`` itself if it is bytes, the bytes under a memoryview spanning all of them, else None."""
    if type(buf) is bytes:
        return buf
    if type(buf) is memoryview and type(buf.obj) is bytes and buf.nbytes == len(buf.obj):
        return buf.obj
    return None


def check_region(buf, pos: int, end: int | None) -> int:
    """Validate ``0 <= pos <= end <= len(buf)`` and return ``end`` (default ``len(buf)``)."""
    size = len(buf)
    limit = size if end is None else end
    if not 0 <= pos <= limit <= size:
        raise DecodeError(f"region {pos}..{limit} is outside the {size}-byte buffer", offset=pos)
    return limit


def decode_batch(
    buf,
    pos: int = 0,
    end: int | None = None,
    *,
    verify_crc: bool = True,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
) -> RecordBatch:
    """Decode the magic 2 batch starting at ``buf[pos]`` (bytes, bytearray or memoryview).

    ``end`` (default: the end of ``buf``) bounds what the batch may occupy. Raises DecodeError
    when the batch does not fit or is not magic 2, and CorruptRecordError (naming the base
    offset) when the CRC is wrong and ``verify_crc`` is on.
    """
    left = check_region(buf, pos, end) - pos
    if left < MAGIC_OFFSET + 1:
        raise DecodeError(f"record batch header is truncated ({left} bytes left)", offset=pos)
    magic = buf[pos + MAGIC_OFFSET]
    if magic != MAGIC:
        raise DecodeError(f"expected a magic 2 record batch, found magic {magic}", offset=pos)
    (batch_length,) = _LENGTH.unpack_from(buf, pos + 8)
    if batch_length < MIN_BATCH_LENGTH:
        raise CorruptRecordError(
            f"batch length {batch_length} is below the minimum of {MIN_BATCH_LENGTH}", offset=pos
        )
    if batch_length > left - LOG_OVERHEAD:
        raise DecodeError(
            f"record batch is truncated: its length says {LOG_OVERHEAD + batch_length} bytes, "
            f"{left} are left",
            offset=pos,
        )
    fields = HEADER.unpack_from(buf, pos)
    if fields[12] < 0:
        raise CorruptRecordError(f"negative record count {fields[12]}", offset=pos)
    batch = RecordBatch(buf, pos, fields, max_decompressed_size)
    if verify_crc and not batch.crc_valid:
        raise CorruptRecordError(
            f"CRC-32C mismatch in the record batch at base offset {batch.base_offset}: "
            f"stored 0x{batch.crc:08x}, computed 0x{batch.computed_crc():08x}",
            offset=pos,
        )
    return batch
