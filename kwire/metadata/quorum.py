"""The KRaft controller quorum over a metadata log (KIP-853): voter-set history, DescribeQuorum, voter changes.

What Kafka's raft layer keeps beside the metadata (``KRaftControlRecordStateMachine`` in Kafka
4.2.1): the kraft.version (KRaftVersionRecord) and the voter set (VotersRecord), each with the
offset it took effect at, read from the bootstrap snapshot or a snapshot's header batch and then
from the log's control batches; LeaderChangeMessages say who led each epoch. ``quorum-state``
says where the node stood last (leader id and epoch). The records are replayed by the metadata
image's own :class:`~kwire.metadata.quorum_delta.QuorumDelta`, from the snapshot the image starts
at (:func:`kwire.metadata.loader.replay_start`, Kafka's latest), with what is left of the log
before it read first for the history.

From that history, offline:

* :func:`describe_quorum_response`: the DescribeQuorumResponse (v2) the leader would answer at the
  end of what was read (``RaftUtil.singletonDescribeQuorumResponse``): voters in Kafka's
  ``HashMap`` order with their directory ids, the nodes with their endpoints; what only a live
  leader knows (high watermark, the other replicas' log end offsets, fetch times, observers) at
  Kafka's "unknown" values (-1, empty);
* :func:`judge_add_voter`, :func:`judge_remove_voter`, :func:`judge_update_voter`: the
  checks of ``AddVoterHandler``, ``RemoveVoterHandler`` and ``UpdateVoterHandler`` that depend
  only on the log, with Kafka's error codes and messages; the checks that need the live leader
  are listed by name in :attr:`VoterChangeVerdict.live_checks`, never guessed.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

from kwire.features.java_order import hash_map_order, int_hash, sized_hash_map_order, uuid_hash
from kwire.logs.damage import empty_file, in_file
from kwire.logs.entries import ControlRecord, LogBatch
from kwire.logs.metadata_log import (
    MetadataLogDirectory,
    QuorumState,
    read_metadata_log,
    read_quorum_state,
    read_segment_batches,
    refuse_cutting_a_snapshot,
    snapshot_id_of_file,
)
from kwire.metadata.image import LeaderEpoch, QuorumImage, VersionRange, Voter
from kwire.metadata.loader import METADATA_DIRECTORY, history_before, replay_start
from kwire.metadata.quorum_delta import QuorumDelta
from kwire.records import ControlRecordType
from kwire.wire.error_codes import ErrorCode
from kwire.wire.errors import DecodeError, KwireError
from kwire.wire.uuids import uuid_to_text

NO_DIRECTORY_ID = UUID(int=0)  # ReplicaKey.NO_DIRECTORY_ID

#: The checks of the voter-change handlers that only the live leader can make (in Kafka's order).
LIVE_LEADER_CHECKS = (
    "the request's cluster id is the leader's (INCONSISTENT_CLUSTER_ID), the receiver is the leader of the "
    "current epoch (NOT_LEADER_OR_FOLLOWER)",
    "no other voter change is pending (REQUEST_TIMED_OUT: \"Request timed out waiting for leader to handle "
    "previous voter change request\")",
    "the leader has a high watermark (REQUEST_TIMED_OUT: \"Request timed out waiting for leader to establish "
    "HWM and fence previous voter changes\")",
    "the last voter change is committed, below the high watermark (REQUEST_TIMED_OUT: \"Request timed out "
    "waiting for voters to commit the latest voter change at ... with HWM ...\")",
)
#: AddRaftVoter's own check after the first of those (KafkaRaftClient.handleAddVoterRequest).
ADD_DEFAULT_LISTENER_CHECK = ("the endpoints include the leader's default listener (INVALID_REQUEST: \"Add voter "
                              "request didn't include the endpoint (...) for the default listener ...\")")
ADD_LIVE_CHECKS = (
    "the new voter answers ApiVersions on the leader's controller listener and supports the finalized "
    "kraft.version",
    "the new voter has caught up with the leader (fetched within the last hour) before the VotersRecord is "
    "appended, and that record then commits",
)


# ------------------------------------------------------------------------------------- history


@dataclass(frozen=True)
class VoterSetChange:
    """A VotersRecord that took effect: where, in which epoch, under which leader, before and after."""

    offset: int
    epoch: int
    leader_id: int | None  # the leader of that epoch, when a LeaderChangeMessage named it
    before: tuple[Voter, ...] | None  # None: the static voter set (controller.quorum.voters)
    after: tuple[Voter, ...]
    source: str  # "snapshot FILE" or "log"


@dataclass(frozen=True)
class KRaftVersionChange:
    offset: int
    epoch: int
    kraft_version: int
    source: str


@dataclass
class QuorumHistory:
    """The raft layer's state over a log, and where the node stood (``quorum-state``)."""

    path: Path
    kraft_version: int = 0
    voters: tuple[Voter, ...] | None = None  # None: static voters, not in the log
    voters_offset: int | None = None  # the offset of the VotersRecord in force
    voter_changes: list[VoterSetChange] = field(default_factory=list)
    kraft_version_changes: list[KRaftVersionChange] = field(default_factory=list)
    leaders: list[LeaderEpoch] = field(default_factory=list)
    end_offset: int = 0  # the offset after the last one read
    quorum_state: QuorumState | None = None

    @property
    def static_voter_ids(self) -> tuple[int, ...]:
        """The voter ids the newest LeaderChangeMessage lists (all a log says of a static quorum)."""
        return self.leaders[-1].voters if self.leaders else ()

    @property
    def voter_ids(self) -> tuple[int, ...]:
        return tuple(v.id for v in self.voters) if self.voters is not None else self.static_voter_ids

    @property
    def leader(self) -> tuple[int, int]:
        """(leader id, epoch): quorum-state's when the file is there, else the newest LeaderChangeMessage's;
        (-1, -1) when neither says."""
        if self.quorum_state is not None:
            data = self.quorum_state.data
            return data.leader_id, data.leader_epoch
        if self.leaders:
            return self.leaders[-1].leader_id, self.leaders[-1].epoch
        return -1, -1

    def leader_of_epoch(self, epoch: int) -> int | None:
        for entry in reversed(self.leaders):
            if entry.epoch == epoch:
                return entry.leader_id
        return None


