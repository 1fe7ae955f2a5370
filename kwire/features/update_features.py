"""UpdateFeatures as Kafka 4.2.1's controller judges it: the response it returns, the records it appends.

The controller (``QuorumController.updateFeatures`` with ``FeatureControlManager`` and
``QuorumFeatures``) takes the request's updates in the order of a Java ``HashMap`` and stops at the
first one it refuses. For each update, in this order:

1. an upgrade type other than 1 (upgrade), 2 (safe downgrade) or 3 (unsafe downgrade) is refused;
2. a level below 0 is refused;
3. the level must be supported by the controller itself, then by every registered broker, then
   (from metadata.version 3.7-IV0, when controllers register) by every other registered controller,
   and every voter must have registered;
4. a lower level than the current one needs a downgrade type, a higher one the upgrade type;
5. metadata.version: a downgrade across a level that changed the metadata is refused, safe or
   unsafe ("Unsafe metadata downgrade is not supported in this version"); kraft.version: never
   downgraded, an upgrade is handed to the raft layer; any other feature: the level must exist and
   its dependencies hold among the levels the request would leave.

A refusal fails the whole request: top-level error 95 (INVALID_UPDATE_VERSION), its message
prefixed "The update failed for all features since the following feature had an error: ", no
per-feature results and no records. Success is error 0 with a null message and, for request
versions 0 and 1, one result per requested feature (error 0, message "NONE": Kafka writes
``Errors.NONE.message()``); the records are FeatureLevelRecords (a NoOpRecord for kraft.version),
appended atomically unless ``ValidateOnly``. Turning eligible.leader.replicas.version on also moves
min.insync.replicas to the cluster level: ConfigRecords come first, setting it there (unless it is
set) and removing it from every broker that has it.

Version 0's ``AllowDowngrade`` is not read by the controller: it reads ``UpgradeType``, which a v0
request cannot carry and which therefore keeps its default, 1 (upgrade). A v0 downgrade is refused.

Kafka's own test features (``test.feature.version``, ``unit.test.feature.version.N``) are known by
name, as Kafka's ``Feature.featureFromName`` knows them: disabling one (level 0, which every node
"supports") passes the checks and appends its FeatureLevelRecord, unless a level-0 dependency fails
(``unit.test.feature.version.7`` needs metadata.version 3.7-IV0); a higher level is refused as
unsupported by any node that does not list the feature. A name Kafka does not know at all is
"Feature ... not found." at level 0.

A kraft.version upgrade is judged as the raft leader judges it (:mod:`kwire.features.kraft_upgrade`):
every voter must support the level, as the leader knows the voters. What an offline evaluation
cannot see is said in :attr:`Verdict.notes`: a pending kraft.version upgrade and, below 3.7-IV0,
the controllers' supported features.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kwire.logs.metadata_log import MetadataRecord

from .errors import FeatureError
from .feature_versions import ELIGIBLE_LEADER_REPLICAS_VERSION, FEATURES, KRAFT_VERSION, TEST_FEATURES, validate_level
from .java_order import hash_map_order, timeline_hash_order
from .metadata_version import (
    FEATURE_NAME as METADATA_VERSION,
)
from .metadata_version import (
    GATES,
    LATEST_PRODUCTION_LEVEL,
    LATEST_TESTING_LEVEL,
    MINIMUM_LEVEL,
    from_level,
    metadata_changed_between,
)

INVALID_UPDATE_VERSION = 95
NONE = 0
UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3
UPGRADE_TYPES = {UPGRADE: "upgrade", SAFE_DOWNGRADE: "safe downgrade", UNSAFE_DOWNGRADE: "unsafe downgrade"}
FAILED_PREFIX = "The update failed for all features since the following feature had an error: "
MIN_INSYNC_REPLICAS = "min.insync.replicas"
BROKER_RESOURCE = 4  # ConfigResource.Type.BROKER

Range = tuple[int, int]


def kafka_supported_features(unstable: bool = False) -> dict[str, Range]:
    """What a Kafka 4.2.1 controller supports (``QuorumFeatures.defaultSupportedFeatureMap``), with
    ``unstable.feature.versions.enable`` when ``unstable``: metadata.version up to ``latestTesting()``
    (4.3-IV0, level 30), each feature up to its ``latestTesting()``. Only ``PRODUCTION_FEATURES``
    are in the map either way: no node supports Kafka's test features."""
    supported = {METADATA_VERSION: (MINIMUM_LEVEL, LATEST_TESTING_LEVEL if unstable else LATEST_PRODUCTION_LEVEL)}
    for name, known in FEATURES.items():
        low, high = known.supported_range(unstable=unstable)
        if high > 0:
            supported[name] = (low, high)
    return supported


