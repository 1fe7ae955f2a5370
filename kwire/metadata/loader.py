"""Replaying a metadata log directory (or one snapshot or segment) into a :class:`MetadataImage`.

As Kafka's ``MetadataLoader`` does: start from the newest snapshot at or below the point asked
for, then replay the log from the snapshot's end. ``until`` is exclusive, as Kafka names
snapshots: ``00000000000000007111-0000000001.checkpoint`` holds every offset below 7111, and
``until=7111`` gives the image that snapshot holds.

As Kafka's ``MetadataBatchLoader``, records go into a :class:`kwire.metadata.delta.MetadataDelta`
that is committed (applied, making the next image) at the end of each batch. A metadata
transaction (KIP-868: BeginTransactionRecord ... EndTransactionRecord) gets a delta of its own:
what came before it is committed when it begins, its delta is committed when it ends, an
AbortTransactionRecord drops it, and a transaction still open at the end stays uncommitted
(``LoadedImage.open_transaction`` says where it began). A snapshot is one delta. Control
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

from kwire.generated import AbortTransactionRecord, BeginTransactionRecord, EndTransactionRecord
from kwire.logs.damage import empty_file, in_file
from kwire.logs.entries import ControlRecord, LogBatch
from kwire.logs.files import kind_by_content, kind_by_name
from kwire.logs.metadata_log import (
    METADATA_DIRECTORY,
    MetadataLogDirectory,
    RawMetadataRecord,
    SnapshotId,
    check_snapshot_structure,
    parse_snapshot_file_name,
    read_metadata_log,
    read_segment_batches,
    refuse_cutting_a_snapshot,
    snapshot_id_of_file,
)
from kwire.metadata.delta import MetadataDelta
from kwire.metadata.errors import ReplayError
from kwire.metadata.image import MetadataImage, Provenance
from kwire.metadata.quorum_delta import QuorumDelta
from kwire.records import ControlRecordType
from kwire.wire.errors import DecodeError, KwireError

_TRANSACTION_RECORDS = (BeginTransactionRecord, EndTransactionRecord, AbortTransactionRecord)


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
    if root.stat().st_size == 0:
        raise empty_file(root)
    kind = kind_by_name(root.name) or kind_by_content(root)
    refuse_cutting_a_snapshot(root, until)
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
    snapshot, start = replay_start(root, directory, until, use_snapshots=use_snapshots)
    if snapshot is not None:
        # the leaders of the epochs before the snapshot, as a replay from the log's start meets them
        loader.control_records(history_before(directory, start)[1], below=start)
        loader.snapshot(snapshot[1])
    segments = [s for i, s in enumerate(directory.segments)
                if i + 1 == len(directory.segments) or _base_offset(directory.segments[i + 1]) > start]
    loader.log(segments, start=start)
    if until is None and directory.quorum_state:
        _newer_leader_from_quorum_state(loader, directory)
    return loader.finish()


def replay_start(root: Path, directory: MetadataLogDirectory, until: int | None, *,
                 use_snapshots: bool = True) -> tuple[tuple[SnapshotId, Path] | None, int]:
    """Where a replay of a metadata log directory up to ``until`` (exclusive) starts: the snapshot
    (None for none) and the offset the log is read from. Kafka's raft layer loads the latest snapshot
    when it starts (``KRaftControlRecordStateMachine.maybeLoadSnapshot``,
    ``KafkaRaftClient.updateListenersProgress``); offline, the latest at or below ``until``. Without
    one the log is read from offset 0. A log that starts above that offset is refused: the offsets
    between are lost. The one rule for the image and for the quorum's history."""
    candidates = [(sid, p) for sid, p in directory.snapshots if until is None or sid.end_offset <= until] \
        if use_snapshots else []
    snapshot = candidates[-1] if candidates else None
    start = snapshot[0].end_offset if snapshot else 0
    first = _base_offset(directory.segments[0]) if directory.segments else start
    if first > start and (until is None or until > start):
        held = f"the snapshot holds offsets below {start}" if snapshot else "no snapshot holds the offsets before it"
        raise KwireError(f"{root}: the log starts at offset {first} and {held}: offsets {start} to {first - 1} "
                         f"are missing")
    return snapshot, start


def history_before(directory: MetadataLogDirectory,
                   start: int) -> tuple[tuple[SnapshotId, Path] | None, list[Path]]:
    """What a replay starting at ``start`` passes over that still tells the quorum's history: the
    segments below ``start``, and the snapshot the first of them starts from (a bootstrap checkpoint;
    None when there is none, or no such segment)."""
    segments = [s for s in directory.segments if _base_offset(s) < start]
    first = _base_offset(segments[0]) if segments else None
    earlier = [(sid, p) for sid, p in directory.snapshots if first is not None and sid.end_offset <= first]
    return (earlier[-1] if earlier else None), segments


def _newer_leader_from_quorum_state(loader: _Loader, directory: MetadataLogDirectory) -> None:
    try:
        state = directory.read_quorum_state()
    except (KwireError, OSError, ValueError):
        return  # the log alone tells the story; quorum-state is read for what the log lost
    if state is None:
        return
    data = state.data
    leaders = loader.result.image.quorum.leaders
    known = leaders[-1].epoch if leaders else -1
    if data.leader_id >= 0 and data.leader_epoch > known:
        loader.quorum.newer_leader_from_state_file(data.leader_id, data.leader_epoch)
        loader.commit_quorum()


