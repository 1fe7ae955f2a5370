"""Writing magic 2 record batches.

:class:`RecordBatchBuilder` collects records and writes one batch the way Kafka's
``MemoryRecordsBuilder`` does: ``baseTimestamp`` is the first record's timestamp (or the delete
horizon when one is set), ``maxTimestamp`` the largest timestamp (or the log-append time),
offset deltas count up from 0 unless given, the record area is compressed as one stream, and
the CRC-32C covers ``attributes`` to the end. An empty batch has both timestamps -1 and, as
Kafka's ``writeEmptyHeader`` does, no codec.
"""
from __future__ import annotations

import struct
from collections.abc import Iterable

from crc32c import crc32c

from kwire.records.batch import (
    CONTROL_FLAG,
    DELETE_HORIZON_FLAG,
    MAGIC,
    MIN_BATCH_LENGTH,
    TIMESTAMP_TYPE_FLAG,
    TRANSACTIONAL_FLAG,
)
from kwire.records.compression import Codec, compress
from kwire.records.record import NO_TIMESTAMP, Record
from kwire.records.record_codec import encode_record
from kwire.wire.errors import EncodeError
from kwire.wire.primitives import INT32_MAX, INT64_MAX, INT64_MIN

_PREFIX = struct.Struct(">qiibI")  # baseOffset .. crc
_CRC_COVERED = struct.Struct(">hiqqqhii")  # attributes .. recordCount


class RecordBatchBuilder:
    """Accumulate records, then :meth:`build` one batch.

    ``log_append_time`` marks the batch as log-append time and stores that time as
    ``maxTimestamp``; ``delete_horizon_ms`` sets attribute bit 6 and becomes ``baseTimestamp``.
    """

    def __init__(
        self,
        *,
        base_offset: int = 0,
        codec: Codec | int = Codec.NONE,
        compression_level: int | None = None,
        partition_leader_epoch: int = -1,
        producer_id: int = -1,
        producer_epoch: int = -1,
        base_sequence: int = -1,
        is_transactional: bool = False,
        is_control: bool = False,
        log_append_time: int | None = None,
        delete_horizon_ms: int | None = None,
    ) -> None:
        try:
            self.codec = Codec(codec)
        except ValueError:
            raise EncodeError(f"unknown compression codec {codec!r}", path="codec") from None
        self.compression_level = compression_level
        self.base_offset = base_offset
        self.partition_leader_epoch = partition_leader_epoch
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.base_sequence = base_sequence
        self.is_transactional = is_transactional
        self.is_control = is_control
        self.log_append_time = log_append_time
        self.delete_horizon_ms = delete_horizon_ms
        self._encoded: list[bytes] = []
        self._base_timestamp: int | None = delete_horizon_ms
        self._max_timestamp = NO_TIMESTAMP
        self._last_offset_delta = -1

    def __len__(self) -> int:
        return len(self._encoded)

    def append(
        self,
        timestamp: int,
        key: bytes | None,
        value: bytes | None,
        headers: Iterable[tuple[str, bytes | None]] = (),
        *,
        offset_delta: int | None = None,
        attributes: int = 0,
    ) -> int:
        """Add one record; return its offset delta (the previous one + 1 unless given)."""
        if not isinstance(timestamp, int) or not INT64_MIN <= timestamp <= INT64_MAX:
            raise EncodeError(f"timestamp {timestamp!r} is not an int64", path="timestamp")
        if offset_delta is None:
            offset_delta = self._last_offset_delta + 1
        elif not isinstance(offset_delta, int) or offset_delta <= self._last_offset_delta:
            raise EncodeError(
                f"offset delta {offset_delta!r} must be an int above the previous one "
                f"({self._last_offset_delta})",
                path="offset_delta",
            )
        if self._base_timestamp is None:
            self._base_timestamp = timestamp
        self._encoded.append(
            encode_record(
                offset_delta, timestamp - self._base_timestamp, key, value, list(headers), attributes
            )
        )
        self._last_offset_delta = offset_delta
        if timestamp > self._max_timestamp:
            self._max_timestamp = timestamp
        return offset_delta

    def attributes(self) -> int:
        # Kafka writes empty batches (left by compaction) uncompressed, whatever the codec was.
        attributes = int(self.codec) if self._encoded else 0
        if self.log_append_time is not None:
            attributes |= TIMESTAMP_TYPE_FLAG
        if self.is_transactional:
            attributes |= TRANSACTIONAL_FLAG
        if self.is_control:
            attributes |= CONTROL_FLAG
        if self.delete_horizon_ms is not None:
            attributes |= DELETE_HORIZON_FLAG
        return attributes

    def build(self) -> bytes:
        """The batch in wire form, CRC included."""
        count = len(self._encoded)
        payload = b"".join(self._encoded)
        if self.codec != Codec.NONE and count:
            payload = compress(self.codec, payload, self.compression_level)
        base_timestamp = NO_TIMESTAMP if self._base_timestamp is None else self._base_timestamp
        max_timestamp = self._max_timestamp
        if self.log_append_time is not None:
            max_timestamp = self.log_append_time
        batch_length = MIN_BATCH_LENGTH + len(payload)
        if batch_length > INT32_MAX:
            raise EncodeError(f"batch of {batch_length} bytes exceeds an int32 length", path="records")
        try:
            covered = _CRC_COVERED.pack(
                self.attributes(),
                max(self._last_offset_delta, 0),
                base_timestamp,
                max_timestamp,
                self.producer_id,
                self.producer_epoch,
                self.base_sequence,
                count,
            ) + payload
            prefix = _PREFIX.pack(
                self.base_offset, batch_length, self.partition_leader_epoch, MAGIC, crc32c(covered)
            )
        except struct.error as exc:
            raise EncodeError(f"a batch header field is out of range: {exc}") from None
        return prefix + covered


def encode_batch(records: Iterable[Record], **options) -> bytes:
    """Write ``records`` (their timestamp, key, value, headers, offset delta, attributes) as one
    batch; ``options`` are :class:`RecordBatchBuilder`'s keyword arguments."""
    builder = RecordBatchBuilder(**options)
    for record in records:
        builder.append(
            record.timestamp,
            record.key,
            record.value,
            record.headers,
            offset_delta=record.offset_delta,
            attributes=record.attributes,
        )
    return builder.build()