class _Reader:
    """The history of the quorum's control records, replayed by the metadata image's own
    :class:`QuorumDelta` (one replay of LeaderChangeMessage, KRaftVersionRecord and VotersRecord),
    with each change noted where it took effect."""

    def __init__(self, history: QuorumHistory, until: int | None) -> None:
        self.history = history
        self.until = until
        self.delta = QuorumDelta(QuorumImage())
        history.leaders = self.delta.leaders  # the delta appends the epochs, the history reads them
        self.log_before_snapshot = False

    def batches(self, batches: Iterable[LogBatch], source: str, *, snapshot_offset: int | None = None,
                start: int = 0, below: int | None = None) -> None:
        """Replay ``batches``: a snapshot's (its records take effect at ``snapshot_offset`` - 1), or
        the log's entries from ``start`` on and below ``below`` and ``until``."""
        stop = min((o for o in (self.until, below) if o is not None), default=None) if snapshot_offset is None \
            else None
        for batch in batches:
            if stop is not None and batch.base_offset >= stop:
                return
            for entry in batch.entries:
                if stop is not None and entry.offset >= stop:
                    return
                if snapshot_offset is None and entry.offset < start:
                    continue
                if batch.is_control and isinstance(entry.record, ControlRecord):
                    # a snapshot's control records take effect at the snapshot's own offset, as Kafka's
                    # KRaftControlRecordStateMachine records them: at its last contained offset
                    offset = entry.offset if snapshot_offset is None else snapshot_offset - 1
                    self.control(entry.record, batch.partition_leader_epoch, offset, source)
                if snapshot_offset is None:
                    self.history.end_offset = entry.offset + 1

    def control(self, record: ControlRecord, epoch: int, offset: int, source: str) -> None:
        history, delta, message = self.history, self.delta, record.message
        # a snapshot's header repeating what the log before it already said is no change
        repeats = source.startswith("snapshot") and self.log_before_snapshot
        if record.type == ControlRecordType.LEADER_CHANGE:
            delta.replay_leader_change(message, epoch=epoch, offset=offset)
        elif record.type == ControlRecordType.KRAFT_VERSION:
            before = delta.kraft_version
            delta.replay_kraft_version(message)
            history.kraft_version = delta.kraft_version
            if not (repeats and before == delta.kraft_version):
                history.kraft_version_changes.append(KRaftVersionChange(offset, epoch, delta.kraft_version, source))
        elif record.type == ControlRecordType.KRAFT_VOTERS:
            before = delta.voters
            delta.replay_voters(message)
            if not (repeats and before == delta.voters):
                history.voter_changes.append(VoterSetChange(offset, epoch, history.leader_of_epoch(epoch),
                                                            before, delta.voters, source))
                history.voters_offset = offset
            history.voters = delta.voters