def range_text(supported: Range) -> str:
    """Kafka's ``VersionRange.toString()``: ``7-29``, or ``0`` when both ends are equal."""
    low, high = supported
    return str(low) if low == high else f"{low}+" if high == 32767 else f"{low}-{high}"


@dataclass
class ClusterFeatures:
    """What the controller knows when it judges an UpdateFeatures request.

    ``finalized`` holds the features other than metadata.version and kraft.version that are above
    level 0. ``brokers`` and ``controllers`` map node ids to the ranges each registered, in the order
    they registered. ``node_id`` is the active controller, whose own software supports
    ``local_supported`` (Kafka 4.2.1's ranges when None). ``quorum_node_ids`` are the voters.
    """

    metadata_version: int
    finalized: dict[str, int] = field(default_factory=dict)
    kraft_version: int = 0
    brokers: dict[int, dict[str, Range]] = field(default_factory=dict)
    controllers: dict[int, dict[str, Range]] = field(default_factory=dict)
    quorum_node_ids: tuple[int, ...] = ()
    node_id: int = 0
    local_supported: dict[str, Range] | None = None
    #: how node_id was found ("" when nothing named a leader or a voter: then 0 stands in for it)
    node_id_from: str = ""
    #: whose registration gave local_supported ("controller", or "broker" for a combined node below
    #: 3.7-IV0, where controllers cannot register)
    local_supported_from: str = ""
    epoch: int = -1  # the finalized features' epoch: the offset of the last record applied
    # for turning eligible leader replicas on: min.insync.replicas moves from brokers to the cluster
    cluster_min_insync_replicas: str | None = None  # the cluster-level (broker "") value, if set
    broker_min_insync_replicas: dict[int, str] = field(default_factory=dict)  # broker-level values
    brokers_with_configs: tuple[int, ...] = ()  # every broker with a config, in the order it got its first
    static_min_insync_replicas: int = 1  # the controller's min.insync.replicas property (Kafka's default 1)
    # for a kraft.version upgrade: the voters as the raft leader knows them, id -> (directory id or None,
    # supported kraft.version range); from the VotersRecord at kraft.version 1. At kraft.version 0 the log has
    # none: ``updated_voters`` are what voters told the leader through UpdateRaftVoter (kwire.features.kraft_upgrade)
    raft_voters: dict[int, tuple[Any, Range]] | None = None
    updated_voters: dict[int, tuple[Any, Range]] = field(default_factory=dict)
    unstable: bool = False  # the controller runs with unstable.feature.versions.enable (for Kafka 4.2.1's ranges)

    def current_level(self, name: str) -> int:
        if name == METADATA_VERSION:
            return self.metadata_version
        if name == KRAFT_VERSION:
            return self.kraft_version
        return self.finalized.get(name, 0)

    def finalized_levels(self) -> dict[str, int]:
        """metadata.version and every feature above level 0, kraft.version included."""
        levels = {METADATA_VERSION: self.metadata_version, **self.finalized}
        if self.kraft_version:
            levels[KRAFT_VERSION] = self.kraft_version
        return dict(sorted(levels.items()))


@dataclass
class Verdict:
    """The controller's answer: the response (at the request's version) and what it would append."""

    response: Any  # kwire.generated.UpdateFeaturesResponse
    version: int
    records: list[MetadataRecord]
    refused_feature: str | None = None
    notes: list[str] = field(default_factory=list)
    #: what the controller would append were the request not ValidateOnly (``records`` otherwise)
    would_append: list[MetadataRecord] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        return self.response.error_code == NONE


class _Refused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _invalid(name: str, level: int, reason: str) -> _Refused:
    return _Refused(f"Invalid update version {level} for feature {name}. {reason}")


def _reason_not_supported(level: int, who: str, supported: Range) -> str | None:
    """``QuorumFeatures.reasonNotSupported``."""
    low, high = supported
    if low <= level <= high:
        return None
    if high == 0:
        return f"{who} does not support this feature."
    return f"{who} only supports versions {range_text(supported)}"


