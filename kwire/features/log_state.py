"""TEMPORARY: the controller's feature state read straight from a metadata log, until kwire has its image.

Issue 15 item 2 replays a metadata log into Kafka's whole image; once it exists, build a
:class:`~kwire.features.update_features.ClusterFeatures` from the image instead and delete this
module. Until then this reads only what UpdateFeatures needs, in offset order (newest snapshot, then
the log after it; records of a metadata transaction only once it commits):

- FeatureLevelRecord: metadata.version, and every other feature (level 0 removes it; a record for
  kraft.version is skipped, as Kafka's ``FeatureControlManager.replay`` does);
- RegisterBrokerRecord / UnregisterBrokerRecord, RegisterControllerRecord / UnregisterControllerRecord:
  each node's supported feature ranges, in registration order;
- ConfigRecord of brokers and of the cluster: min.insync.replicas, which turning eligible leader
  replicas on moves to the cluster level;
- control records: KRaftVersionRecord (kraft.version), VotersRecord and LeaderChangeMessage (the
  voters and the leader), and ``quorum-state`` when the log has none of them.

Without a FeatureLevelRecord for metadata.version in the log, the directory's ``bootstrap.checkpoint``
gives the levels (the controller writes them to the log when it first starts).

The judging controller is the quorum leader; its own supported ranges are those it registered as a
controller, else those of the broker with its id (a combined node runs one software), else Kafka
4.2.1's (:attr:`ClusterFeatures.local_supported` None).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kwire.logs.entries import ControlRecord
from kwire.logs.metadata_log import (
    BOOTSTRAP_FILE_NAME,
    MetadataLogDirectory,
    MetadataRecord,
    parse_snapshot_file_name,
    read_metadata_log,
    read_snapshot,
)
from kwire.records import ControlRecordType

from .bootstrap import read_bootstrap
from .errors import FeatureError
from .feature_versions import KRAFT_VERSION
from .metadata_version import FEATURE_NAME as METADATA_VERSION
from .update_features import BROKER_RESOURCE, MIN_INSYNC_REPLICAS, ClusterFeatures

METADATA_PARTITION = "__cluster_metadata-0"


def _ranges(features: Any) -> dict[str, tuple[int, int]]:
    return {f.name: (f.min_supported_version, f.max_supported_version) for f in features}


class _Replay:
    def __init__(self) -> None:
        self.metadata_version: int | None = None
        self.finalized: dict[str, int] = {}
        self.kraft_version = 0
        self.brokers: dict[int, dict[str, tuple[int, int]]] = {}
        self.controllers: dict[int, dict[str, tuple[int, int]]] = {}
        self.voters: tuple[int, ...] = ()
        self.leader: int | None = None
        self.last_offset = -1
        self.broker_configs: dict[str, dict[str, str]] = {}  # broker resource name ("" = cluster) -> configs
        self.pending: list[Any] | None = None  # records of an open metadata transaction

    def snapshot(self, batches: list[Any], end_offset: int) -> None:
        """A snapshot's records (its own offsets count from 0): it stands for every offset below ``end_offset``."""
        for batch in batches:
            self.batch(batch)
        self.last_offset = end_offset - 1

    def batch(self, batch: Any) -> None:
        for entry in batch.entries:
            self.last_offset = entry.offset
            if isinstance(entry.record, ControlRecord):
                self.control(entry.record)
            elif isinstance(entry.record, MetadataRecord):
                self.record(entry.record)

    def control(self, record: ControlRecord) -> None:
        message = record.message
        if record.type == ControlRecordType.KRAFT_VERSION:
            self.kraft_version = message.kraft_version
        elif record.type == ControlRecordType.KRAFT_VOTERS:
            self.voters = tuple(voter.voter_id for voter in message.voters)
        elif record.type == ControlRecordType.LEADER_CHANGE:
            self.leader = message.leader_id
            if message.voters:
                self.voters = tuple(voter.voter_id for voter in message.voters)

    def record(self, record: MetadataRecord) -> None:
        name = record.name
        if name == "BeginTransactionRecord":
            self.pending = []
        elif name == "EndTransactionRecord":
            pending, self.pending = self.pending or [], None
            for held in pending:
                self.apply(held)
        elif name == "AbortTransactionRecord":
            self.pending = None
        elif self.pending is not None:
            self.pending.append(record)
        else:
            self.apply(record)

    def apply(self, record: MetadataRecord) -> None:
        message, name = record.message, record.name
        if name == "FeatureLevelRecord":
            if message.name == METADATA_VERSION:
                self.metadata_version = message.feature_level
            elif message.name == KRAFT_VERSION:
                pass  # Kafka skips it: kraft.version lives in the raft log (KAFKA-18979)
            elif message.feature_level == 0:
                self.finalized.pop(message.name, None)
            else:
                self.finalized[message.name] = message.feature_level
        elif name == "RegisterBrokerRecord":
            self.brokers[message.broker_id] = _ranges(message.features)
        elif name == "UnregisterBrokerRecord":
            self.brokers.pop(message.broker_id, None)
        elif name == "RegisterControllerRecord":
            self.controllers[message.controller_id] = _ranges(message.features)
        elif name == "UnregisterControllerRecord":
            self.controllers.pop(message.controller_id, None)
        elif name == "ConfigRecord" and message.resource_type == BROKER_RESOURCE:
            configs = self.broker_configs.setdefault(message.resource_name, {})
            if message.value is None:
                configs.pop(message.name, None)
            else:
                configs[message.name] = message.value
            if not configs:
                del self.broker_configs[message.resource_name]


