"""Replaying a metadata log directory (or one snapshot or segment) into a :class:`MetadataImage`.

As Kafka's ``MetadataLoader`` does: start from the newest snapshot at or below the point asked
for, then replay the log from the snapshot's end. ``until`` is exclusive, as Kafka names
snapshots: ``00000000000000007111-0000000001.checkpoint`` holds every offset below 7111, and
``until=7111`` gives the image that snapshot holds.

Metadata transactions (KIP-868: BeginTransactionRecord ... EndTransactionRecord) are applied only
when they end; an AbortTransactionRecord drops what the transaction held, and a transaction still
open at the end stays unapplied (``LoadedImage.open_transaction`` says where it began). Control
records feed the quorum part: LeaderChangeMessage (leader per epoch), KRaftVersionRecord and
VotersRecord (in the log or in a snapshot's header batch). The quorum part does not depend on where
replay starts: starting from a snapshot, the control records of the log before it (what is left
of it) are read too, and for the image of now a ``quorum-state`` naming a newer leader epoch than
the log's (its LeaderChangeMessage cleaned away) is taken as the current leader.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kwire.wire.errors import DecodeError, KwireError
from kwire.logs.damage import in_file
from kwire.logs.entries import ControlRecord, LogBatch
from kwire.logs.files import kind_by_content, kind_by_name
from kwire.logs.metadata_log import (
    MetadataLogDirectory,
    RawMetadataRecord,
    SnapshotId,
    check_snapshot_structure,
    parse_snapshot_file_name,
    read_metadata_log,
    read_segment_batches,
)
from kwire.metadata.image import LeaderEpoch, MetadataImage, Provenance, Voter, VersionRange
from kwire.metadata.replay import MetadataReplayer, ReplayError
from kwire.records import ControlRecordType

METADATA_DIRECTORY = "__cluster_metadata-0"
_TRANSACTION_RECORDS = {"BeginTransactionRecord", "EndTransactionRecord", "AbortTransactionRecord"}


@dataclass
class LoadedImage:
    """An image and how it was obtained."""

    image: MetadataImage
    source: Path
    snapshot: Path | None = None  # the snapshot replay started from
    until: int | None = None
    records: int = 0  # metadata records applied (transaction markers and NoOps included)
    quorum_records: int = 0  # the quorum's control records applied (leader changes, kraft.version, voters)
    batches: int = 0
    open_transaction: int | None = None  # offset of a BeginTransactionRecord never ended
    aborted_records: int = 0
    files: list[Path] = field(default_factory=list)

    @property
    def end_offset(self) -> int:
        """The offset after the last one the image contains (a snapshot of it bears this offset)."""
        return self.image.provenance.last_offset + 1


def load_image(path: str | os.PathLike, *, until: int | None = None, use_snapshots: bool = True,
               known_metadata_version: Callable[[int], bool] | None = None) -> LoadedImage:
    """The image of a metadata log directory, a snapshot or bootstrap file, or a single segment.

    A data directory that holds ``__cluster_metadata-0`` may be given instead of that directory.
    With ``use_snapshots=False`` the directory's log is replayed from its first offset.
    """
    root = Path(path)
    if until is not None and until < 0:
        raise KwireError(f"--until must not be negative (got {until})")
    if root.is_dir():
        if not any(parse_snapshot_file_name(p.name) or p.suffix == ".log" for p in root.iterdir()) \
                and (root / METADATA_DIRECTORY).is_dir():
            root = root / METADATA_DIRECTORY
        return _found_records(_load_directory(root, until, use_snapshots, known_metadata_version))
    if not root.is_file():
        raise KwireError(f"{root}: no such file or directory")
    kind = kind_by_name(root.name) or kind_by_content(root)
    loader = _Loader(LoadedImage(MetadataImage(), root, until=until), known_metadata_version)
    if kind in ("snapshot", "bootstrap"):
        loader.snapshot(root)
    elif kind in ("segment", "batches"):
        loader.log([root])
    else:
        raise KwireError(f"{root}: not a metadata log directory, snapshot or log segment")
    return _found_records(loader.finish())


def _found_records(loaded: LoadedImage) -> LoadedImage:
    """``loaded``, unless it replayed no record at all: an image of nothing is no answer (an empty
    segment, a directory of empty files, an --until before the first record). A quorum alone is an
    answer: a controller formatted for a dynamic quorum holds only its voters until it first runs."""
    if loaded.records or loaded.quorum_records:
        return loaded
    read = ", ".join(f"{p.name} ({p.stat().st_size} bytes)" for p in loaded.files if p.exists()) or "no file"
    below = f" below offset {loaded.until}" if loaded.until is not None else ""
    raise KwireError(f"{loaded.source}: no metadata records{below}: looked for record batches of the metadata "
                     f"log in {read}")


def load_image_bytes(data: bytes, *, snapshot: bool, name: str = "<bytes>") -> LoadedImage:
    """The image of a snapshot's (``snapshot=True``) or a log segment's bytes, named ``name`` in errors."""
    path = Path(name)
    loader = _Loader(LoadedImage(MetadataImage(), path), None)
    if snapshot:
        loader.snapshot(path, data)
    else:
        loader.log([path], data=data)
    return loader.finish()


def _load_directory(root: Path, until: int | None, use_snapshots: bool,
                    known_metadata_version: Callable[[int], bool] | None) -> LoadedImage:
    directory = MetadataLogDirectory.open(root)
    if not directory.segments and not directory.snapshots:
        raise KwireError(f"{root}: no metadata log segments or snapshots")
    loader = _Loader(LoadedImage(MetadataImage(), root, until=until), known_metadata_version)
    candidates = [(sid, p) for sid, p in directory.snapshots if until is None or sid.end_offset <= until] \
        if use_snapshots else []
    start = 0
    if candidates:
        snapshot_id, snapshot_path = candidates[-1]
        start = snapshot_id.end_offset
        # the leaders of the epochs before the snapshot, as a replay from the log's start meets them
        loader.control_records([s for s in directory.segments if _base_offset(s) < start], below=start)
        loader.snapshot(snapshot_path)
    first = _base_offset(directory.segments[0]) if directory.segments else start
    if first > start and (until is None or until > start):
        held = f"the snapshot holds offsets below {start}" if candidates else "no snapshot holds the offsets before it"
        raise KwireError(f"{root}: the log starts at offset {first} and {held}: offsets {start} to {first - 1} "
                         f"are missing")
    segments = [s for i, s in enumerate(directory.segments)
                if i + 1 == len(directory.segments) or _base_offset(directory.segments[i + 1]) > start]
    loader.log(segments, start=start)
    if until is None and directory.quorum_state:
        _newer_leader_from_quorum_state(loader.result.image, directory)
    return loader.finish()


def _newer_leader_from_quorum_state(image: MetadataImage, directory: MetadataLogDirectory) -> None:
    try:
        state = directory.read_quorum_state()
    except (KwireError, OSError, ValueError):
        return  # the log alone tells the story; quorum-state is read for what the log lost
    if state is None:
        return
    data = state.data
    known = image.quorum.leaders[-1].epoch if image.quorum.leaders else -1
    if data.leader_id >= 0 and data.leader_epoch > known:
        image.quorum.state_file_leader = (data.leader_id, data.leader_epoch)


def _base_offset(segment: Path) -> int:
    return int(segment.name.split(".")[0])


class _Loader:
    """The replay itself: snapshot first, then log batches, transactions and control records."""

    def __init__(self, result: LoadedImage, known_metadata_version: Callable[[int], bool] | None) -> None:
        self.result = result
        self.replayer = MetadataReplayer(result.image, known_metadata_version)
        self.pending: list[tuple[int, Any]] | None = None  # records of an open transaction
        self.pending_start = -1
        self.before_transaction = Provenance()  # where the image stood when the open transaction began

    # ---------------------------------------------------------------------------- sources

    def snapshot(self, path: Path, data: bytes | None = None) -> None:
        in_directory = data is None and path != self.result.source  # a log to fall back on
        hint = ("--from-log replays the log without it, --until an offset below its end replays an older "
                "snapshot" if in_directory else None)
        try:
            batches = list(read_metadata_log(path if data is None else data))
            check_snapshot_structure(batches)
        except DecodeError as err:
            raise in_file(path, err, hint=hint) from None
        self.result.snapshot = path
        self.result.files.append(path)
        snapshot_id = parse_snapshot_file_name(path.name) or SnapshotId(0, 0)
        for batch in batches:
            self._batch(path, batch, in_snapshot=True)
        # the snapshot stands for every offset below its end, whatever its records' own offsets
        provenance = self.result.image.provenance
        provenance.last_offset = snapshot_id.end_offset - 1
        provenance.last_epoch = snapshot_id.epoch
        header = batches[0].entries[0].record.message
        provenance.last_timestamp = header.last_contained_log_timestamp

    def log(self, segments: Iterable[Path], start: int = 0, data: bytes | None = None) -> None:
        until = self.result.until
        for segment in segments:
            self.result.files.append(segment)
            for batch in read_segment_batches(segment, data, stop_before=until):
                if batch.last_offset < start:
                    continue
                if until is not None and batch.base_offset >= until:
                    return
                self._batch(segment, batch, start=start, until=until)

    def control_records(self, segments: Iterable[Path], below: int) -> None:
        """Only the quorum's control records of ``segments`` below offset ``below``."""
        for segment in segments:
            for batch in read_segment_batches(segment, stop_before=below):
                if batch.base_offset >= below:
                    return
                if batch.is_control:
                    for entry in batch.entries:
                        if entry.offset < below and isinstance(entry.record, ControlRecord):
                            self._control(entry.record, batch, entry.offset)

    # ---------------------------------------------------------------------------- batches

    def _batch(self, path: Path, batch: LogBatch, *, in_snapshot: bool = False, start: int = 0,
               until: int | None = None) -> None:
        provenance = self.result.image.provenance
        applied = False
        for entry in batch.entries:
            if entry.offset < start or (until is not None and entry.offset >= until):
                continue
            applied = True
            try:
                if batch.is_control:
                    if isinstance(entry.record, ControlRecord):  # a control type kwire does not know: passed over
                        self._control(entry.record, batch, entry.offset)
                elif isinstance(entry.record, RawMetadataRecord):
                    raise ReplayError(entry.record.reason)
                elif in_snapshot:
                    self._apply(entry.offset, entry.record.message)
                else:
                    self._metadata(entry.offset, entry.record.message)
            except ReplayError as err:
                raise ReplayError(f"{path}: record at offset {entry.offset}: {err}") from None
            if not in_snapshot:
                provenance.last_offset = entry.offset
                provenance.last_epoch = batch.partition_leader_epoch
                provenance.last_timestamp = entry.timestamp
        if applied:
            self.result.batches += 1

    def _control(self, record: ControlRecord, batch: LogBatch, offset: int) -> None:
        quorum = self.result.image.quorum
        message = record.message
        if record.type in (ControlRecordType.LEADER_CHANGE, ControlRecordType.KRAFT_VERSION,
                           ControlRecordType.KRAFT_VOTERS):
            self.result.quorum_records += 1
        if record.type == ControlRecordType.LEADER_CHANGE:
            quorum.leaders.append(LeaderEpoch(
                epoch=batch.partition_leader_epoch, leader_id=message.leader_id, offset=offset,
                voters=tuple(v.voter_id for v in message.voters),
                granting_voters=tuple(v.voter_id for v in message.granting_voters)))
        elif record.type == ControlRecordType.KRAFT_VERSION:
            quorum.kraft_version = message.kraft_version
        elif record.type == ControlRecordType.KRAFT_VOTERS:
            quorum.voters = tuple(
                Voter(v.voter_id, v.voter_directory_id, tuple((e.name, e.host, e.port) for e in v.endpoints),
                      VersionRange(v.kraft_version_feature.min_supported_version,
                                   v.kraft_version_feature.max_supported_version))
                for v in message.voters)
        # snapshot header and footer, transaction markers: nothing to apply

    def _metadata(self, offset: int, message: Any) -> None:
        name = message.NAME
        if name == "BeginTransactionRecord":
            if self.pending is not None:
                raise ReplayError("Encountered BeginTransactionRecord while already in a transaction")
            self.pending, self.pending_start = [], offset
            self.before_transaction = replace(self.result.image.provenance)
            self.result.records += 1
        elif name in ("EndTransactionRecord", "AbortTransactionRecord"):
            if self.pending is None:
                raise ReplayError(f"Encountered {name} without having seen a BeginTransactionRecord")
            pending, self.pending = self.pending, None
            self.result.records += 1
            if name == "EndTransactionRecord":
                for pending_offset, pending_message in pending:
                    self._apply(pending_offset, pending_message)
            else:
                self.result.aborted_records += len(pending)
        elif self.pending is not None:
            self.pending.append((offset, message))
        else:
            self._apply(offset, message)

    def _apply(self, offset: int, message: Any) -> None:
        if message.NAME in _TRANSACTION_RECORDS:
            raise ReplayError(f"{message.NAME} in a snapshot")
        try:
            self.replayer.replay(message)
        except ReplayError as err:
            raise ReplayError(f"{message.NAME}: {err}") from None
        self.result.records += 1

    def finish(self) -> LoadedImage:
        if self.pending is not None:  # the image stands where the unfinished transaction began
            self.result.open_transaction = self.pending_start
            self.result.image.provenance = self.before_transaction
        return self.result
