"""Control records: the records of batches whose attributes have the control bit (5) set.

Key: ``version int16 (0) | type int16``. Types and values:

====  =================  ==================================================================
type  name               value
====  =================  ==================================================================
0     ABORT              end-transaction marker: ``version int16 (0) | coordinatorEpoch int32``
1     COMMIT             same as ABORT
2     LEADER_CHANGE      LeaderChangeMessage body at version 0
3     SNAPSHOT_HEADER    SnapshotHeaderRecord body at version 0
4     SNAPSHOT_FOOTER    SnapshotFooterRecord body at version 0
5     KRAFT_VERSION      KRaftVersionRecord body at version 0
6     KRAFT_VOTERS       VotersRecord body at version 0
====  =================  ==================================================================

The KRaft bodies (types 2-6) begin with their own int16 ``Version`` field and are decoded by the
generated message classes, which the caller passes in (``messages=kwire.generated.MESSAGES``): the
generated package sits above this one (its ``records`` fields use :mod:`kwire.records.reader`), so
this module does not import it. Like Kafka, a key or marker version above
0 is read as version 0 (later versions only append fields); negative versions are corrupt.
"""
from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum

from kwire.records.batch import RecordBatch
from kwire.records.builder import RecordBatchBuilder
from kwire.records.record import Record
from kwire.wire.errors import CorruptRecordError, DecodeError, EncodeError, KwireError
from kwire.wire.index import KRAFT_CONTROL_MESSAGES  # the generated message class of each KRaft control value

_KEY = struct.Struct(">hh")
_MARKER = struct.Struct(">hi")


class ControlRecordType(IntEnum):
    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6



@dataclass(frozen=True)
class ControlKey:
    """A control record key. ``type`` stays a plain int when Kafka has no name for it."""

    version: int
    type: ControlRecordType | int


@dataclass(frozen=True)
class EndTransactionMarker:
    """The value of an ABORT or COMMIT control record."""

    committed: bool
    coordinator_epoch: int
    version: int = 0


def decode_control_key(key: bytes | None) -> ControlKey:
    if key is None or len(key) < _KEY.size:
        raise CorruptRecordError(
            f"control record key needs {_KEY.size} bytes, has {0 if key is None else len(key)}"
        )
    version, type_id = _KEY.unpack_from(key)
    if version < 0:
        raise CorruptRecordError(f"control record key has negative version {version}")
    try:
        type_id = ControlRecordType(type_id)
    except ValueError:
        pass  # a type from a newer Kafka: keep the number
    return ControlKey(version, type_id)


def encode_control_key(record_type: ControlRecordType | int, version: int = 0) -> bytes:
    try:
        return _KEY.pack(version, record_type)
    except struct.error as exc:
        raise EncodeError(f"control record key out of range: {exc}", path="key") from None


def decode_end_transaction_marker(record_type: ControlRecordType | int, value: bytes | None) -> EndTransactionMarker:
    if record_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        raise DecodeError(f"control record type {record_type} is not an end-transaction marker")
    if value is None or len(value) < _MARKER.size:
        raise CorruptRecordError(
            f"end-transaction marker value needs {_MARKER.size} bytes, "
            f"has {0 if value is None else len(value)}"
        )
    version, coordinator_epoch = _MARKER.unpack_from(value)
    if version < 0:
        raise CorruptRecordError(f"end-transaction marker has negative version {version}")
    return EndTransactionMarker(record_type == ControlRecordType.COMMIT, coordinator_epoch, version)


def encode_end_transaction_marker(coordinator_epoch: int, version: int = 0) -> bytes:
    try:
        return _MARKER.pack(version, coordinator_epoch)
    except struct.error as exc:
        raise EncodeError(f"end-transaction marker out of range: {exc}", path="value") from None


def decode_control_value(record_type: ControlRecordType | int, value: bytes | None,
                         messages: Mapping[str, type] | None = None):
    """Decode a control record value by its type.

    ABORT/COMMIT give an :class:`EndTransactionMarker`; types 2-6 give an instance of the class
    that ``messages`` (name -> generated class, e.g. ``kwire.generated.MESSAGES``) holds under the
    name in :data:`KRAFT_CONTROL_MESSAGES` (the value is that message's body at version 0).
    Unknown types raise DecodeError.
    """
    if record_type in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        return decode_end_transaction_marker(record_type, value)
    name = KRAFT_CONTROL_MESSAGES.get(record_type)
    if name is None:
        raise DecodeError(f"unknown control record type {record_type}")
    if value is None:
        raise CorruptRecordError(f"{name} control record has a null value")
    if messages is None or name not in messages:
        raise KwireError(f"decoding a {name} control record needs its generated class: "
                         f"pass messages=kwire.generated.MESSAGES")
    return messages[name].decode(value, 0)


def decode_control_record(record: Record, messages: Mapping[str, type] | None = None) -> tuple[ControlKey, object]:
    """The key and decoded value of one record of a control batch (``messages``: as for
    :func:`decode_control_value`, needed for the KRaft types)."""
    key = decode_control_key(record.key)
    return key, decode_control_value(key.type, record.value, messages)


def control_records(batch: RecordBatch, messages: Mapping[str, type] | None = None) -> list[tuple[ControlKey, object]]:
    """Every record of a control batch, decoded (``messages``: as for :func:`decode_control_value`)."""
    if not batch.is_control:
        raise DecodeError(
            f"batch at base offset {batch.base_offset} is not a control batch", offset=batch.position
        )
    return [decode_control_record(record, messages) for record in batch.records]


def build_end_transaction_batch(
    *,
    committed: bool,
    producer_id: int,
    producer_epoch: int,
    coordinator_epoch: int,
    timestamp: int,
    base_offset: int = 0,
    partition_leader_epoch: int = -1,
) -> bytes:
    """A transactional control batch holding one COMMIT or ABORT marker, as a broker writes it."""
    builder = RecordBatchBuilder(
        base_offset=base_offset,
        partition_leader_epoch=partition_leader_epoch,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        is_transactional=True,
        is_control=True,
    )
    record_type = ControlRecordType.COMMIT if committed else ControlRecordType.ABORT
    builder.append(
        timestamp, encode_control_key(record_type), encode_end_transaction_marker(coordinator_epoch)
    )
    return builder.build()
