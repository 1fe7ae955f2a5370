"""What ``kwire dump`` reports: the contents of Kafka data files as a stream of plain dicts.

:func:`dump_paths` walks files and directories and yields one event per thing worth a line:

==================  ==========================================================================
``event``           meaning
==================  ==========================================================================
``file``            a file starts; ``kind`` says what it is, ``decoder`` how records are read
``batch``           a batch header (offsets, epoch, producer, codec, size, position, CRC)
``record``          one record, decoded as far as kwire can
``index-entry``     an ``.index`` / ``.timeindex`` / ``.txnindex`` entry
``producer-state``  an entry of a producer-state ``.snapshot``
``quorum-state``    the ``quorum-state`` file
``error``           something corrupt or unreadable: file, where (batch offset, file position)
``end``             a file is done: counts of batches, records (or entries) and errors
``skip``            a path given explicitly that is not a file kwire knows
==================  ==========================================================================

A ``checkpoint-entry`` event is an entry of a text state file (``leader-epoch-checkpoint``, the
offset checkpoints, ``partition.metadata``: :mod:`kwire.logs.checkpoints`); its errors carry the
``line``. Segment files Kafka renamed ``.deleted``, ``.cleaned`` or ``.swap`` are read as what they
were, their ``file`` event saying ``renamed``.

Records are decoded by the file's place: ``__cluster_metadata-N`` segments and snapshots with the
metadata decoder (``__remote_log_metadata-N`` with its tiered-storage variant), ``__consumer_offsets-N``,
``__transaction_state-N`` and ``__share_group_state-N`` with the coordinator decoders, any other topic
as text or hex. One bad record or batch gives an ``error`` event and the dump goes on; broken
framing ends that file only. Values are JSON-ready (ints, strings, lists, dicts), so the same events
print as text or as JSON lines.
"""
from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kwire.logs import damage
from kwire.logs.checkpoints import (
    OFFSET_CHECKPOINTS,
    read_leader_epoch_checkpoint,
    read_offset_checkpoint,
    read_partition_metadata,
)
from kwire.logs.coordinator_log import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    TRANSACTIONS_TOPIC,
    CoordinatorRecord,
    decode_coordinator_record,
)
from kwire.logs.entries import ControlRecord, decode_control
from kwire.logs.files import BATCH_KINDS, TRANSIENT_SUFFIXES, kafka_files, kind_by_name, transient_state
from kwire.logs.logdir import (
    parse_numbered_file_name,
    parse_partition_dir_name,
    read_offset_index,
    read_producer_snapshot,
    read_time_index,
    read_transaction_index,
)
from kwire.logs.metadata_log import (
    METADATA_TOPIC,
    REMOTE_LOG_METADATA_TOPIC,
    MetadataRecord,
    decode_metadata_value,
    parse_quorum_state,
    parse_snapshot_file_name,
)
from kwire.records import ControlRecordType, EndTransactionMarker, FileBatchReader, decode_control_key
from kwire.wire.errors import DecodeError, KwireError, UnsupportedVersionError

BATCH_FILE_KINDS = BATCH_KINDS  # segments, snapshots, bootstrap.checkpoint and files of batches
DECODERS = ("auto", "metadata", "offsets", "transactions", "share-state", "remote-log-metadata", "raw")
_COORDINATOR_TOPICS = {"offsets": OFFSETS_TOPIC, "transactions": TRANSACTIONS_TOPIC, "share-state": SHARE_STATE_TOPIC}
_TOPIC_DECODERS = {METADATA_TOPIC: "metadata", REMOTE_LOG_METADATA_TOPIC: "remote-log-metadata",
                   **{topic: name for name, topic in _COORDINATOR_TOPICS.items()}}


def decoder_for(path: Path, requested: str = "auto") -> str:
    """The record decoder of a segment: the requested one, else by its partition directory."""
    if requested != "auto":
        return requested
    parsed = parse_partition_dir_name(path.parent.name)
    return _TOPIC_DECODERS.get(parsed[0], "raw") if parsed else "raw"