def _metadata_dir(path: Path) -> Path | None:
    if (path / METADATA_PARTITION).is_dir():
        return path / METADATA_PARTITION
    if path.is_dir() and path.name.startswith("__cluster_metadata"):
        return path
    return None


def cluster_features_from_path(path: str | os.PathLike) -> ClusterFeatures:
    """The feature state of a metadata log directory (or its parent), a snapshot, a segment, or a
    ``bootstrap.checkpoint``."""
    root = Path(path)
    if not root.exists():
        raise FeatureError(f"{root}: no such file or directory")
    replay = _Replay()
    bootstrap_path = None
    quorum_state = None
    directory = _metadata_dir(root)
    if directory is not None:
        logdir = MetadataLogDirectory.open(directory)
        start = 0
        if logdir.snapshots:
            snapshot_id, snapshot_path = logdir.snapshots[-1]
            replay.snapshot(read_snapshot(snapshot_path).batches, snapshot_id.end_offset)
            start = snapshot_id.end_offset
        for batch in logdir.batches():
            if batch.next_offset > start:
                replay.batch(batch)
        bootstrap_path = logdir.bootstrap
        quorum_state = logdir.read_quorum_state()
    elif root.is_file() and root.name == BOOTSTRAP_FILE_NAME:
        bootstrap_path = root
    elif root.is_file():
        snapshot_id = parse_snapshot_file_name(root.name)
        if snapshot_id is not None:
            replay.snapshot(read_snapshot(root).batches, snapshot_id.end_offset)
        else:
            for batch in read_metadata_log(root):
                replay.batch(batch)
    else:
        raise FeatureError(f"{root}: neither a metadata log directory, nor a snapshot, segment or "
                           f"{BOOTSTRAP_FILE_NAME}")
    if replay.metadata_version is None and bootstrap_path is not None:
        bootstrap = read_bootstrap(bootstrap_path)
        replay.metadata_version = bootstrap.metadata_version.level
        replay.finalized = {name: level for name, level in bootstrap.feature_levels.items()
                            if name not in (METADATA_VERSION, KRAFT_VERSION) and level > 0}
    if replay.metadata_version is None:
        raise FeatureError(f"{root}: no FeatureLevelRecord for {METADATA_VERSION} and no {BOOTSTRAP_FILE_NAME}")
    if quorum_state is not None:
        data = quorum_state.data
        if replay.leader is None and data.leader_id >= 0:
            replay.leader = data.leader_id
        if not replay.voters:
            replay.voters = tuple(voter.voter_id for voter in data.current_voters or ())
    leader = replay.leader if replay.leader is not None else (replay.voters[0] if replay.voters else 0)
    local = replay.controllers.get(leader) or replay.brokers.get(leader)
    return ClusterFeatures(
        metadata_version=replay.metadata_version,
        finalized=dict(sorted(replay.finalized.items())),
        kraft_version=replay.kraft_version,
        brokers=replay.brokers,
        controllers=replay.controllers,
        quorum_node_ids=replay.voters,
        node_id=leader,
        local_supported=dict(local) if local else None,
        epoch=replay.last_offset,
        cluster_min_insync_replicas=replay.broker_configs.get("", {}).get(MIN_INSYNC_REPLICAS),
        broker_min_insync_replicas={int(broker): configs[MIN_INSYNC_REPLICAS]
                                    for broker, configs in replay.broker_configs.items()
                                    if broker and MIN_INSYNC_REPLICAS in configs},
        brokers_with_configs=tuple(int(broker) for broker in replay.broker_configs if broker),
    )
