"""Legacy message sets (magic 0 and 1), for reading.

Each entry of a legacy message set is ``offset int64 | size int32 | message``, the message being::

    crc uint32 (CRC-32 of magic..end) | magic int8 | attributes int8 |
    [timestamp int64, magic 1 only] | key int32-length bytes | value int32-length bytes

A compressed message (attributes bits 0-2: gzip, snappy or lz4) is a *wrapper*: its value is a
compressed inner message set. Following Kafka's ``AbstractLegacyRecordBatch``:

- inner messages must not be compressed themselves, and a wrapper holds at least one;
- magic 1 wrappers store *relative* inner offsets: the wrapper's offset is the last inner
  message's absolute offset, so ``absolute = wrapper offset - last inner offset + inner offset``
  (a wrapper offset of 0, as some librdkafka versions produce, means the offsets are as stored);
- with log-append time (attributes bit 3 of a magic 1 wrapper) every inner message takes the
  wrapper's timestamp;
- magic 0 has no timestamps (-1) and its LZ4 header checksum is not checked (old Kafka wrote it
  wrongly).

A top-level message is presented as a :class:`LegacyBatch` with the same attribute names as
:class:`~kwire.records.batch.RecordBatch` where they mean something for legacy data.
"""
from __future__ import annotations

import struct
import zlib

from kwire.records.batch import check_region
from kwire.records.compression import (
    CODEC_MASK,
    DEFAULT_MAX_DECOMPRESSED_SIZE,
    Codec,
    codec_name,
    codec_of,
    decompress,
)
from kwire.records.record import NO_TIMESTAMP, Record, TimestampType
from kwire.wire.errors import CorruptRecordError, DecodeError

_ENTRY_V0 = struct.Struct(">qiIbb")  # offset, size, crc, magic, attributes
_TIMESTAMP = struct.Struct(">q")
_LENGTH = struct.Struct(">i")
LOG_OVERHEAD = 12
MAGIC_OFFSET = 16
MESSAGE_OVERHEAD_V0 = 14  # crc, magic, attributes, key length, value length
MESSAGE_OVERHEAD_V1 = 22  # ... plus the timestamp
TIMESTAMP_TYPE_FLAG = 0x08


class _Message:
    """One parsed legacy message; key and value are (start, length) in its buffer."""

    __slots__ = ("offset", "size", "crc", "magic", "attributes", "timestamp", "key", "value", "position", "end")

    offset: int
    size: int
    crc: int
    magic: int
    attributes: int
    timestamp: int
    key: tuple[int, int] | None
    value: tuple[int, int] | None
    position: int  # where the entry starts in its buffer
    end: int  # where it ends


def _parse_message(buf, pos: int, limit: int, report_base: int) -> _Message:
    """Parse the entry at ``buf[pos]``; it must fit before ``limit`` (the caller checked 12 bytes)."""
    offset, size = struct.unpack_from(">qi", buf, pos)
    where = report_base + pos
    if size < MESSAGE_OVERHEAD_V0:
        raise CorruptRecordError(
            f"legacy message size {size} is below the minimum of {MESSAGE_OVERHEAD_V0}", offset=where
        )
    end = pos + LOG_OVERHEAD + size
    if end > limit:
        raise DecodeError(
            f"legacy message is truncated: its size says {size} bytes, {limit - pos - LOG_OVERHEAD} are left",
            offset=where,
        )
    _, _, crc, magic, attributes = _ENTRY_V0.unpack_from(buf, pos)
    cursor = pos + 18
    if magic == 0:
        timestamp = NO_TIMESTAMP
    elif magic == 1:
        if size < MESSAGE_OVERHEAD_V1:
            raise CorruptRecordError(
                f"magic 1 message size {size} is below the minimum of {MESSAGE_OVERHEAD_V1}",
                offset=where,
            )
        (timestamp,) = _TIMESTAMP.unpack_from(buf, cursor)
        cursor += 8
    else:
        raise CorruptRecordError(f"expected a legacy message (magic 0 or 1), found magic {magic}", offset=where)
    message = _Message()
    message.offset, message.size, message.crc, message.magic = offset, size, crc, magic
    message.attributes, message.timestamp, message.position, message.end = attributes, timestamp, pos, end
    message.key, cursor = _read_sized(buf, cursor, end, "key", report_base)
    message.value, cursor = _read_sized(buf, cursor, end, "value", report_base)
    if cursor != end:
        raise CorruptRecordError(
            f"legacy message has {end - cursor} bytes after its value", offset=report_base + cursor
        )
    return message