class _Judge:
    def __init__(self, state: ClusterFeatures, updates: dict[str, int]) -> None:
        self.state = state
        self.proposed = {**state.finalized, METADATA_VERSION: state.metadata_version, **updates}
        self.records: list[MetadataRecord] = []
        self.notes: list[str] = []

    def not_supported(self, name: str, level: int) -> str | None:
        state = self.state
        local = state.local_supported if state.local_supported is not None else kafka_supported_features(state.unstable)
        reason = _reason_not_supported(level, f"Local controller {state.node_id}", local.get(name, (0, 0)))
        if reason:
            return reason
        for broker in timeline_hash_order(list(state.brokers)):
            reason = _reason_not_supported(level, f"Broker {broker}", state.brokers[broker].get(name, (0, 0)))
            if reason:
                return reason
        registration = from_level(GATES["isControllerRegistrationSupported"])
        if state.metadata_version < registration.level:
            self.notes.append(f"controllers cannot register below metadata.version {registration}: their support "
                              f"for {name} {level} was not checked (nor does Kafka check it)")
            return None
        found = {state.node_id}
        for controller in timeline_hash_order(list(state.controllers)):
            if controller == state.node_id:
                continue
            reason = _reason_not_supported(level, f"Controller {controller}",
                                           state.controllers[controller].get(name, (0, 0)))
            if reason:
                return reason
            found.add(controller)
        for voter in state.quorum_node_ids:
            if voter not in found:
                return f"controller {voter} has not registered, and may not support this feature"
        return None

    def update(self, name: str, level: int, upgrade_type: int) -> None:
        if upgrade_type not in UPGRADE_TYPES:
            raise _invalid(name, level, "The controller does not support the given upgrade type.")
        current = self.state.current_level(name)
        if level < 0:
            raise _invalid(name, level, "A feature version cannot be less than 0.")
        reason = self.not_supported(name, level)
        if reason:
            raise _invalid(name, level, reason)
        if level < current and upgrade_type == UPGRADE:
            raise _invalid(name, level, "Can't downgrade the version of this feature without setting the "
                                        "upgrade type to either safe or unsafe downgrade.")
        if level > current and upgrade_type != UPGRADE:
            raise _invalid(name, level, "Can't downgrade to a newer version.")
        if name == METADATA_VERSION:
            self.metadata_version(level, upgrade_type == UNSAFE_DOWNGRADE)
        elif name == KRAFT_VERSION:
            self.kraft_version(level, current, upgrade_type)
        else:
            self.other_feature(name, level)

    def metadata_version(self, level: int, unsafe: bool) -> None:
        current = self.state.metadata_version
        if not MINIMUM_LEVEL <= level <= LATEST_TESTING_LEVEL:  # MetadataVersion.fromFeatureLevel fails
            raise _Refused(f"Invalid metadata.version {level}. Valid versions are from {MINIMUM_LEVEL} to "
                           f"{LATEST_TESTING_LEVEL}.")
        if level < current and metadata_changed_between(current, level):
            why = ("Unsafe metadata downgrade is not supported in this version." if unsafe else
                   "Refusing to perform the requested downgrade because it might delete metadata information.")
            raise _Refused(f"Unsupported metadata.version downgrade from {current} to {level}. {why}")
        self.records.append(_feature_level_record(METADATA_VERSION, level))

    def kraft_version(self, level: int, current: int, upgrade_type: int) -> None:
        if upgrade_type != UPGRADE:
            if level != current:
                raise _invalid(KRAFT_VERSION, level, "Can't downgrade the version of this feature.")
            return
        if level != current:
            # the raft leader judges it: LeaderState.maybeAppendUpgradedKRaftVersion (kwire.features.kraft_upgrade)
            from .kraft_upgrade import judge_kraft_upgrade

            refusal = judge_kraft_upgrade(self.state, level, current)
            self.notes.extend(refusal.notes)
            if refusal.message is not None:
                raise _Refused(refusal.message)
        # the raft layer appends a KRaftVersionRecord control record; the controller a NoOpRecord to wait on
        from kwire.generated.no_op_record import NoOpRecord

        self.records.append(MetadataRecord(NoOpRecord(), 0))

    def other_feature(self, name: str, level: int) -> None:
        known = FEATURES.get(name) or TEST_FEATURES.get(name)
        if known is None:
            raise _invalid(name, level, f"Feature {name} not found.")
        try:
            feature_level = known.level(level, unstable=True)
        except FeatureError as err:
            raise _invalid(name, level, str(err)) from None
        reason = validate_level(feature_level, self.proposed)
        if reason:
            raise _invalid(name, level, reason)
        self.records.append(_feature_level_record(name, level))