def dump_paths(paths: list[str | os.PathLike], *, decoder: str = "auto", strict: bool = False,
               max_bytes: int | None = None, index_check: str | None = None) -> Iterator[dict]:
    """Events for every Kafka file under ``paths``, chosen by the rule of :mod:`kwire.logs.files`
    (directories walked in name order; a file given by name read as what its content says).

    As kafka-dump-log's options: ``max_bytes`` reads only the first bytes of each segment or snapshot
    (``--max-bytes``: a batch cut there is not an error); ``index_check`` ``"sanity"``
    (``--index-sanity-check``) or ``"verify"`` (``--verify-index-only``) checks offset and time
    indexes instead of listing their entries (:mod:`kwire.logs.index_check`)."""
    for given in paths:
        path = Path(given)
        found = list(kafka_files(path, transient=True))
        named = path.is_file()
        if path.is_file() and not found:
            yield {"event": "skip", "file": str(path),
                   "reason": "neither its name nor its content says it is a log segment, snapshot, index, "
                             "producer-state or quorum-state file"}
        for child, kind in found:
            yield from dump_file(child, kind=kind, decoder=decoder, strict=strict, max_bytes=max_bytes,
                                 index_check=index_check, given=named)


def dump_file(path: Path, *, kind: str | None = None, decoder: str = "auto", strict: bool = False,
              max_bytes: int | None = None, index_check: str | None = None, given: bool = False) -> Iterator[dict]:
    """Events for one file; ``kind`` as :func:`kwire.logs.files.kind_of` gives it (default: by its
    name, else read as record batches). An empty file is damage when ``given`` by name, and an
    empty snapshot always (an empty active segment in a directory is not)."""
    renamed = transient_state(path.name)
    kind = kind or (renamed[0] if renamed else None) or kind_by_name(path.name) or "batches"
    start: dict[str, Any] = {"event": "file", "file": str(path), "kind": kind}
    if renamed:  # a segment file Kafka renamed while deleting, cleaning or swapping it: not part of the log
        start["renamed"] = renamed[1].lstrip(".")
        start["renamedWhy"] = TRANSIENT_SUFFIXES[renamed[1]]
    counts = {"batches": 0, "records": 0, "errors": 0}
    is_snapshot = kind in ("snapshot", "bootstrap")
    if kind in BATCH_FILE_KINDS:
        start["decoder"] = "metadata" if is_snapshot else decoder_for(path, decoder)
        numbered = _numbered(path)
        if kind == "segment" and numbered:
            start["baseOffset"] = numbered[0]
        snapshot_id = parse_snapshot_file_name(path.name)
        if snapshot_id:
            start["snapshotEndOffset"], start["snapshotEpoch"] = snapshot_id.end_offset, snapshot_id.epoch
        body = _batches(path, start["decoder"], strict, is_snapshot, counts, max_bytes, given)
    elif index_check is not None and kind in ("offset-index", "time-index"):
        start["check"] = index_check
        body = _index_check(path, kind, index_check)
    else:
        body = _FLAT_READERS[kind](path, counts)
    yield start
    for event in body:
        if event["event"] == "error":
            counts["errors"] += 1
        yield {"event": event.pop("event"), "file": str(path), **event}
    yield {"event": "end", "file": str(path), "kind": kind, **counts}


# ------------------------------------------------------------------------------ batches and records


