"""Coordinator logs: ``__consumer_offsets``, ``__transaction_state`` and ``__share_group_state`` records.

Kafka's coordinators (``CoordinatorRecordSerde``) write each record as

* key   = int16 record type | key body (read at version 0),
* value = int16 value version | value body, or null: a tombstone that deletes the key.

The record type picks the generated classes: the coordinator-key and coordinator-value classes
whose ``API_KEY`` is that type; each topic has its own numbering (Kafka generates one
``CoordinatorRecordType`` per coordinator). On ``__consumer_offsets`` 0 is an offset commit in
the oldest layout (LegacyOffsetCommitKey/Value), 1 an offset commit, 2 a classic group's
metadata, 3-8 and 16 consumer-protocol groups (KIP-848), 9-15 share groups (KIP-932) and 17-23
streams groups (KIP-1071); on ``__transaction_state`` 0 is a transactional id's state; on
``__share_group_state`` (the share coordinator's log) 0 is a share-partition snapshot and 1 an
update on top of it. An unknown type, or a value version the
class does not have, gives a :class:`RawCoordinatorRecord` keeping the bytes (a DecodeError with
``strict=True``); a body that does not decode is always an error.

Batches of these topics may also be transaction control batches (commit/abort markers of
transactional offset commits); they decode to :class:`~kwire.logs.entries.ControlRecord`.
"""
from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from kwire.logs.entries import LogBatch, SegmentWriter
from kwire.records import BatchReader, FileBatchReader, Record
from kwire.wire.errors import DecodeError, EncodeError, KwireError
from kwire.wire.index import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    TRANSACTIONS_TOPIC,
    ProtocolIndex,
    load,
)

_INT16 = struct.Struct(">h")

COORDINATOR_TOPICS = (OFFSETS_TOPIC, TRANSACTIONS_TOPIC, SHARE_STATE_TOPIC)


@dataclass(frozen=True)
class CoordinatorLogType:
    """The record types of one coordinator topic: type -> key class and value class."""

    topic: str
    keys: dict[int, Any]  # record type -> generated coordinator-key class
    values: dict[int, Any]

    def __hash__(self) -> int:
        return hash(self.topic)


def coordinator_log_type(topic: str, index: ProtocolIndex | None = None) -> CoordinatorLogType:
    """The record types of one coordinator topic (one of :data:`COORDINATOR_TOPICS`), from the
    index of a generated package (kwire's own when None)."""
    return _coordinator_log_type(topic, load(index))


@cache
def _coordinator_log_type(topic: str, index: ProtocolIndex) -> CoordinatorLogType:
    if topic not in COORDINATOR_TOPICS:
        raise KwireError(f"{topic} is not a coordinator topic (known: {', '.join(COORDINATOR_TOPICS)})")
    types = index.coordinator_records.get(topic, {})
    keys = {record_type: index.message_class(key) for record_type, (key, _) in types.items()}
    values = {record_type: index.message_class(value) for record_type, (_, value) in types.items()}
    return CoordinatorLogType(topic, keys, values)


@dataclass
class CoordinatorRecord:
    """A decoded coordinator record; ``value`` None is a tombstone."""

    record_type: int
    key: Any
    value: Any = None
    value_version: int | None = None

    @property
    def is_tombstone(self) -> bool:
        return self.value is None

    @property
    def name(self) -> str:
        return self.key.NAME

    def encode_key(self) -> bytes:
        return _prefixed(self.record_type, self.key.encode(0), "record type")

    def encode_value(self) -> bytes | None:
        if self.value is None:
            return None
        if self.value_version is None:
            raise EncodeError(f"{self.value.NAME} needs a value_version to be written")
        return _prefixed(self.value_version, self.value.encode(self.value_version), "value version")


@dataclass
class RawCoordinatorRecord:
    """A record of a type or value version kwire has no class for, kept as the original bytes."""

    record_type: int
    key: bytes
    value: bytes | None
    reason: str = field(default="", compare=False)  # why it is raw; not part of the value

    @property
    def is_tombstone(self) -> bool:
        return self.value is None

    @property
    def name(self) -> str:
        return f"UnknownCoordinatorRecord(type={self.record_type})"

    def encode_key(self) -> bytes:
        return self.key

    def encode_value(self) -> bytes | None:
        return self.value