def _feature_level_record(name: str, level: int) -> MetadataRecord:
    from kwire.generated.feature_level_record import FeatureLevelRecord

    return MetadataRecord(FeatureLevelRecord(name=name, feature_level=level), 0)


def judge_update_features(state: ClusterFeatures, request: Any, version: int) -> Verdict:
    """The UpdateFeaturesResponse Kafka 4.2.1's controller returns for ``request`` (a
    :class:`kwire.generated.UpdateFeaturesRequest` sent at ``version``) and the records it appends."""
    from kwire.generated import UpdateFeaturesRequest, UpdateFeaturesResponse
    from kwire.generated.update_features_response import UpdatableFeatureResult

    low, high = UpdateFeaturesRequest.VALID_VERSIONS
    if not low <= version <= high:
        raise FeatureError(f"UpdateFeaturesRequest has no version {version} (valid: {low}..{high})")
    # what the controller reads is what the bytes carry at this version (v0 has no UpgradeType)
    request = UpdateFeaturesRequest.decode(request.encode(version), version)
    updates: dict[str, int] = {}
    upgrade_types: dict[str, int] = {}
    for update in request.feature_updates:
        updates[update.feature] = update.max_version_level
        upgrade_types[update.feature] = update.upgrade_type
    judge = _Judge(state, updates)
    for name in hash_map_order(updates):
        try:
            judge.update(name, updates[name], upgrade_types[name])
        except _Refused as refusal:
            response = UpdateFeaturesResponse(error_code=INVALID_UPDATE_VERSION,
                                              error_message=FAILED_PREFIX + refusal.message)
            return Verdict(response, version, [], name, judge.notes)
    full = judge.records
    if full and updates.get(ELIGIBLE_LEADER_REPLICAS_VERSION, 0) > 0:
        full = _elr_safety_records(state) + full
        if state.cluster_min_insync_replicas is None:
            judge.notes.append(f"the cluster-level {MIN_INSYNC_REPLICAS} comes from the controller's own property, "
                               f"taken as {state.static_min_insync_replicas}")
    response = UpdateFeaturesResponse(error_code=NONE, error_message=None)
    if version <= 1:
        response.results.extend(UpdatableFeatureResult(feature=update.feature, error_code=NONE, error_message="NONE")
                                for update in request.feature_updates)
    return Verdict(response, version, [] if request.validate_only else full, None, judge.notes, full)


def _elr_safety_records(state: ClusterFeatures) -> list[MetadataRecord]:
    """``ConfigurationControlManager.maybeGenerateElrSafetyRecords``: with eligible leader replicas,
    min.insync.replicas is a cluster-level setting only. The controller sets it at cluster level
    (from its own property) unless it is set there, and removes every broker-level one."""
    from kwire.generated.config_record import ConfigRecord

    records = []
    if state.cluster_min_insync_replicas is None:
        records.append(MetadataRecord(ConfigRecord(resource_type=BROKER_RESOURCE, resource_name="",
                                                   name=MIN_INSYNC_REPLICAS,
                                                   value=str(state.static_min_insync_replicas)), 0))
    order = state.brokers_with_configs or tuple(state.broker_min_insync_replicas)
    for broker in timeline_hash_order(list(order)):
        if broker in state.broker_min_insync_replicas:
            records.append(MetadataRecord(ConfigRecord(resource_type=BROKER_RESOURCE, resource_name=str(broker),
                                                       name=MIN_INSYNC_REPLICAS, value=None), 0))
    return records


def update_request(updates: Mapping[str, int] | Sequence[tuple[str, int]], *, upgrade_type: int = UPGRADE,
                   validate_only: bool = False, allow_downgrade: bool = False, timeout_ms: int = 60000) -> Any:
    """An UpdateFeaturesRequest setting each feature to its level with one upgrade type (v1+), or
    with ``allow_downgrade`` for a v0 request."""
    from kwire.generated import UpdateFeaturesRequest
    from kwire.generated.update_features_request import FeatureUpdateKey

    pairs = list(updates.items()) if isinstance(updates, Mapping) else list(updates)
    return UpdateFeaturesRequest(
        timeout_ms=timeout_ms, validate_only=validate_only,
        feature_updates=[FeatureUpdateKey(feature=name, max_version_level=level, upgrade_type=upgrade_type,
                                          allow_downgrade=allow_downgrade) for name, level in pairs])