def _batches(path: Path, decoder: str, strict: bool, is_snapshot: bool, counts: dict,
             max_bytes: int | None = None, given: bool = False) -> Iterator[dict]:
    """The batch and record events of a file of batches; its damage is judged and worded by
    :mod:`kwire.logs.damage`, as every other command judges it (an ``error`` event with ``damage``)."""
    if (given or is_snapshot) and path.stat().st_size == 0:
        yield _damage_event(damage.empty_file(path))
        return
    source: Any = path
    if max_bytes is not None:  # FileRecords.slice(0, maxBytes): the batches that end within it
        with open(path, "rb") as file:
            source = io.BytesIO(file.read(max_bytes))
    reader = FileBatchReader(source, verify_crc=False)
    first_control = last_control = None  # control types of the first and last record (snapshot check)
    seen_record = False
    try:
        for batch in reader:
            counts["batches"] += 1
            where = {"batchOffset": batch.base_offset, "position": reader.position}
            yield _batch_event(batch, reader.position)
            crc_failed = not batch.crc_valid
            if crc_failed:
                yield {**_damage_event(damage.judge_entry(*damage.entry_at(path, reader.position), file=path)),
                       "batchOffset": batch.base_offset}
            try:
                records = batch.records
            except KwireError as err:
                reason = damage.undecodable_reason(batch.base_offset, _reason(err))
                yield {"event": "error", **where, "reason": reason,
                       **({} if crc_failed else {"damage": damage.UNDECODABLE})}
                continue
            for record in records:
                counts["records"] += 1
                event = _record_event(record, batch.is_control, decoder, strict)
                if event["event"] == "error":
                    event.update(where)
                last_control = event.get("control")
                if not seen_record:
                    first_control, seen_record = last_control, True
                yield event
    except OSError as err:
        yield {"event": "error", "position": reader.position, "reason": f"cannot read: {err}", "unreadable": True}
        return
    except DecodeError as err:  # the framing: the rest of the file cannot be read
        yield _damage_event(damage.judge_entry(*damage.entry_at(path, reader.position), file=path, err=err))
        return
    except KwireError as err:
        yield {"event": "error", "position": reader.position,
               "reason": f"log framing is broken, the rest of the file cannot be read: {_reason(err)}"}
        return
    if reader.truncated_at is not None and max_bytes is None:  # with --max-bytes the cut is asked for
        found = damage.judge_entry(*damage.entry_at(path, reader.truncated_at), file=path)
        yield {**_damage_event(found), "undecodedBytes": reader.truncated_bytes}
    if is_snapshot and max_bytes is None:
        yield from _check_snapshot(first_control, last_control)


def _damage_event(found: damage.DamagedFileError) -> dict:
    return {"event": "error", "position": found.offset, "reason": found.detail, "damage": found.damage}


def _check_snapshot(first_control: str | None, last_control: str | None) -> Iterator[dict]:
    if first_control != ControlRecordType.SNAPSHOT_HEADER.name:
        yield {"event": "error", "position": 0, "reason": "the snapshot does not start with a SnapshotHeader"}
    if last_control != ControlRecordType.SNAPSHOT_FOOTER.name:
        yield {"event": "error", "reason": "the snapshot does not end with a SnapshotFooter"}


def _batch_event(batch: Any, position: int) -> dict:
    return {
        "event": "batch",
        "baseOffset": batch.base_offset,
        "lastOffset": batch.last_offset,
        "count": batch.record_count,
        "partitionLeaderEpoch": batch.partition_leader_epoch,
        "producerId": batch.producer_id,
        "producerEpoch": batch.producer_epoch,
        "baseSequence": batch.base_sequence,
        "isTransactional": batch.is_transactional,
        "isControl": batch.is_control,
        "magic": batch.magic,
        "compression": _codec_name(batch),
        "timestampType": batch.timestamp_type.name,
        "maxTimestamp": getattr(batch, "max_timestamp", getattr(batch, "timestamp", -1)),
        "position": position,
        "sizeInBytes": batch.size_in_bytes,
        "crc": batch.crc,
        "crcValid": batch.crc_valid,
    }


def _codec_name(batch: Any) -> str:
    try:
        return batch.compression.name.lower()
    except KwireError:
        return f"unknown({batch.attributes & 0x07})"


def _record_event(record: Any, is_control: bool, decoder: str, strict: bool) -> dict:
    event: dict[str, Any] = {"event": "record", "offset": record.offset, "timestamp": record.timestamp}
    try:
        if is_control:
            event.update(_control_fields(decode_control(record, strict=strict)))
        elif decoder in ("metadata", "remote-log-metadata"):
            decoded = decode_metadata_value(record.value, strict=strict, remote_log=decoder != "metadata")
            event.update(_metadata_fields(decoded))
        elif decoder in _COORDINATOR_TOPICS:
            decoded = decode_coordinator_record(_COORDINATOR_TOPICS[decoder], record.key, record.value, strict=strict)
            event.update(_coordinator_fields(decoded))
        else:
            event.update(_raw_fields(record))
    except KwireError as err:
        unknown = isinstance(err, UnsupportedVersionError) or _reason(err).startswith("unknown ")
        return {"event": "error", "recordOffset": record.offset, "reason": _reason(err),
                "damage": damage.UNKNOWN_RECORD if unknown else damage.UNDECODABLE,
                "keyHex": _hex(record.key), "valueHex": _hex(record.value)}
    return event


