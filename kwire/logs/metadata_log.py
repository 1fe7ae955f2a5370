"""KRaft metadata: the ``__cluster_metadata`` log, its snapshots, ``bootstrap.checkpoint`` and ``quorum-state``.

Record values of the metadata log are framed as three unsigned varints, frameVersion (1), apiKey
and version, followed by the record body (``AbstractApiMessageSerde`` in Kafka); keys are null.
:func:`decode_metadata_value` turns one value into a :class:`MetadataRecord` holding an instance
of the generated class for that apiKey. A type or version this kwire has no class for becomes a
:class:`RawMetadataRecord` that keeps the body bytes (or a DecodeError with ``strict=True``), so a
log written by a newer Kafka still reads. A broken frame, a body that does not decode, or bytes
left after it are always errors, as in Kafka.

Files, as Kafka writes them:

* a segment ``<20-digit base offset>.log`` holds batches of metadata records and control batches
  (LeaderChange, ...), each batch's leader epoch being the raft epoch that wrote it;
* a snapshot ``<20-digit end offset>-<10-digit epoch>.checkpoint`` (and ``bootstrap.checkpoint``)
  is a control batch with a SnapshotHeaderRecord (plus KRaftVersionRecord and VotersRecord when
  kraft.version is at least 1) at offset 0, record batches at the offsets after it, and a control
  batch with a SnapshotFooterRecord; every batch carries the snapshot's epoch;
* ``quorum-state`` is one line of JSON: QuorumStateData in Kafka's JSON form plus ``data_version``.

Batches read here are :class:`~kwire.logs.entries.LogBatch` objects; encoding one reproduces the
bytes it was read from, and writing uses the same type (:class:`MetadataLogWriter`,
:func:`build_snapshot`), so a snapshot can be read, its records re-versioned (a metadata.version
downgrade) and written again.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kwire.logs.damage import in_file, incomplete_tail
from kwire.logs.entries import ControlRecord, LogBatch, LogEntry, SegmentWriter
from kwire.logs.logdir import parse_segment_file_name
from kwire.records import BatchReader, Codec, ControlRecordType, FileBatchReader, Record
from kwire.wire.errors import DecodeError, EncodeError, KwireError
from kwire.wire.files import atomic_write
from kwire.wire.index import REMOTE_LOG_METADATA_TOPIC, ProtocolIndex, load  # noqa: F401  (the topic: re-exported)
from kwire.wire.primitives import INT16_MAX, read_uvarint, uvarint

FRAME_VERSION = 1
METADATA_TOPIC = "__cluster_metadata"
METADATA_DIRECTORY = f"{METADATA_TOPIC}-0"  # its one partition's directory in a log directory
BOOTSTRAP_FILE_NAME = "bootstrap.checkpoint"
QUORUM_STATE_FILE_NAME = "quorum-state"
DATA_VERSION_KEY = "data_version"
#: Records per batch when writing a snapshot. Kafka splits by bytes (8 MiB per batch); a count
#: is easier to choose in tests and gives the same kind of file.
MAX_RECORDS_PER_BATCH = 10_000
_SNAPSHOT_NAME = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")


#: Tiered storage's topic (KIP-405): its values are framed as metadata records are, but with apiKeys
#: of their own (Kafka's storage module generates its record types separately from the KRaft ones);
#: a package's index holds them apart (``ProtocolIndex.remote_log_metadata_records``).


# --------------------------------------------------------------------------------- record values


@dataclass
class MetadataRecord:
    """A metadata record value: an instance of a generated metadata class and its version."""

    message: Any
    version: int

    @property
    def api_key(self) -> int:
        return self.message.API_KEY

    @property
    def name(self) -> str:
        return self.message.NAME

    def to_dict(self) -> dict[str, Any]:
        return self.message.to_dict(self.version)

    def encode_key(self) -> None:
        return None

    def encode_value(self) -> bytes:
        return encode_metadata_value(self.message, self.version)


@dataclass
class RawMetadataRecord:
    """A metadata record of a type or version kwire has no class for: the body kept as bytes."""

    api_key: int
    version: int
    body: bytes
    reason: str = field(default="", compare=False)  # why it is raw; not part of the value

    @property
    def name(self) -> str:
        return f"UnknownMetadataRecord(apiKey={self.api_key})"

    def encode_key(self) -> None:
        return None

    def encode_value(self) -> bytes:
        return uvarint(FRAME_VERSION) + uvarint(self.api_key) + uvarint(self.version) + self.body


def encode_metadata_value(message: Any, version: int) -> bytes:
    """The framed record value of ``message`` at ``version``."""
    api_key = getattr(message, "API_KEY", None)
    if getattr(message, "MESSAGE_TYPE", None) != "metadata" or api_key is None:
        raise EncodeError(f"{type(message).__name__} is not a KRaft metadata record")
    return uvarint(FRAME_VERSION) + uvarint(api_key) + uvarint(version) + message.encode(version)


def _read_short_varint(value: bytes, pos: int, what: str) -> tuple[int, int]:
    number, pos = read_uvarint(value, pos, len(value))
    if number > INT16_MAX:  # Kafka reads these into a short
        raise DecodeError(f"metadata record {what} {number} is larger than an int16", offset=pos)
    return number, pos


def decode_metadata_value(value: bytes | None, *, strict: bool = False, remote_log: bool = False,
                          index: ProtocolIndex | None = None) -> MetadataRecord | RawMetadataRecord:
    """Decode one framed metadata record value (see the module docstring for what is an error);
    with ``remote_log``, a value of the ``__remote_log_metadata`` topic (the same framing).
    ``index``: of the generated package whose classes decode it (kwire's own when None)."""
    if value is None:
        raise DecodeError("metadata record has a null value")
    value = bytes(value)
    frame_version, pos = _read_short_varint(value, 0, "frame version")
    if frame_version != FRAME_VERSION:
        raise DecodeError(
            f"unknown metadata record frame version {frame_version} (only {FRAME_VERSION} exists)", offset=0
        )
    api_key, pos = _read_short_varint(value, pos, "type")
    version, pos = _read_short_varint(value, pos, "version")
    cls = load(index).metadata_record_class(api_key, remote_log=remote_log)
    if cls is None:
        reason = f"unknown metadata record type {api_key}"
    elif not cls.VALID_VERSIONS[0] <= version <= cls.VALID_VERSIONS[1]:
        low, high = cls.VALID_VERSIONS
        reason = f"{cls.NAME} has no version {version} (valid: {low}..{high})"
    else:
        try:
            message, end = cls.read(value, pos, version)
        except DecodeError as err:
            raise err.with_context(path=cls.NAME) from None
        if end != len(value):  # Kafka: "Found N byte(s) of garbage after <type>"
            raise DecodeError(f"{len(value) - end} bytes left after {cls.NAME} v{version}", offset=end)
        return MetadataRecord(message, version)
    if strict:
        raise DecodeError(reason, offset=0)
    return RawMetadataRecord(api_key, version, value[pos:], reason)


def _data_decoder(strict: bool):
    def decode(record: Record) -> MetadataRecord | RawMetadataRecord:
        return decode_metadata_value(record.value, strict=strict)

    return decode


def decode_metadata_batch(batch: Any, *, strict: bool = False) -> LogBatch:
    """Decode every record of one batch of the metadata log (or of a snapshot)."""
    return LogBatch.decode(batch, _data_decoder(strict), strict=strict)


# ------------------------------------------------------------------------------------ log files


def read_metadata_log(source: Any, *, strict: bool = False, allow_truncated: bool = False) -> Iterator[LogBatch]:
    """Every batch of a segment, snapshot or buffer of the metadata log, decoded.

    ``source`` is a path, a binary file object, or bytes. An incomplete batch at the end (a crash
    mid-write) is a DecodeError unless ``allow_truncated``; bytes whose header cannot start a
    batch (an impossible length, a magic byte Kafka never writes) are a CorruptRecordError.
    """
    reader = BatchReader(source) if isinstance(source, (bytes, bytearray, memoryview)) else FileBatchReader(source)
    for batch in reader:
        yield decode_metadata_batch(batch, strict=strict)
    if reader.truncated_at is not None and not allow_truncated:
        raise incomplete_tail(source, reader.truncated_at)


class MetadataLogWriter(SegmentWriter):
    """Append metadata batches at consecutive offsets, as a KRaft leader does.

    ``append`` takes MetadataRecord / RawMetadataRecord values, ``append_control`` generated
    control messages (LeaderChangeMessage, ...). ``encode`` gives the segment's bytes and
    ``write_segment`` writes them to ``<20-digit base offset>.log``.
    """

    def append(self, records: Iterable[Any], *, timestamp: int, leader_epoch: int) -> LogBatch:
        return self.append_batch(list(records), timestamp=timestamp, leader_epoch=leader_epoch)

    def append_control(self, messages: Iterable[Any], *, timestamp: int, leader_epoch: int) -> LogBatch:
        records = [ControlRecord.of(message) for message in messages]
        return self.append_batch(records, timestamp=timestamp, leader_epoch=leader_epoch, is_control=True,
                                 codec=Codec.NONE)


# ------------------------------------------------------------------------------------- snapshots


@dataclass(frozen=True, order=True)
class SnapshotId:
    """A snapshot holds every record below ``end_offset``; ``epoch`` is the epoch of the last one."""

    end_offset: int
    epoch: int

    def file_name(self) -> str:
        return f"{self.end_offset:020d}-{self.epoch:010d}.checkpoint"


def parse_snapshot_file_name(name: str) -> SnapshotId | None:
    """The id in a ``<offset>-<epoch>.checkpoint`` name, or None for any other name."""
    match = _SNAPSHOT_NAME.match(name)
    return SnapshotId(int(match.group(1)), int(match.group(2))) if match else None


def snapshot_id_of_file(path: Path) -> SnapshotId | None:
    """The snapshot id a file stands for: the one in Kafka's name for it, 0-0 for
    ``bootstrap.checkpoint`` (Kafka's BOOTSTRAP_SNAPSHOT_ID), else None."""
    return parse_snapshot_file_name(path.name) or (SnapshotId(0, 0) if path.name == BOOTSTRAP_FILE_NAME else None)


def refuse_cutting_a_snapshot(path: Path, until: int | None) -> None:
    """Refuse an ``until`` (exclusive) that would cut the snapshot file at ``path``, for every command
    that replays one. A snapshot is one image, the state at its end offset, which only its name says
    (Kafka's ``<end offset>-<epoch>.checkpoint``): an ``until`` below that end asks for a state the
    file does not hold, and a snapshot under another name (its first batch a SnapshotHeader) cannot
    say where it ends. ``bootstrap.checkpoint`` ends at 0 (Kafka's BOOTSTRAP_SNAPSHOT_ID), so no
    ``until`` cuts it; a numbered ``.log`` segment is a log, which ``until`` does cut."""
    if until is None or parse_segment_file_name(path.name) is not None:
        return
    snapshot_id = snapshot_id_of_file(path)
    if snapshot_id is not None:
        if until < snapshot_id.end_offset:
            raise KwireError(f"{path}: a snapshot file holds the image at its end offset {snapshot_id.end_offset} "
                             f"and cannot be cut at --until {until}; give its log directory to replay the log "
                             f"up to an earlier offset")
    elif _starts_with_snapshot_header(path):
        raise KwireError(f"{path}: a snapshot file (its first batch holds a SnapshotHeader) is one image, and only "
                         f"Kafka's name for it (<end offset>-<epoch>.checkpoint) says where it ends: --until {until} "
                         f"cannot cut it; give its log directory, or the file under its Kafka name")


def _starts_with_snapshot_header(path: Path) -> bool:
    """Whether the file's first batch is a control batch that opens with a SnapshotHeader (damage
    is left for the reader that follows to report)."""
    try:
        first = next(iter(read_metadata_log(path)), None)
    except (DecodeError, OSError):
        return False
    return bool(first is not None and first.is_control and first.entries
                and getattr(first.entries[0].record, "type", None) == ControlRecordType.SNAPSHOT_HEADER)


@dataclass
class MetadataSnapshot:
    """A snapshot (or bootstrap file): header control batch, record batches, footer control batch."""

    batches: list[LogBatch]
    snapshot_id: SnapshotId | None = None

    def _control_message(self, kind: ControlRecordType, batch: LogBatch) -> Any:
        for entry in batch.entries:
            if isinstance(entry.record, ControlRecord) and entry.record.type == kind:
                return entry.record.message
        return None

    @property
    def header(self) -> Any:
        return self._control_message(ControlRecordType.SNAPSHOT_HEADER, self.batches[0])

    @property
    def footer(self) -> Any:
        return self._control_message(ControlRecordType.SNAPSHOT_FOOTER, self.batches[-1])

    @property
    def kraft_version(self) -> Any:
        """The KRaftVersionRecord of the header batch, or None (kraft.version 0)."""
        return self._control_message(ControlRecordType.KRAFT_VERSION, self.batches[0])

    @property
    def voters(self) -> Any:
        return self._control_message(ControlRecordType.KRAFT_VOTERS, self.batches[0])

    @property
    def entries(self) -> list[LogEntry]:
        """The metadata records, without the control records around them."""
        return [entry for batch in self.batches if not batch.is_control for entry in batch.entries]

    @property
    def records(self) -> list[Any]:
        """The metadata records themselves (MetadataRecord / RawMetadataRecord)."""
        return [entry.record for entry in self.entries]

    def encode(self) -> bytes:
        return b"".join(batch.encode() for batch in self.batches)

    def write(self, directory: str | os.PathLike, *, force: bool = False) -> Path:
        """Write to ``directory`` under its id's name (``bootstrap.checkpoint`` when it has none),
        atomically; an existing file is replaced only with ``force``."""
        name = self.snapshot_id.file_name() if self.snapshot_id else BOOTSTRAP_FILE_NAME
        return atomic_write(Path(directory) / name, self.encode(), force=force)


def check_snapshot_structure(batches: list[LogBatch]) -> None:
    """Raise DecodeError unless the batches start with a header and end with a footer."""
    if len(batches) < 2:
        raise DecodeError(f"a snapshot needs a header and a footer batch, found {len(batches)} batch(es)")
    first, last = batches[0], batches[-1]
    if not (first.is_control and first.entries and isinstance(first.entries[0].record, ControlRecord)
            and first.entries[0].record.type == ControlRecordType.SNAPSHOT_HEADER):
        raise DecodeError(f"the snapshot does not start with a SnapshotHeader control record "
                          f"(batch at offset {first.base_offset})")
    if not (last.is_control and len(last.entries) == 1 and isinstance(last.entries[0].record, ControlRecord)
            and last.entries[0].record.type == ControlRecordType.SNAPSHOT_FOOTER):
        raise DecodeError(f"the snapshot does not end with a SnapshotFooter control record "
                          f"(batch at offset {last.base_offset})")


def read_snapshot(source: Any, *, strict: bool = False) -> MetadataSnapshot:
    """Read a snapshot or bootstrap file (path, file object or bytes) and check its structure."""
    batches = list(read_metadata_log(source, strict=strict))
    check_snapshot_structure(batches)
    snapshot_id = None
    if isinstance(source, (str, os.PathLike)):
        snapshot_id = parse_snapshot_file_name(Path(source).name)
    return MetadataSnapshot(batches, snapshot_id)


def build_snapshot(
    records: Iterable[Any],
    *,
    timestamp: int,
    snapshot_id: SnapshotId | None = None,
    last_contained_log_timestamp: int = 0,
    kraft_version: int = 0,
    voters: Any = None,
    max_records_per_batch: int = MAX_RECORDS_PER_BATCH,
    codec: Codec = Codec.NONE,
) -> MetadataSnapshot:
    """A snapshot of ``records`` laid out as Kafka's ``RecordsSnapshotWriter`` writes one.

    Header control batch at offset 0 (SnapshotHeaderRecord; KRaftVersionRecord and, when given,
    VotersRecord if ``kraft_version`` > 0), then the records at the next offsets in batches of at
    most ``max_records_per_batch``, then the footer control batch. Every batch carries the snapshot's
    epoch (0 without an id, as in ``bootstrap.checkpoint``) and ``timestamp``.
    """
    from kwire.generated.kraft_version_record import KRaftVersionRecord
    from kwire.generated.snapshot_footer_record import SnapshotFooterRecord
    from kwire.generated.snapshot_header_record import SnapshotHeaderRecord

    if kraft_version == 0 and voters is not None:
        raise EncodeError("a voters record needs kraft.version 1 or more")
    epoch = snapshot_id.epoch if snapshot_id else 0
    header: list[Any] = [SnapshotHeaderRecord(version=0, last_contained_log_timestamp=last_contained_log_timestamp)]
    if kraft_version > 0:
        header.append(KRaftVersionRecord(version=0, kraft_version=kraft_version))
        if voters is not None:
            header.append(voters)
    writer = MetadataLogWriter(0, codec=codec)
    writer.append_control(header, timestamp=timestamp, leader_epoch=epoch)
    pending = list(records)
    for start in range(0, len(pending), max_records_per_batch):
        writer.append(pending[start:start + max_records_per_batch], timestamp=timestamp, leader_epoch=epoch)
    writer.append_control([SnapshotFooterRecord(version=0)], timestamp=timestamp, leader_epoch=epoch)
    return MetadataSnapshot(writer.batches, snapshot_id)


# ---------------------------------------------------------------------------------- quorum-state


@dataclass
class QuorumState:
    """The ``quorum-state`` file: QuorumStateData and the version its JSON is written at."""

    data: Any
    data_version: int = 1

    def to_json(self) -> str:
        """One line of JSON as Kafka's ``FileQuorumState`` writes it (no trailing newline)."""
        body = self.data.to_dict(self.data_version)
        body[DATA_VERSION_KEY] = self.data_version
        return json.dumps(body, separators=(",", ":"))


def parse_quorum_state(text: str | bytes) -> QuorumState:
    from kwire.generated.quorum_state_data import QuorumStateData

    if not text.strip():
        raise DecodeError("quorum-state is empty")
    try:
        body = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        raise DecodeError(f"quorum-state is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise DecodeError("quorum-state is not a JSON object")
    version = body.pop(DATA_VERSION_KEY, None)
    if isinstance(version, bool) or not isinstance(version, int):
        raise DecodeError(f"quorum-state has no integer {DATA_VERSION_KEY!r} (found {version!r})")
    low, high = QuorumStateData.VALID_VERSIONS
    if not low <= version <= high:
        raise DecodeError(f"quorum-state {DATA_VERSION_KEY} {version} is unknown (valid: {low}..{high})")
    return QuorumState(QuorumStateData.from_dict(body, version), version)


def read_quorum_state(path: str | os.PathLike) -> QuorumState:
    """``quorum-state`` read from ``path``; what is wrong with it is an error naming the file."""
    try:
        return parse_quorum_state(Path(path).read_bytes())
    except DecodeError as exc:
        raise DecodeError(f"{path}: {exc.reason}", path=exc.path, offset=exc.offset) from None


def write_quorum_state(path: str | os.PathLike, state: QuorumState, *, force: bool = False) -> None:
    """Write ``quorum-state`` atomically; an existing one is replaced only with ``force``."""
    atomic_write(path, state.to_json(), force=force)


# ------------------------------------------------------------------------------------ directory


@dataclass
class MetadataLogDirectory:
    """The files of one ``__cluster_metadata-0`` directory, found by name (nothing is read yet)."""

    path: Path
    segments: list[Path] = field(default_factory=list)
    snapshots: list[tuple[SnapshotId, Path]] = field(default_factory=list)
    quorum_state: Path | None = None
    bootstrap: Path | None = None  # bootstrap.checkpoint lives in the parent (the metadata.log.dir)

    @classmethod
    def open(cls, path: str | os.PathLike) -> MetadataLogDirectory:
        root = Path(path)
        if not root.is_dir():
            raise DecodeError(f"{root} is not a directory")
        found = cls(root)
        segments = []
        for child in root.iterdir():
            base = parse_segment_file_name(child.name)
            snapshot_id = parse_snapshot_file_name(child.name)
            if base is not None:
                segments.append((base, child))
            elif snapshot_id is not None:
                found.snapshots.append((snapshot_id, child))
            elif child.name == QUORUM_STATE_FILE_NAME:
                found.quorum_state = child
        found.segments = [path for _, path in sorted(segments)]
        found.snapshots.sort()
        bootstrap = root.parent / BOOTSTRAP_FILE_NAME
        found.bootstrap = bootstrap if bootstrap.is_file() else None
        return found

    def batches(self, *, strict: bool = False) -> Iterator[LogBatch]:
        """Every batch of every segment, in offset order."""
        for segment in self.segments:
            yield from read_metadata_log(segment, strict=strict)

    def latest_snapshot(self, *, strict: bool = False) -> MetadataSnapshot | None:
        return read_snapshot(self.snapshots[-1][1], strict=strict) if self.snapshots else None

    def read_quorum_state(self) -> QuorumState | None:
        return read_quorum_state(self.quorum_state) if self.quorum_state else None


def read_segment_batches(segment: Path, data: bytes | None = None, *,
                         stop_before: int | None = None) -> Iterator[LogBatch]:
    """The batches of a metadata log segment (``data``: its bytes). Damage is an error naming the file, the
    byte offset and the ``--until`` that reads up to it, unless it lies at or after ``stop_before``
    (offsets nobody asked for)."""
    read_up_to = None  # the offset after the last whole batch
    try:
        for batch in read_metadata_log(segment if data is None else data):
            read_up_to = batch.last_offset + 1
            yield batch
    except DecodeError as err:
        if stop_before is not None and read_up_to is not None and stop_before <= read_up_to:
            return
        hint = f"--until {read_up_to} reads the log up to the damage" if read_up_to and data is None else None
        raise in_file(segment, err, hint=hint) from None