def _prefixed(number: int, body: bytes, what: str) -> bytes:
    try:
        return _INT16.pack(number) + body
    except struct.error:
        raise EncodeError(f"{what} {number!r} is not an int16") from None


def _split_prefix(data: bytes | None, what: str) -> tuple[int, bytes]:
    if data is None:
        raise DecodeError(f"coordinator record has a null {what}")
    data = bytes(data)
    if len(data) < _INT16.size:
        raise DecodeError(f"coordinator record {what} of {len(data)} bytes has no int16 prefix", offset=0)
    return _INT16.unpack_from(data)[0], data


def decode_coordinator_record(
    log_type: CoordinatorLogType | str,
    key: bytes | None,
    value: bytes | None,
    *,
    strict: bool = False,
) -> CoordinatorRecord | RawCoordinatorRecord:
    """Decode one record's key and value (value None = tombstone)."""
    if isinstance(log_type, str):
        log_type = coordinator_log_type(log_type)
    record_type, key_bytes = _split_prefix(key, "key")
    key_cls = log_type.keys.get(record_type)
    value_cls = log_type.values.get(record_type)
    if key_cls is None:
        return _raw(record_type, key_bytes, value, f"unknown {log_type.topic} record type {record_type}", strict)
    key_message = _decode_body(key_cls, key_bytes, 0, "key")
    if value is None:
        return CoordinatorRecord(record_type, key_message)
    value_version, value_bytes = _split_prefix(value, "value")
    if value_cls is None:
        return _raw(record_type, key_bytes, value_bytes, f"no value type for record type {record_type}", strict)
    low, high = value_cls.VALID_VERSIONS
    if not low <= value_version <= high:
        reason = f"{value_cls.NAME} has no version {value_version} (valid: {low}..{high})"
        return _raw(record_type, key_bytes, value_bytes, reason, strict)
    return CoordinatorRecord(record_type, key_message, _decode_body(value_cls, value_bytes, value_version, "value"),
                             value_version)


def _raw(record_type: int, key: bytes, value: bytes | None, reason: str, strict: bool) -> RawCoordinatorRecord:
    if strict:
        raise DecodeError(reason)
    return RawCoordinatorRecord(record_type, key, None if value is None else bytes(value), reason)


def _decode_body(cls: Any, data: bytes, version: int, what: str) -> Any:
    try:
        message, end = cls.read(data, _INT16.size, version)
    except DecodeError as err:
        raise err.with_context(path=f"{what}.{cls.NAME}") from None
    if end != len(data):
        raise DecodeError(f"{len(data) - end} bytes left after {cls.NAME} v{version} in the {what}", offset=end)
    return message


def decode_coordinator_batch(batch: Any, log_type: CoordinatorLogType | str, *, strict: bool = False) -> LogBatch:
    """Decode every record of one batch of a coordinator topic."""
    if isinstance(log_type, str):
        log_type = coordinator_log_type(log_type)

    def decode(record: Record) -> CoordinatorRecord | RawCoordinatorRecord:
        return decode_coordinator_record(log_type, record.key, record.value, strict=strict)

    return LogBatch.decode(batch, decode, strict=strict)


def read_coordinator_log(
    source: Any, log_type: CoordinatorLogType | str, *, strict: bool = False, allow_truncated: bool = False
) -> Iterator[LogBatch]:
    """Every batch of a segment (path, file object or bytes) of a coordinator topic, decoded."""
    reader = BatchReader(source) if isinstance(source, (bytes, bytearray, memoryview)) else FileBatchReader(source)
    for batch in reader:
        yield decode_coordinator_batch(batch, log_type, strict=strict)
    if reader.truncated_at is not None and not allow_truncated:
        raise DecodeError("the last batch is incomplete", offset=reader.truncated_at)


class CoordinatorLogWriter(SegmentWriter):
    """Append batches of coordinator records (and transaction markers) at consecutive offsets."""

    def append(self, records: Iterable[Any], *, timestamp: int, leader_epoch: int = 0, **fields: Any) -> LogBatch:
        """One batch of ``records``; ``fields`` are LogBatch header fields (producer id, ...)."""
        return self.append_batch(list(records), timestamp=timestamp, leader_epoch=leader_epoch, **fields)
