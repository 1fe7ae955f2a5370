"""What the controller judging an UpdateFeatures request knows, taken from a replayed image.

:class:`kwire.features.update_features.ClusterFeatures` from a :class:`LoadedImage`: the finalized
levels, the supported feature ranges of every registered broker and controller (in registration
order), kraft.version, the voters and the active controller (the leader of the newest epoch, else
``quorum-state``'s). An image with no FeatureLevelRecord for metadata.version takes its levels
from the directory's ``bootstrap.checkpoint``, which is what the controller writes to the log when
it first starts. kraft.version FeatureLevelRecords are not finalized features (Kafka's
``FeatureControlManager`` skips them: kraft.version lives in the raft log). The broker-level
configs give what turning eligible leader replicas on does to min.insync.replicas: the
cluster-level value (broker resource ``""``), each broker's, and the brokers with any config in
the order they got their first (Kafka's ``brokersWithConfigs``).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kwire.features import KRAFT_VERSION, METADATA_VERSION, FeatureError
from kwire.features.bootstrap import read_bootstrap
from kwire.features.update_features import BROKER_RESOURCE, MIN_INSYNC_REPLICAS, ClusterFeatures
from kwire.logs.metadata_log import BOOTSTRAP_FILE_NAME, QUORUM_STATE_FILE_NAME, read_quorum_state
from kwire.metadata.image import VersionRange
from kwire.metadata.loader import LoadedImage


def _ranges(features: Mapping[str, VersionRange]) -> dict[str, tuple[int, int]]:
    return {name: (r.min, r.max) for name, r in features.items()}


def cluster_features(loaded: LoadedImage) -> ClusterFeatures:
    image = loaded.image
    level = image.features.metadata_version
    finalized = {n: v for n, v in image.features.finalized.items() if n != KRAFT_VERSION}
    directory = loaded.source if loaded.source.is_dir() else loaded.source.parent
    if level is None:
        bootstrap = directory.parent / BOOTSTRAP_FILE_NAME
        if not bootstrap.is_file():
            raise FeatureError(f"{loaded.source}: no FeatureLevelRecord for {METADATA_VERSION} and no "
                               f"{BOOTSTRAP_FILE_NAME}")
        levels = read_bootstrap(bootstrap)
        level = levels.metadata_version.level
        finalized = {n: v for n, v in levels.feature_levels.items()
                     if n not in (METADATA_VERSION, KRAFT_VERSION) and v > 0}
    quorum = image.quorum
    voters = tuple(v.id for v in quorum.voters) if quorum.voters is not None else (
        quorum.leaders[-1].voters if quorum.leaders else ())
    leader = quorum.current_leader[0] if quorum.current_leader else None
    found_by = "the log's leader" if quorum.leaders else "quorum-state" if leader is not None else ""
    state_file = Path(directory) / QUORUM_STATE_FILE_NAME
    if (leader is None or not voters) and state_file.is_file():
        data = read_quorum_state(state_file).data
        if leader is None and data.leader_id >= 0:
            leader, found_by = data.leader_id, "quorum-state"
        if not voters:
            voters = tuple(v.voter_id for v in data.current_voters or ())
    if leader is None:
        leader, found_by = (voters[0], "the first voter") if voters else (0, "")
    brokers = {i: _ranges(b.supported_features) for i, b in image.cluster.brokers.items()}
    controllers = {i: _ranges(c.supported_features) for i, c in image.cluster.controllers.items()}
    # below 3.7-IV0 no controller registers; a combined node's broker registration says what it runs
    local, local_from = (controllers[leader], "controller") if leader in controllers else \
        (brokers[leader], "broker") if found_by and leader in brokers else (None, "")
    configs = image.configs.resources
    # broker ids with configs, in the order they got their first ("" is the cluster level)
    broker_configs = {int(name): data for (kind, name), data in configs.items()
                      if kind == BROKER_RESOURCE and name.isascii() and name.isdigit()}
    return ClusterFeatures(
        metadata_version=level,
        finalized=dict(sorted(finalized.items())),
        kraft_version=quorum.kraft_version,
        brokers=brokers,
        controllers=controllers,
        quorum_node_ids=voters,
        node_id=leader,
        local_supported=dict(local) if local else None,
        node_id_from=found_by,
        local_supported_from=local_from,
        epoch=image.provenance.last_offset,
        cluster_min_insync_replicas=configs.get((BROKER_RESOURCE, ""), {}).get(MIN_INSYNC_REPLICAS),
        broker_min_insync_replicas={broker: data[MIN_INSYNC_REPLICAS] for broker, data in broker_configs.items()
                                    if MIN_INSYNC_REPLICAS in data},
        brokers_with_configs=tuple(broker_configs),
        raft_voters=None if quorum.voters is None else {
            v.id: (v.directory_id, (v.kraft_version.min, v.kraft_version.max)) for v in quorum.voters},
    )