def _control_fields(decoded: Any) -> dict:
    if not isinstance(decoded, ControlRecord):
        return {"control": f"CONTROL_TYPE_{int(decode_control_key(decoded.key).type)}",
                "unknown": decoded.reason, "keyHex": _hex(decoded.key), "valueHex": _hex(decoded.value)}
    fields: dict[str, Any] = {"control": decoded.name}
    if isinstance(decoded.message, EndTransactionMarker):
        fields["coordinatorEpoch"] = decoded.message.coordinator_epoch
    else:
        fields.update(type=decoded.message.NAME, version=decoded.message.version,
                      data=decoded.message.to_dict(0))
    return fields


def _metadata_fields(decoded: Any) -> dict:
    if isinstance(decoded, MetadataRecord):
        return {"type": decoded.name, "apiKey": decoded.api_key, "version": decoded.version, "data": decoded.to_dict()}
    return {"type": "UNKNOWN", "apiKey": decoded.api_key, "version": decoded.version,
            "unknown": decoded.reason, "bodyHex": decoded.body.hex()}


def _coordinator_fields(decoded: Any) -> dict:
    if not isinstance(decoded, CoordinatorRecord):
        return {"recordType": decoded.record_type, "unknown": decoded.reason,
                "keyHex": _hex(decoded.key), "valueHex": _hex(decoded.value)}
    fields: dict[str, Any] = {"recordType": decoded.record_type, "keyType": decoded.key.NAME,
                              "key": decoded.key.to_dict(0)}
    if decoded.value is None:
        fields["tombstone"] = True
    else:
        fields.update(valueType=decoded.value.NAME, valueVersion=decoded.value_version,
                      value=decoded.value.to_dict(decoded.value_version))
    return fields


def _raw_fields(record: Any) -> dict:
    fields: dict[str, Any] = {}
    for name, data in (("key", record.key), ("value", record.value)):
        fields.update(_text_or_hex(name, data))
    if record.headers:
        fields["headers"] = [{"key": key, **_text_or_hex("value", value)} for key, value in record.headers]
    return fields


def _text_or_hex(name: str, data: bytes | None) -> dict:
    """``{name: text}`` for printable UTF-8, else ``{name + "Hex": hex}``; null stays null."""
    if data is None:
        return {name: None}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {f"{name}Hex": data.hex()}
    if all(ch.isprintable() or ch in "\t\n\r" for ch in text):
        return {name: text}
    return {f"{name}Hex": data.hex()}


def _hex(data: bytes | None) -> str | None:
    return None if data is None else bytes(data).hex()


def _reason(err: KwireError) -> str:
    if isinstance(err, DecodeError):
        where = f" (field {err.path})" if err.path else ""
        return f"{err.reason}{where}"
    return str(err)


# ------------------------------------------------------------------- indexes and small state files


def _index_check(path: Path, kind: str, check: str) -> Iterator[dict]:
    """kafka-dump-log's --index-sanity-check / --verify-index-only for one index: its line, or its findings."""
    from kwire.logs.index_check import index_is_empty, sanity_check, verify_offset_index, verify_time_index

    try:
        if check == "sanity":
            if kind == "offset-index" and index_is_empty(path):
                yield {"event": "index-check", "passed": True, "message": f"{path} is empty."}
                return
            finding = sanity_check(path, kind)
            if finding is None:
                yield {"event": "index-check", "passed": True, "message": f"{path} passed sanity check."}
            else:
                yield {"event": "error", "position": finding.position, "reason": finding.reason, "finding": True}
            return
        findings = verify_offset_index(path) if kind == "offset-index" else verify_time_index(path)
    except (OSError, KwireError) as err:
        yield {"event": "error", "reason": f"cannot read: {err}", "unreadable": True}
        return
    for finding in findings:  # a check's finding, not damage that stops the reading (exit 1, not 2)
        yield {"event": "error", "position": finding.position, "reason": finding.reason, "finding": True}
    if not findings:
        yield {"event": "index-check", "passed": True, "message": f"{path}: every entry matches the log"}