def read_quorum_history(path: str | os.PathLike, *, until: int | None = None) -> QuorumHistory:
    """The quorum's history in a metadata log directory (or the data directory holding it), a
    snapshot (``0-0`` bootstrap snapshots included) or a segment; ``until`` is exclusive."""
    root = Path(path)
    if root.is_dir() and (root / METADATA_DIRECTORY).is_dir() and not any(
            p.suffix in (".log", ".checkpoint") and p.name != "bootstrap.checkpoint" for p in root.iterdir()):
        root = root / METADATA_DIRECTORY
    history = QuorumHistory(root)
    reader = _Reader(history, until)
    if root.is_file():
        if root.stat().st_size == 0:
            raise empty_file(root)
        refuse_cutting_a_snapshot(root, until)
        snapshot_id = snapshot_id_of_file(root)  # (bootstrap.checkpoint's 0-0 too, as the image reads it)
        if snapshot_id is not None:
            reader.batches(_snapshot_batches(root), f"snapshot {root.name}", snapshot_offset=snapshot_id.end_offset)
            history.end_offset = snapshot_id.end_offset
        else:
            reader.batches(read_segment_batches(root, stop_before=until), "log")
        return history
    if not root.is_dir():
        raise KwireError(f"{root}: no such file or directory")
    directory = MetadataLogDirectory.open(root)
    if not directory.segments and not directory.snapshots:
        raise KwireError(f"{root}: no metadata log segments or snapshots")
    snapshot, start = replay_start(root, directory, until)  # the image's rule: Kafka's latest snapshot
    if snapshot is not None:
        # what is left of the log before it, from the snapshot that log starts at (a bootstrap
        # checkpoint): the history Kafka's state machine forgets when it loads the snapshot
        earlier, segments = history_before(directory, start)
        for older_id, older_path in [earlier] if earlier and segments else []:
            reader.batches(_snapshot_batches(older_path), f"snapshot {older_path.name}",
                           snapshot_offset=older_id.end_offset)
        for segment in segments:
            reader.batches(read_segment_batches(segment, stop_before=start), "log", below=start)
            reader.log_before_snapshot = True
        snapshot_id, snapshot_path = snapshot
        reader.batches(_snapshot_batches(snapshot_path), f"snapshot {snapshot_path.name}",
                       snapshot_offset=snapshot_id.end_offset)
        history.end_offset = start
    for segment in directory.segments:
        reader.batches((b for b in read_segment_batches(segment, stop_before=until) if b.last_offset >= start), "log",
                       start=start)
    if directory.quorum_state is not None:
        history.quorum_state = read_quorum_state(directory.quorum_state)
    return history


def _snapshot_batches(path: Path) -> list[LogBatch]:
    """A snapshot's batches, read whole: damage is an error naming the file and the byte offset."""
    try:
        batches = list(read_metadata_log(path))
        if not batches:
            if path.stat().st_size == 0:
                raise empty_file(path)
            raise DecodeError("a snapshot needs a header and a footer batch, found 0 batch(es)")
        return batches
    except DecodeError as err:
        raise in_file(path, err) from None


# ------------------------------------------------------------------------------ Kafka's texts


def replica_key_text(voter_id: int, directory_id: UUID | None) -> str:
    """``ReplicaKey.toString``: the directory id is an ``Optional<Uuid>`` (empty for the zero uuid)."""
    shown = "Optional.empty" if directory_id in (None, NO_DIRECTORY_ID) else f"Optional[{uuid_to_text(directory_id)}]"
    return f"ReplicaKey(id={voter_id}, directoryId={shown})"


def _signed32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def replica_key_hash(key: tuple[int, UUID | None]) -> int:
    """``ReplicaKey.hashCode``: ``Objects.hash(id, directoryId)`` over an ``Optional<Uuid>``."""
    voter_id, directory_id = key
    optional_hash = 0 if directory_id in (None, NO_DIRECTORY_ID) else uuid_hash(directory_id)
    return _signed32(31 * (31 + voter_id) + optional_hash)