def _base_offset(segment: Path) -> int:
    return int(segment.name.split(".")[0])


class _Loader:
    """The replay itself: snapshot first, then log batches, transactions and control records.

    ``result.image`` is the last image committed, but for its provenance: ``committed`` is where
    the last commit stood (a commit of no change makes no image); ``delta`` holds the records since
    (or the open transaction's); ``provenance`` is where the records read so far end."""

    def __init__(self, result: LoadedImage, known_metadata_version: Callable[[int], bool] | None) -> None:
        self.result = result
        self._known_metadata_version = known_metadata_version
        self.delta = self._new_delta()
        self.quorum = QuorumDelta(result.image.quorum)
        self.provenance = self.committed = result.image.provenance
        self.transaction_start: int | None = None  # offset of the open transaction's BeginTransactionRecord
        self.transaction_records = 0

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
        snapshot_id = snapshot_id_of_file(path) or SnapshotId(0, 0)  # (bytes given without a file name: 0-0)
        for batch in batches:
            self._batch(path, batch, in_snapshot=True)
        # the snapshot stands for every offset below its end, whatever its records' own offsets
        header = batches[0].entries[0].record.message
        self.provenance = Provenance(snapshot_id.end_offset - 1, snapshot_id.epoch,
                                     header.last_contained_log_timestamp)
        self._commit()

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
                    self.commit_quorum()

    # ---------------------------------------------------------------------------- batches

    def _batch(self, path: Path, batch: LogBatch, *, in_snapshot: bool = False, start: int = 0,
               until: int | None = None) -> None:
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
                    self._snapshot_record(entry.record.message)
                else:
                    self._metadata(entry.offset, entry.record.message)
            except ReplayError as err:
                raise ReplayError(f"{path}: record at offset {entry.offset}: {err}") from None
            if not in_snapshot:
                self.provenance = Provenance(entry.offset, batch.partition_leader_epoch, entry.timestamp)
        if applied:
            self.result.batches += 1
            if not in_snapshot and self.transaction_start is None:
                self._commit()
        self.commit_quorum()

    def _control(self, record: ControlRecord, batch: LogBatch, offset: int) -> None:
        message = record.message
        if record.type in (ControlRecordType.LEADER_CHANGE, ControlRecordType.KRAFT_VERSION,
                           ControlRecordType.KRAFT_VOTERS):
            self.result.quorum_records += 1
        if record.type == ControlRecordType.LEADER_CHANGE:
            self.quorum.replay_leader_change(message, epoch=batch.partition_leader_epoch, offset=offset)
        elif record.type == ControlRecordType.KRAFT_VERSION:
            self.quorum.replay_kraft_version(message)
        elif record.type == ControlRecordType.KRAFT_VOTERS:
            self.quorum.replay_voters(message)
        # snapshot header and footer, transaction markers: nothing to apply

    def _metadata(self, offset: int, message: Any) -> None:
        if isinstance(message, BeginTransactionRecord):
            if self.transaction_start is not None:
                raise ReplayError("Encountered BeginTransactionRecord while already in a transaction")
            self._commit()  # what came before the transaction is not part of it
            self.transaction_start, self.transaction_records = offset, 0
            self.result.records += 1
        elif isinstance(message, (EndTransactionRecord, AbortTransactionRecord)):
            if self.transaction_start is None:
                raise ReplayError(f"Encountered {message.NAME} without having seen a BeginTransactionRecord")
            self.transaction_start = None
            self.result.records += 1
            if isinstance(message, EndTransactionRecord):
                self.result.records += self.transaction_records
            else:  # the transaction's delta is dropped; the image is the one before it began
                self.result.aborted_records += self.transaction_records
                self.delta = self._new_delta()
        else:
            self._replay(message)
            if self.transaction_start is not None:
                self.transaction_records += 1
            else:
                self.result.records += 1

    def _snapshot_record(self, message: Any) -> None:
        if isinstance(message, _TRANSACTION_RECORDS):
            raise ReplayError(f"{message.NAME} in a snapshot")
        self._replay(message)
        self.result.records += 1

    def _replay(self, message: Any) -> None:
        try:
            self.delta.replay(message)
        except ReplayError as err:
            raise ReplayError(f"{message.NAME}: {err}") from None

    # ---------------------------------------------------------------------------- commits

    def _new_delta(self) -> MetadataDelta:
        return MetadataDelta(self.result.image, known_metadata_version=self._known_metadata_version)

    def _commit(self) -> None:
        """The delta and the provenance reached become the image; a new delta starts from it."""
        self.committed = self.provenance
        if self.delta.is_empty:
            return  # only the provenance moves: the image takes it in finish(), not one image per batch
        image = self.delta.apply(self.provenance)
        # the delta began before the quorum commits since: the image takes the quorum as it is now
        self.result.image = image if image.quorum is self.quorum.image else replace(image, quorum=self.quorum.image)
        self.delta = self._new_delta()

    def commit_quorum(self) -> None:
        """The quorum's changes become the image's (a metadata transaction does not hold them)."""
        if self.quorum.changed:
            quorum = self.quorum.apply()
            self.result.image = replace(self.result.image, quorum=quorum)
            self.quorum = QuorumDelta(quorum)

    def finish(self) -> LoadedImage:
        if self.transaction_start is not None:  # the image stands where the unfinished transaction began
            self.result.open_transaction = self.transaction_start
        if self.result.image.provenance != self.committed:
            self.result.image = replace(self.result.image, provenance=self.committed)
        return self.result