def _numbered(path: Path) -> tuple[int, str] | None:
    """``(base offset, suffix)`` of a numbered file's name, a ``.deleted``/``.cleaned``/``.swap`` one's too."""
    name = path.name
    if transient_state(name):
        name = os.path.splitext(name)[0]
    return parse_numbered_file_name(name)


def _guarded(read):
    """Wrap a whole-file reader: a KwireError or OSError becomes one error event."""

    def events(path: Path, counts: dict) -> Iterator[dict]:
        try:
            produced = list(read(path))
        except KwireError as err:
            event = {"event": "error", "position": getattr(err, "offset", None), "reason": _reason(err)}
            if getattr(err, "line", None) is not None:  # text state files: the line too
                event["line"] = err.line
            yield event
            return
        except OSError as err:
            yield {"event": "error", "reason": f"cannot read: {err}", "unreadable": True}
            return
        counts["records"] = len(produced)
        yield from produced

    return events


def _base_offset(path: Path) -> int | None:
    numbered = _numbered(path)
    return numbered[0] if numbered else None


def _offset_index(path: Path) -> list[dict]:
    return [{"event": "index-entry", "offset": e.offset, "position": e.position}
            for e in read_offset_index(path, _base_offset(path))]


def _time_index(path: Path) -> list[dict]:
    return [{"event": "index-entry", "timestamp": e.timestamp, "offset": e.offset}
            for e in read_time_index(path, _base_offset(path))]


def _txn_index(path: Path) -> list[dict]:
    return [
        {"event": "index-entry", "version": e.version, "producerId": e.producer_id, "firstOffset": e.first_offset,
         "lastOffset": e.last_offset, "lastStableOffset": e.last_stable_offset}
        for e in read_transaction_index(path)
    ]


def _producer_snapshot(path: Path) -> list[dict]:
    return [
        {"event": "producer-state", "producerId": e.producer_id, "producerEpoch": e.producer_epoch,
         "coordinatorEpoch": e.coordinator_epoch, "currentTxnFirstOffset": e.current_txn_first_offset,
         "firstSequence": e.first_sequence, "lastSequence": e.last_sequence, "lastOffset": e.last_offset,
         "offsetDelta": e.offset_delta, "timestamp": e.timestamp}
        for e in read_producer_snapshot(path)
    ]


def _quorum_state(path: Path) -> list[dict]:
    state = parse_quorum_state(path.read_bytes())
    data = state.data.to_dict(state.data_version)
    return [{"event": "quorum-state", "dataVersion": state.data_version, "data": data}]


def _leader_epochs(path: Path) -> list[dict]:
    return [{"event": "checkpoint-entry", "epoch": e.epoch, "startOffset": e.start_offset}
            for e in read_leader_epoch_checkpoint(path)]


def _offset_checkpoint(path: Path) -> list[dict]:
    what = OFFSET_CHECKPOINTS.get(path.name)
    return [{"event": "checkpoint-entry", "topic": e.topic, "partition": e.partition, "offset": e.offset,
             **({"meaning": what} if what else {})}
            for e in read_offset_checkpoint(path)]


def _partition_metadata(path: Path) -> list[dict]:
    from kwire.wire.jsonform import uuid_to_text

    metadata = read_partition_metadata(path)
    return [{"event": "checkpoint-entry", "version": metadata.version, "topicId": uuid_to_text(metadata.topic_id)}]


_FLAT_READERS = {
    "offset-index": _guarded(_offset_index),
    "time-index": _guarded(_time_index),
    "txn-index": _guarded(_txn_index),
    "producer-snapshot": _guarded(_producer_snapshot),
    "quorum-state": _guarded(_quorum_state),
    "leader-epoch-checkpoint": _guarded(_leader_epochs),
    "offset-checkpoint": _guarded(_offset_checkpoint),
    "partition-metadata": _guarded(_partition_metadata),
}