def voter_keys_text(voters: Sequence[Voter]) -> str:
    """``VoterSet.voterKeys().toString()``: a HashSet of ReplicaKeys filled in the voter map's order."""
    in_map_order = [(v.id, v.directory_id) for v in voters_in_map_order(voters)]
    return "[" + ", ".join(replica_key_text(*key) for key in hash_map_order(in_map_order, replica_key_hash)) + "]"


def voters_in_map_order(voters: Sequence[Voter]) -> list[Voter]:
    """The order of the ``HashMap<Integer, VoterNode>`` a voter set read from a VotersRecord keeps
    (``VoterSet.fromVotersRecord``: sized for the voters, filled in the record's order)."""
    by_id = {v.id: v for v in voters}
    return [by_id[i] for i in sized_hash_map_order(list(by_id), int_hash)]


def voter_states_order(voters: Sequence[Voter]) -> list[Voter]:
    """``LeaderState.voterStates``: a ``new HashMap<>()`` filled in the voter set's order."""
    by_id = {v.id: v for v in voters}
    return [by_id[i] for i in hash_map_order([v.id for v in voters_in_map_order(voters)], int_hash)]


# ------------------------------------------------------------------------------ DescribeQuorum


def describe_quorum_response(history: QuorumHistory) -> Any:
    """The DescribeQuorumResponse (v2) the leader would answer at the end of ``history``."""
    from kwire.generated.describe_quorum_response import (
        DescribeQuorumResponse,
        Listener,
        Node,
        PartitionData,
        ReplicaState,
        TopicData,
    )

    leader_id, epoch = history.leader
    if history.voters is not None:
        voters = voter_states_order(history.voters)
    else:  # static quorum: ids only (controller.quorum.voters has the endpoints, not the log)
        voters = [Voter(i, NO_DIRECTORY_ID, (), VersionRange(0, 0))
                  for i in hash_map_order(list(history.static_voter_ids), int_hash)]
    states = [ReplicaState(replica_id=v.id, replica_directory_id=v.directory_id,
                           log_end_offset=history.end_offset if v.id == leader_id else -1,
                           last_fetch_timestamp=-1, last_caught_up_timestamp=-1) for v in voters]
    partition = PartitionData(partition_index=0, error_code=ErrorCode.NONE, leader_id=leader_id, leader_epoch=epoch,
                              high_watermark=-1, current_voters=states, observers=[])
    nodes = [Node(node_id=v.id, listeners=[Listener(name=n, host=h, port=p) for n, h, p in v.endpoints])
             for v in voters]
    return DescribeQuorumResponse(error_code=ErrorCode.NONE, topics=[TopicData(topic_name="__cluster_metadata",
                                                                     partitions=[partition])], nodes=nodes)


# ------------------------------------------------------------------------------ voter changes


@dataclass
class VoterChangeVerdict:
    """A voter change judged against the log: refused (code and Kafka's message), or passing every
    check the log can answer, with the voter set it would append and the checks left to the leader."""

    api: str
    error_code: int
    error_message: str | None
    new_voters: tuple[Voter, ...] | None = None
    live_checks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        return self.error_code != ErrorCode.NONE

    @property
    def error_name(self) -> str:
        return ErrorCode.of(self.error_code).name


def _live_checks(api: str, count: int | None = None) -> list[str]:
    """The live leader's checks of ``api`` in Kafka's order, up to the ``count``-th shared one: only
    AddRaftVoter's list has its default-listener check."""
    checks = list(LIVE_LEADER_CHECKS[:count])
    if api == "AddRaftVoter":
        checks.insert(1, ADD_DEFAULT_LISTENER_CHECK)
    return checks


def _unsupported(api: str, verb: str, kraft_version: int) -> VoterChangeVerdict:
    return VoterChangeVerdict(api, ErrorCode.UNSUPPORTED_VERSION,
                              f"Cluster doesn't support {verb} voter because the kraft.version feature is "
                              f"{kraft_version}", live_checks=_live_checks(api, 3))


# api -> how Kafka's messages name the request and the change
_ADD_OR_REMOVE = {"AddRaftVoter": ("Add", "adding"), "RemoveRaftVoter": ("Remove", "removing")}


