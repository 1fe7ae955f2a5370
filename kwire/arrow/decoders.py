"""Decoding the value of a record into messages, by the kind of file it came from.

- control records (any file): transaction markers and the KRaft control messages
  (:mod:`kwire.records.control`);
- KRaft metadata logs and snapshots: the framed metadata records (:mod:`kwire.logs.metadata_log`,
  imported when first needed); ``__remote_log_metadata``: tiered storage's records, framed alike;
- ``__consumer_offsets`` / ``__transaction_state`` / ``__share_group_state``: key and value
  (:mod:`kwire.logs.coordinator_log`);
- ordinary partitions hold user data and are not decoded.

Each decoded record is a :class:`DecodedRecord`: a type name, a version, the message, and for
coordinator records the key message too. Records of a type or version kwire has no class for
keep their bytes in the JSON form (``"unknown"`` says why) instead of failing the read.
"""
from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kwire.arrow.logfiles import GROUP_TOPIC, SHARE_TOPIC, TRANSACTION_TOPIC, Kind
from kwire.records.control import (
    KRAFT_CONTROL_MESSAGES,
    ControlRecordType,
    EndTransactionMarker,
    decode_control_key,
    decode_control_value,
)
from kwire.records.record import Record
from kwire.wire.index import load
from kwire.wire.message import GeneratedStruct

#: Type name of ABORT/COMMIT markers (Kafka's EndTxnMarker message).
END_TXN_MARKER = "EndTxnMarker"


@dataclass(frozen=True)
class DecodedRecord:
    """What a record holds. ``value`` is a generated message (None for a coordinator
    tombstone), an EndTransactionMarker, or a dict describing bytes kwire could not interpret;
    ``key`` is the key message of a coordinator record."""

    type_name: str
    version: int | None
    value: Any
    key: GeneratedStruct | None = None

    def to_json(self) -> str:
        """Kafka's JSON form (``to_dict``) of the value; coordinator records as {key, value}."""
        return json.dumps(self._json_value(), separators=(",", ":"), ensure_ascii=False)

    def _json_value(self) -> Any:
        value = self.value
        if isinstance(value, GeneratedStruct) and self.version is not None:
            value = value.to_dict(self.version)
        elif isinstance(value, EndTransactionMarker):
            value = {"committed": value.committed, "coordinatorEpoch": value.coordinator_epoch}
        if self.key is not None:
            return {"key": self.key.to_dict(0), "value": value}
        return value


RecordDecoder = Callable[[Record], DecodedRecord]

#: Kinds of file whose data records kwire decodes (the rest hold user data).
DECODED_KINDS = frozenset({
    Kind.METADATA_LOG, Kind.METADATA_SNAPSHOT, Kind.GROUP_COORDINATOR_LOG, Kind.TRANSACTION_COORDINATOR_LOG,
    Kind.SHARE_COORDINATOR_LOG, Kind.REMOTE_LOG_METADATA_LOG,
})


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(bytes(data)).decode("ascii")


def decode_control(record: Record) -> DecodedRecord:
    key = decode_control_key(record.key)
    if key.type in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        marker = decode_control_value(key.type, record.value)
        return DecodedRecord(END_TXN_MARKER, marker.version, marker)
    name = KRAFT_CONTROL_MESSAGES.get(key.type)
    if name is None:  # a control type from a newer Kafka
        unknown = {"controlType": int(key.type), "value": _b64(record.value), "unknown": "unknown control record type"}
        return DecodedRecord(f"CONTROL_TYPE_{int(key.type)}", None, unknown)
    return DecodedRecord(name, 0, decode_control_value(key.type, record.value, load().messages))


def metadata_decoder(*, remote_log: bool = False) -> RecordDecoder:
    from kwire.logs.metadata_log import MetadataRecord, decode_metadata_value

    def decode(record: Record) -> DecodedRecord:
        decoded = decode_metadata_value(record.value, remote_log=remote_log)
        if isinstance(decoded, MetadataRecord):
            return DecodedRecord(decoded.name, decoded.version, decoded.message)
        unknown = {"apiKey": decoded.api_key, "body": _b64(decoded.body), "unknown": decoded.reason}
        return DecodedRecord(decoded.name, decoded.version, unknown)

    return decode


def coordinator_decoder(topic: str) -> RecordDecoder:
    from kwire.logs.coordinator_log import CoordinatorRecord, coordinator_log_type, decode_coordinator_record

    log_type = coordinator_log_type(topic)

    def decode(record: Record) -> DecodedRecord:
        decoded = decode_coordinator_record(log_type, record.key, record.value)
        if isinstance(decoded, CoordinatorRecord):
            # named by the value's class, also for a tombstone (which has no value)
            value_cls = log_type.values.get(decoded.record_type)
            name = value_cls.NAME if value_cls is not None else decoded.key.NAME
            return DecodedRecord(name, decoded.value_version, decoded.value, decoded.key)
        unknown = {"recordType": decoded.record_type, "key": _b64(decoded.key), "value": _b64(decoded.value),
                   "unknown": decoded.reason}
        return DecodedRecord(decoded.name, None, unknown)

    return decode


def data_record_decoder(kind: Kind) -> RecordDecoder | None:
    """The decoder of ``kind``'s data records, or None for user data."""
    if kind in (Kind.METADATA_LOG, Kind.METADATA_SNAPSHOT):
        return metadata_decoder()
    if kind == Kind.REMOTE_LOG_METADATA_LOG:
        return metadata_decoder(remote_log=True)
    if kind == Kind.GROUP_COORDINATOR_LOG:
        return coordinator_decoder(GROUP_TOPIC)
    if kind == Kind.TRANSACTION_COORDINATOR_LOG:
        return coordinator_decoder(TRANSACTION_TOPIC)
    if kind == Kind.SHARE_COORDINATOR_LOG:
        return coordinator_decoder(SHARE_TOPIC)
    return None


def decodes_data_records(kind: Kind) -> bool:
    return kind in DECODED_KINDS