def _read_sized(buf, pos: int, end: int, what: str, report_base: int) -> tuple[tuple[int, int] | None, int]:
    if end - pos < 4:
        raise CorruptRecordError(f"legacy message {what} length is truncated", offset=report_base + pos)
    (length,) = _LENGTH.unpack_from(buf, pos)
    pos += 4
    if length == -1:
        return None, pos
    if length < 0 or length > end - pos:
        raise CorruptRecordError(
            f"legacy message {what} length {length} does not fit the {end - pos} bytes left",
            offset=report_base + pos - 4,
        )
    return (pos, length), pos + length


def _crc_ok(buf, message: _Message) -> bool:
    start = message.position + MAGIC_OFFSET
    return zlib.crc32(memoryview(buf)[start:message.end]) == message.crc


def _slice(buf, span: tuple[int, int] | None) -> bytes | None:
    if span is None:
        return None
    start, length = span
    return bytes(buf[start:start + length])


class LegacyBatch:
    """One top-level magic 0/1 message: a single record, or a compressed wrapper of several."""

    __slots__ = (
        "offset",
        "message_size",
        "crc",
        "magic",
        "attributes",
        "timestamp",
        "position",
        "_buf",
        "_message",
        "_max_decompressed_size",
        "_verify_crc",
        "_records",
    )

    # Fields of magic 2 batches that legacy data does not have.
    partition_leader_epoch = -1
    producer_id = -1
    producer_epoch = -1
    base_sequence = -1
    is_transactional = False
    is_control = False
    has_delete_horizon = False
    delete_horizon_ms = None

    def __init__(self, buf, message: _Message, verify_crc: bool, max_decompressed_size: int) -> None:
        self.offset = message.offset
        self.message_size = message.size
        self.crc = message.crc
        self.magic = message.magic
        self.attributes = message.attributes
        self.timestamp = message.timestamp
        self.position = message.position
        self._buf = buf
        self._message = message
        self._verify_crc = verify_crc
        self._max_decompressed_size = max_decompressed_size
        self._records: list[Record] | None = None

    @property
    def compression(self) -> Codec:
        return codec_of(self.attributes, offset=self.position, legacy=True)

    @property
    def timestamp_type(self) -> TimestampType:
        if self.magic == 0:
            return TimestampType.NO_TIMESTAMP_TYPE
        if self.attributes & TIMESTAMP_TYPE_FLAG:
            return TimestampType.LOG_APPEND_TIME
        return TimestampType.CREATE_TIME

    @property
    def base_offset(self) -> int:
        return self.records[0].offset

    @property
    def last_offset(self) -> int:
        return self.offset  # a wrapper carries its last inner message's offset

    @property
    def next_offset(self) -> int:
        return self.offset + 1

    @property
    def record_count(self) -> int:
        return len(self.records)

    @property
    def size_in_bytes(self) -> int:
        return LOG_OVERHEAD + self.message_size

    @property
    def raw(self) -> memoryview:
        return memoryview(self._buf)[self.position:self.position + LOG_OVERHEAD + self.message_size]

    @property
    def crc_valid(self) -> bool:
        return _crc_ok(self._buf, self._message)

    @property
    def records(self) -> list[Record]:
        if self._records is None:
            if self.attributes & CODEC_MASK == Codec.NONE:
                self._records = [self._plain_record()]
            else:
                self._records = self._inner_records()
        return self._records

    def __iter__(self):
        return iter(self.records)

    def __len__(self) -> int:
        return self.record_count

    def _plain_record(self) -> Record:
        message, buf = self._message, self._buf
        return Record(
            message.offset,
            message.timestamp,
            _slice(buf, message.key),
            _slice(buf, message.value),
            [],
            0,
            0,
            message.attributes,
        )

    def _inner_records(self) -> list[Record]:
        wrapper = self._message
        codec = codec_of(wrapper.attributes, offset=self.position, legacy=True)
        if wrapper.value is None:
            raise CorruptRecordError("compressed legacy message has a null value", offset=self.position)
        start, length = wrapper.value
        data = decompress(
            codec,
            memoryview(self._buf)[start:start + length],
            self._max_decompressed_size,
            offset=start,
            lenient_lz4_header=wrapper.magic == 0,
        )
        try:
            inner = self._parse_inner(data)
        except DecodeError as err:
            raise type(err)(
                f"{err.reason} (at byte {err.offset} of the decompressed message set of the "
                f"wrapper at offset {wrapper.offset})",
                offset=self.position,
            ) from None
        if wrapper.magic == 1 and wrapper.offset != 0:
            last_inner = inner[-1].offset
            if wrapper.offset < last_inner:
                raise CorruptRecordError(
                    f"wrapper offset {wrapper.offset} is below its last inner offset {last_inner}",
                    offset=self.position,
                )
            shift = wrapper.offset - last_inner
        else:
            shift = 0
        append_time = wrapper.magic == 1 and wrapper.attributes & TIMESTAMP_TYPE_FLAG
        first = inner[0].offset + shift
        records = []
        for message in inner:
            offset = message.offset + shift
            if message.magic == 0:
                timestamp = NO_TIMESTAMP
            else:
                timestamp = wrapper.timestamp if append_time else message.timestamp
            records.append(
                Record(
                    offset,
                    timestamp,
                    _slice(data, message.key),
                    _slice(data, message.value),
                    [],
                    offset - first,
                    0,
                    message.attributes,
                )
            )
        return records

    def _parse_inner(self, data: bytes) -> list[_Message]:
        messages = []
        pos, limit = 0, len(data)
        while pos < limit:
            if limit - pos < LOG_OVERHEAD:
                raise CorruptRecordError("inner message set ends with a truncated entry", offset=pos)
            message = _parse_message(data, pos, limit, 0)
            if message.attributes & CODEC_MASK:
                raise CorruptRecordError("inner messages must not be compressed", offset=pos)
            if self._verify_crc and not _crc_ok(data, message):
                raise CorruptRecordError(
                    f"CRC-32 mismatch in the inner message at offset {message.offset}", offset=pos
                )
            messages.append(message)
            pos = message.end
        if not messages:
            raise CorruptRecordError("compressed legacy message holds no inner messages", offset=0)
        return messages

    def __repr__(self) -> str:
        return (
            f"LegacyBatch(offset={self.offset}, magic={self.magic}, "
            f"compression={codec_name(self.attributes)}, bytes={self.size_in_bytes})"
        )


def decode_legacy_message(
    buf,
    pos: int = 0,
    end: int | None = None,
    *,
    verify_crc: bool = True,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
) -> LegacyBatch:
    """Decode the magic 0/1 message set entry at ``buf[pos]`` (bounded by ``end``).

    A wrong CRC-32 raises CorruptRecordError naming the message's offset (inner messages of a
    wrapper are checked when its records are read).
    """
    limit = check_region(buf, pos, end)
    if limit - pos < LOG_OVERHEAD:
        raise DecodeError(f"legacy message header is truncated ({limit - pos} bytes left)", offset=pos)
    message = _parse_message(buf, pos, limit, 0)
    if verify_crc and not _crc_ok(buf, message):
        stored = message.crc
        computed = zlib.crc32(memoryview(buf)[pos + MAGIC_OFFSET:message.end])
        raise CorruptRecordError(
            f"CRC-32 mismatch in the legacy message at offset {message.offset}: "
            f"stored 0x{stored:08x}, computed 0x{computed:08x}",
            offset=pos,
        )
    return LegacyBatch(buf, message, verify_crc, max_decompressed_size)