def _refused_first(api: str, history: QuorumHistory, voter_id: int, directory_id: UUID) -> VoterChangeVerdict | None:
    """What AddRaftVoter and RemoveRaftVoter refuse before looking at the voters: a voter key that is not
    valid (``KafkaRaftClient.handleAddVoterRequest``/``handleRemoveVoterRequest``), then kraft.version 0."""
    request, verb = _ADD_OR_REMOVE[api]
    if voter_id < 0 or directory_id == NO_DIRECTORY_ID:
        return VoterChangeVerdict(api, ErrorCode.INVALID_REQUEST,
                                  f"{request} voter request didn't include a valid voter")
    if history.kraft_version < 1:
        return _unsupported(api, verb, history.kraft_version)
    return None


def judge_add_voter(history: QuorumHistory, voter_id: int, directory_id: UUID,
                    endpoints: Sequence[tuple[str, str, int]]) -> VoterChangeVerdict:
    """``AddVoterHandler.handleAddVoterRequest``'s log-side checks (Kafka 4.2.1)."""
    api = "AddRaftVoter"
    if (refused := _refused_first(api, history, voter_id, directory_id)) is not None:
        return refused
    voters = history.voters or ()
    if any(v.id == voter_id for v in voters):
        return VoterChangeVerdict(api, ErrorCode.DUPLICATE_VOTER,
                                  f"The voter id for {replica_key_text(voter_id, directory_id)} is already part of "
                                  f"the set of voters {voter_keys_text(voters)}.", live_checks=_live_checks(api))
    new = Voter(voter_id, directory_id, tuple(endpoints), VersionRange(0, 1))
    return VoterChangeVerdict(api, ErrorCode.NONE, None, tuple(voters) + (new,),
                              _live_checks(api) + list(ADD_LIVE_CHECKS),
                              ["the new voter's supported kraft.version range comes from its ApiVersions answer; "
                               "shown here as a Kafka 4.2.1 controller's, 0-1"])


def judge_remove_voter(history: QuorumHistory, voter_id: int, directory_id: UUID) -> VoterChangeVerdict:
    """``RemoveVoterHandler.handleRemoveVoterRequest``'s log-side checks: ``VoterSet.removeVoter`` refuses
    an absent voter, another directory id, and the last voter."""
    api = "RemoveRaftVoter"
    if (refused := _refused_first(api, history, voter_id, directory_id)) is not None:
        return refused
    voters = history.voters or ()
    old = next((v for v in voters if v.id == voter_id), None)
    if old is None or old.directory_id != directory_id or len(voters) <= 1:
        return VoterChangeVerdict(api, ErrorCode.VOTER_NOT_FOUND,
                                  f"Cannot remove voter {replica_key_text(voter_id, directory_id)} from the set of "
                                  f"voters {voter_keys_text(voters)}", live_checks=list(LIVE_LEADER_CHECKS))
    return VoterChangeVerdict(api, ErrorCode.NONE, None, tuple(v for v in voters if v.id != voter_id),
                              list(LIVE_LEADER_CHECKS) + ["the new VotersRecord commits on the new voter set"])


def judge_update_voter(history: QuorumHistory, voter_id: int, directory_id: UUID,
                       endpoints: Sequence[tuple[str, str, int]], supported: tuple[int, int],
                       default_listener: str | None = None) -> VoterChangeVerdict:
    """``UpdateVoterHandler.handleUpdateVoterRequest``'s log-side checks. Its response has no message."""
    api = "UpdateRaftVoter"
    if voter_id < 0 or directory_id == NO_DIRECTORY_ID:  # KafkaRaftClient.handleUpdateVoterRequest
        return VoterChangeVerdict(api, ErrorCode.INVALID_REQUEST, None)
    kraft = history.kraft_version
    live = list(LIVE_LEADER_CHECKS)
    if kraft < 1:
        return VoterChangeVerdict(api, ErrorCode.NONE, None, None, live[:3], [
            "at kraft.version 0 there is no VotersRecord to rewrite: a Kafka 4.1+ leader keeps the voter's "
            "directory id and kraft.version range in memory for a later kraft.version upgrade (KAFKA-16538); "
            "nothing is appended"])
    low, high = supported
    if not low <= kraft <= high:
        return VoterChangeVerdict(api, ErrorCode.INVALID_REQUEST, None, live_checks=live)
    notes: list[str] = []
    if default_listener is None:
        live.append("the endpoints include the leader's default listener (its controller.listener.names' first; "
                    "INVALID_REQUEST otherwise)")
    elif not any(name.upper() == default_listener.upper() for name, _, _ in endpoints):
        return VoterChangeVerdict(api, ErrorCode.INVALID_REQUEST, None, live_checks=live)
    voters = history.voters or ()
    old = next((v for v in voters if v.id == voter_id), None)
    if old is None or old.directory_id != directory_id:  # VoterNode.isVoter: same id and directory id
        return VoterChangeVerdict(api, ErrorCode.VOTER_NOT_FOUND, None, live_checks=live)
    updated = Voter(voter_id, directory_id, tuple(endpoints), VersionRange(low, high))
    return VoterChangeVerdict(api, ErrorCode.NONE, None, tuple(updated if v.id == voter_id else v for v in voters),
                              live, notes)


