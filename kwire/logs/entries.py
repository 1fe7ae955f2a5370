"""Decoded records of Kafka's internal logs, shared by the metadata and coordinator logs.

A :class:`LogEntry` is one record of a batch: its absolute offset and timestamp next to what its
key and value decode to. A :class:`LogBatch` is a batch of such entries with the header fields a
writer needs; ``LogBatch.decode`` builds one from a :class:`~kwire.records.RecordBatch` and
``LogBatch.encode`` writes it back, so reading then writing reproduces the original bytes when
nothing was changed.

Every decoded record type (metadata records, coordinator records, control records, and the raw
forms kept for types this kwire does not know) offers ``encode_key()`` and ``encode_value()``,
which is all the batch writer needs. Control batches (transaction markers, KRaft leader changes,
snapshot headers and footers) decode the same way in every log, so they live here.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kwire.logs.logdir import segment_file_name
from kwire.records import (
    Codec,
    ControlRecordType,
    EndTransactionMarker,
    Record,
    RecordBatchBuilder,
    decode_control_key,
    decode_control_value,
    encode_control_key,
    encode_end_transaction_marker,
)
from kwire.records.control import KRAFT_CONTROL_MESSAGES
from kwire.wire.errors import DecodeError, EncodeError
from kwire.wire.files import atomic_write
from kwire.wire.index import load


@dataclass
class ControlRecord:
    """A record of a control batch: a transaction marker or a KRaft control message."""

    type: ControlRecordType | int
    message: Any  # EndTransactionMarker for ABORT/COMMIT, else a generated message instance
    key_version: int = 0

    @property
    def name(self) -> str:
        return self.type.name if isinstance(self.type, ControlRecordType) else f"CONTROL_TYPE_{self.type}"

    @classmethod
    def of(cls, message: Any) -> ControlRecord:
        """The control record carrying ``message`` (a generated KRaft control message or a marker)."""
        if isinstance(message, EndTransactionMarker):
            marker = ControlRecordType.COMMIT if message.committed else ControlRecordType.ABORT
            return cls(marker, message)
        for type_id, name in KRAFT_CONTROL_MESSAGES.items():
            if getattr(message, "NAME", None) == name:
                return cls(ControlRecordType(type_id), message)
        raise EncodeError(f"{type(message).__name__} is not a control record message")

    def encode_key(self) -> bytes:
        return encode_control_key(self.type, self.key_version)

    def encode_value(self) -> bytes:
        if isinstance(self.message, EndTransactionMarker):
            return encode_end_transaction_marker(self.message.coordinator_epoch, self.message.version)
        # KRaft control values are the message body at version 0; the body has its own Version field.
        return self.message.encode(0)


@dataclass
class UnknownRecord:
    """A record kwire could not interpret (e.g. a control type from a newer Kafka), kept as bytes."""

    key: bytes | None
    value: bytes | None
    reason: str = field(default="", compare=False)

    def encode_key(self) -> bytes | None:
        return self.key

    def encode_value(self) -> bytes | None:
        return self.value


@dataclass
class LogEntry:
    """One record of a log: where it is, when it was written, and what it says."""

    offset: int
    timestamp: int
    record: Any  # ControlRecord, UnknownRecord, or the log's own record types


@dataclass
class LogBatch:
    """A batch of decoded entries plus the header fields needed to write it again.

    ``source`` is the :class:`~kwire.records.RecordBatch` it was read from (None when built in
    memory); it is left out of comparisons, so a batch read back equals the one written.
    """

    base_offset: int
    entries: list[LogEntry]
    partition_leader_epoch: int = -1
    producer_id: int = -1
    producer_epoch: int = -1
    base_sequence: int = -1
    is_transactional: bool = False
    is_control: bool = False
    codec: Codec = Codec.NONE
    log_append_time: int | None = None
    source: Any = field(default=None, compare=False, repr=False)

    @property
    def last_offset(self) -> int:
        return self.entries[-1].offset if self.entries else self.base_offset

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @classmethod
    def of_records(
        cls, records: Iterable[Any], *, base_offset: int, timestamp: int, **fields: Any
    ) -> LogBatch:
        """A batch of ``records`` at consecutive offsets, all with ``timestamp`` (as KRaft writes)."""
        entries = [LogEntry(base_offset + i, timestamp, record) for i, record in enumerate(records)]
        return cls(base_offset, entries, **fields)

    @classmethod
    def decode(
        cls,
        batch: Any,
        decode_data: Callable[[Record], Any],
        *,
        strict: bool = False,
    ) -> LogBatch:
        """Decode every record of ``batch``: control records here, the rest with ``decode_data``.

        Errors are re-raised as DecodeError naming the record's offset.
        """
        entries = []
        is_control = bool(batch.is_control)
        for record in batch.records:
            try:
                decoded = decode_control(record, strict=strict) if is_control else decode_data(record)
            except DecodeError as err:
                raise type(err)(f"record at offset {record.offset}: {err.reason}", path=err.path,
                                offset=batch.position) from None
            entries.append(LogEntry(record.offset, record.timestamp, decoded))
        timestamp_type = getattr(batch, "timestamp_type", None)
        log_append_time = None
        if getattr(timestamp_type, "name", "") == "LOG_APPEND_TIME":
            log_append_time = getattr(batch, "max_timestamp", getattr(batch, "timestamp", None))
        return cls(
            base_offset=batch.base_offset,
            entries=entries,
            partition_leader_epoch=batch.partition_leader_epoch,
            producer_id=batch.producer_id,
            producer_epoch=batch.producer_epoch,
            base_sequence=batch.base_sequence,
            is_transactional=batch.is_transactional,
            is_control=is_control,
            codec=batch.compression,
            log_append_time=log_append_time,
            source=batch,
        )

    def encode(self) -> bytes:
        """The batch in wire form (magic 2)."""
        builder = RecordBatchBuilder(
            base_offset=self.base_offset,
            codec=self.codec,
            partition_leader_epoch=self.partition_leader_epoch,
            producer_id=self.producer_id,
            producer_epoch=self.producer_epoch,
            base_sequence=self.base_sequence,
            is_transactional=self.is_transactional,
            is_control=self.is_control,
            log_append_time=self.log_append_time,
        )
        for entry in self.entries:
            builder.append(
                entry.timestamp,
                entry.record.encode_key(),
                entry.record.encode_value(),
                offset_delta=entry.offset - self.base_offset,
            )
        return builder.build()


def decode_control(record: Record, *, strict: bool = False) -> ControlRecord | UnknownRecord:
    """The record of a control batch, decoded; an unknown control type is kept raw unless strict."""
    key = decode_control_key(record.key)
    if key.type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT) and key.type not in KRAFT_CONTROL_MESSAGES:
        if strict:
            raise DecodeError(f"unknown control record type {int(key.type)}")
        return UnknownRecord(record.key, record.value, f"unknown control record type {int(key.type)}")
    return ControlRecord(key.type, decode_control_value(key.type, record.value, load().messages), key.version)


class SegmentWriter:
    """Batches appended at consecutive offsets, as a partition leader writes them, and the
    segment file they make (``<20-digit base offset>.log``)."""

    def __init__(self, base_offset: int = 0, *, codec: Codec = Codec.NONE) -> None:
        self.base_offset = base_offset
        self.next_offset = base_offset
        self.codec = codec
        self.batches: list[LogBatch] = []

    def append_batch(self, records: list[Any], *, timestamp: int, leader_epoch: int, **fields: Any) -> LogBatch:
        """One batch of ``records`` at the next offset; ``fields`` are LogBatch header fields."""
        if not records:
            raise EncodeError("a batch needs at least one record")
        fields.setdefault("codec", self.codec)
        batch = LogBatch.of_records(records, base_offset=self.next_offset, timestamp=timestamp,
                                    partition_leader_epoch=leader_epoch, **fields)
        self.batches.append(batch)
        self.next_offset = batch.next_offset
        return batch

    def encode(self) -> bytes:
        return b"".join(batch.encode() for batch in self.batches)

    def write_segment(self, directory: str | os.PathLike, *, force: bool = False) -> Path:
        """Write ``<20-digit base offset>.log`` into ``directory`` atomically; an existing one only with ``force``."""
        return atomic_write(Path(directory) / segment_file_name(self.base_offset), self.encode(), force=force)