# ------------------------------------------------------------------------------ JSON and text


def voter_json(voter: Voter) -> dict[str, Any]:
    return {"id": voter.id, "directoryId": uuid_to_text(voter.directory_id),
            "endpoints": [{"name": n, "host": h, "port": p} for n, h, p in voter.endpoints],
            "kraftVersion": {"min": voter.kraft_version.min, "max": voter.kraft_version.max}}


def voter_text(voter: Voter) -> str:
    where = ",".join(f"{n}://{h}:{p}" for n, h, p in voter.endpoints) or "-"
    return (f"{voter.id}:{uuid_to_text(voter.directory_id)} {where} "
            f"kraft.version {voter.kraft_version.min}-{voter.kraft_version.max}")


def history_json(history: QuorumHistory) -> dict[str, Any]:
    leader_id, epoch = history.leader
    voters = None if history.voters is None else [voter_json(v) for v in history.voters]
    return {
        "path": str(history.path), "endOffset": history.end_offset, "kraftVersion": history.kraft_version,
        "dynamic": history.voters is not None, "voters": voters, "staticVoterIds": list(history.static_voter_ids),
        "leaderId": leader_id, "leaderEpoch": epoch,
        "leaderFrom": "quorum-state" if history.quorum_state is not None else
                      ("LeaderChangeMessage" if history.leaders else None),
        "kraftVersionChanges": [{"offset": c.offset, "epoch": c.epoch, "kraftVersion": c.kraft_version,
                                 "source": c.source} for c in history.kraft_version_changes],
        "voterChanges": [{"offset": c.offset, "epoch": c.epoch, "leaderId": c.leader_id, "source": c.source,
                          "before": None if c.before is None else [voter_json(v) for v in c.before],
                          "after": [voter_json(v) for v in c.after]} for c in history.voter_changes],
        "leaders": [{"epoch": e.epoch, "leaderId": e.leader_id, "offset": e.offset, "voters": list(e.voters)}
                    for e in history.leaders],
    }


def history_text(history: QuorumHistory) -> list[str]:
    leader_id, epoch = history.leader
    lines = [f"{history.path}: kraft.version {history.kraft_version}, "
             + (f"{len(history.voters)} voters (dynamic quorum)" if history.voters is not None else
                f"static quorum (controller.quorum.voters; voter ids in the log: "
                f"{', '.join(map(str, history.static_voter_ids)) or 'none'})")
             + f", end offset {history.end_offset}"]
    lines.append(f"leader: {leader_id if leader_id >= 0 else 'none'} in epoch {epoch}"
                 + (" (quorum-state)" if history.quorum_state is not None else
                    " (newest LeaderChangeMessage)" if history.leaders else ""))
    for kraft in history.kraft_version_changes:
        lines.append(f"kraft.version {kraft.kraft_version} at offset {kraft.offset}, epoch {kraft.epoch} "
                     f"({kraft.source})")
    for change in history.voter_changes:
        led = f"leader {change.leader_id}" if change.leader_id is not None else "no leader named"
        before = "no voter set recorded" if change.before is None else \
            ", ".join(str(v.id) for v in change.before) or "none"
        lines.append(f"voters at offset {change.offset}, epoch {change.epoch} ({led}; {change.source}): "
                     f"{before} -> {', '.join(str(v.id) for v in change.after)}")
    for voter in history.voters or ():
        lines.append(f"  voter {voter_text(voter)}")
    return lines
