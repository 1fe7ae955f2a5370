"""``metadata.version``: every KRaft level, its release name, and the rules Kafka gates on it.

A level is a row of :data:`METADATA_VERSIONS` (a :class:`MetadataVersion`): feature level, the
release and internal version it is named by (``3.6-IV2``), and whether its introduction changed the
metadata (``didMetadataChange``, which decides whether a downgrade across it is safe). Levels 7 to
29 are those of Kafka 4.2.1; levels 1 to 6 are those of Kafka 3.9 (Kafka 4.x no longer knows them:
its minimum is 3.3-IV3). A level's name and meaning never change once a release shipped it as
production; the levels a release still marked unstable may (Kafka 4.2.1's unstable 4.3-IV0, level
30, is not Kafka 4.3's 4.3-IV0), so kwire stops at 4.2.1's newest production level.

The rules are Kafka's ``MetadataVersion`` methods, kept as data: :data:`GATES` gives the first
level at which each ``is...Supported`` method is true, and :data:`RECORD_VERSIONS` the version of
each metadata record Kafka writes at a level (``registerBrokerRecordVersion()``,
``partitionRecordVersion()``, ...), or that it writes none (the record does not exist yet there).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .errors import FeatureError

FEATURE_NAME = "metadata.version"
#: The Kafka release whose sources these tables follow (git tag ``4.2.1``, commit 18d5ecd939c8).
KAFKA_RELEASE = "4.2.1"


@dataclass(frozen=True, order=True)
class MetadataVersion:
    """One metadata.version level. Ordered by level; ``str()`` is Kafka's name (``3.6-IV2``)."""

    level: int
    release: str  # "3.6": the Kafka release that introduced the level
    internal_version: str  # "IV2"
    did_metadata_change: bool

    @property
    def name(self) -> str:
        return f"{self.release}-{self.internal_version}"

    def __str__(self) -> str:
        return self.name

    def describe(self) -> str:
        """``14 (3.6-IV2)``: level and name together, as messages show them."""
        return f"{self.level} ({self.name})"

    def is_at_least(self, other: MetadataVersion | int | str) -> bool:
        return self.level >= metadata_version(other).level

    def supports(self, gate: str) -> bool:
        """Whether Kafka's ``MetadataVersion.<gate>()`` is true at this level (see :data:`GATES`)."""
        try:
            first = GATES[gate]
        except KeyError:
            raise FeatureError(f"unknown metadata.version rule {gate!r}; known: {', '.join(GATES)}") from None
        return self.level >= first

    # Kafka's MetadataVersion methods, by their own names in snake_case.
    @property
    def is_leader_recovery_supported(self) -> bool:
        return self.supports("isLeaderRecoverySupported")

    @property
    def is_noop_record_supported(self) -> bool:
        return self.supports("isNoOpRecordSupported")

    @property
    def is_broker_registration_change_record_supported(self) -> bool:
        return self.supports("isBrokerRegistrationChangeRecordSupported")

    @property
    def is_in_controlled_shutdown_state_supported(self) -> bool:
        return self.supports("isInControlledShutdownStateSupported")

    @property
    def is_migration_supported(self) -> bool:
        return self.supports("isMigrationSupported")

    @property
    def is_scram_supported(self) -> bool:
        return self.supports("isScramSupported")

    @property
    def is_leader_epoch_bump_required_on_isr_shrink(self) -> bool:
        return self.level < LEADER_EPOCH_BUMP_ON_ISR_SHRINK_DROPPED_LEVEL

    @property
    def is_metadata_transaction_supported(self) -> bool:
        return self.supports("isMetadataTransactionSupported")

    @property
    def is_delegation_token_supported(self) -> bool:
        return self.supports("isDelegationTokenSupported")

    @property
    def is_controller_registration_supported(self) -> bool:
        return self.supports("isControllerRegistrationSupported")

    @property
    def is_directory_assignment_supported(self) -> bool:
        return self.supports("isDirectoryAssignmentSupported")

    @property
    def is_elr_supported(self) -> bool:
        return self.supports("isElrSupported")

    @property
    def is_feature_level_record_supported(self) -> bool:
        """FeatureLevelRecord exists from 3.3-IV0 (Kafka's ``MINIMUM_BOOTSTRAP_VERSION``)."""
        return self.level >= MINIMUM_BOOTSTRAP_LEVEL

    @property
    def is_production(self) -> bool:
        """Production-ready in Kafka 4.2.1 (at or below its ``LATEST_PRODUCTION``)."""
        return self.level <= LATEST_PRODUCTION_LEVEL

    def record_version(self, record: str) -> int | None:
        """The version of metadata record ``record`` Kafka writes at this level, None if it writes none."""
        try:
            steps = RECORD_VERSIONS[record]
        except KeyError:
            raise FeatureError(f"{record!r} is not a KRaft metadata record kwire knows") from None
        version = None
        for first_level, step_version in steps:
            if self.level >= first_level:
                version = step_version
        return version

    def writes(self, record: str) -> bool:
        """Whether Kafka writes ``record`` at all at this level."""
        return self.record_version(record) is not None

    # the version-returning methods of Kafka's MetadataVersion
    def register_broker_record_version(self) -> int:
        return self._written("RegisterBrokerRecord")

    def partition_record_version(self) -> int:
        return self._written("PartitionRecord")

    def partition_change_record_version(self) -> int:
        return self._written("PartitionChangeRecord")

    def register_controller_record_version(self) -> int:
        """0 from 3.7-IV0; below it Kafka throws, and so does kwire (a :class:`FeatureError`)."""
        return self._written("RegisterControllerRecord")

    def _written(self, record: str) -> int:
        version = self.record_version(record)
        if version is None:
            raise FeatureError(f"{record} is not written in metadata.version {self}")
        return version


_V = MetadataVersion
#: Every KRaft metadata.version level, oldest first (levels 1-6 from Kafka 3.9, 7-29 from 4.2.1).
METADATA_VERSIONS: tuple[MetadataVersion, ...] = (
    _V(1, "3.0", "IV1", True),    # ListOffsets v7 (KIP-734); message format 3.0 assumed (KIP-724)
    _V(2, "3.1", "IV0", False),   # topic ids in Fetch (KIP-516)
    _V(3, "3.2", "IV0", True),    # leader recovery state (KIP-704)
    _V(4, "3.3", "IV0", False),   # metadata.version as a feature; FeatureLevelRecord (KIP-778)
    _V(5, "3.3", "IV1", True),    # NoOpRecord (KIP-835)
    _V(6, "3.3", "IV2", True),    # BrokerRegistrationChangeRecord replaces Fence/UnfenceBrokerRecord
    _V(7, "3.3", "IV3", True),    # InControlledShutdown in broker registrations (KIP-841)
    _V(8, "3.4", "IV0", True),    # ZooKeeper migration (KIP-866): ZkMigrationStateRecord, RegisterBroker v2
    _V(9, "3.5", "IV0", False),   # tiered storage (KIP-405)
    _V(10, "3.5", "IV1", False),  # replica epoch in Fetch (KIP-903)
    _V(11, "3.5", "IV2", True),   # SCRAM credentials in KRaft
    _V(12, "3.6", "IV0", False),  # no leader epoch bump when the ISR shrinks (KAFKA-15021)
    _V(13, "3.6", "IV1", True),   # metadata transactions
    _V(14, "3.6", "IV2", True),   # delegation tokens in KRaft
    _V(15, "3.7", "IV0", True),   # controller registration (KIP-919)
    _V(16, "3.7", "IV1", False),  # reserved
    _V(17, "3.7", "IV2", True),   # JBOD in KRaft: directories in registrations and partitions (KIP-858)
    _V(18, "3.7", "IV3", False),  # reserved once for ELR, never reused
    _V(19, "3.7", "IV4", False),  # Fetch for KIP-951
    _V(20, "3.8", "IV0", False),  # the 3.8.0 release
    _V(21, "3.9", "IV0", False),  # ListOffsets v9 (KIP-1005)
    _V(22, "4.0", "IV0", False),  # default level for group.version 1 (KIP-848)
    _V(23, "4.0", "IV1", True),   # eligible leader replicas (KIP-966): Partition(Change)Record v2, ClearElrRecord
    _V(24, "4.0", "IV2", False),  # default level for transaction.version 1 and 2 (KIP-890)
    _V(25, "4.0", "IV3", False),  # asynchronous remote ListOffsets (KIP-1075)
    _V(26, "4.1", "IV0", False),  # ELR on by default for new clusters
    _V(27, "4.1", "IV1", False),  # Fetch v18 in the replica fetcher (KIP-1166)
    _V(28, "4.2", "IV0", False),  # share groups on by default for new clusters (KIP-932)
    _V(29, "4.2", "IV1", False),  # streams groups on by default for new clusters (KIP-1071)
)
del _V

#: Kafka's ``MINIMUM_KRAFT_VERSION`` (3.x): the first KRaft level.
MINIMUM_KRAFT_LEVEL = 1
#: Kafka's ``MINIMUM_BOOTSTRAP_VERSION`` (3.x): the first level that can be stored in the log.
MINIMUM_BOOTSTRAP_LEVEL = 4
#: Kafka 4.x's ``MINIMUM_VERSION`` (3.3-IV3): the lowest level Kafka 4.x reads or accepts.
MINIMUM_LEVEL = 7
#: Kafka 4.2.1's ``LATEST_PRODUCTION`` (4.2-IV1).
LATEST_PRODUCTION_LEVEL = 29
#: Kafka 4.2.1's ``latestTesting()``: its unstable 4.3-IV0, which kwire knows only as this number.
LATEST_TESTING_LEVEL = 30
#: ``isLeaderEpochBumpRequiredOnIsrShrink()`` is true below this level (3.6-IV0) only.
LEADER_EPOCH_BUMP_ON_ISR_SHRINK_DROPPED_LEVEL = 12

#: Kafka's ``is...Supported()`` methods: the first level at which each is true.
GATES: Mapping[str, int] = MappingProxyType({
    "isLeaderRecoverySupported": 3,
    "isNoOpRecordSupported": 5,
    "isBrokerRegistrationChangeRecordSupported": 6,
    "isInControlledShutdownStateSupported": 7,
    "isMigrationSupported": 8,
    "isApiForwardingEnabled": 8,
    "isScramSupported": 11,
    "isMetadataTransactionSupported": 13,
    "isDelegationTokenSupported": 14,
    "isControllerRegistrationSupported": 15,
    "isDirectoryAssignmentSupported": 17,
    "isElrSupported": 23,
})

#: Metadata record -> ((first level, version written from there), ...); version None: not written
#: from that level on. A record with no step at or below a level is not written at that level.
#: Only the versions Kafka chooses by level are here; every other record is written at v0.
RECORD_VERSIONS: Mapping[str, tuple[tuple[int, int | None], ...]] = MappingProxyType({
    # v1 InControlledShutdown, v2 IsMigratingZkBroker, v3 LogDirs
    "RegisterBrokerRecord": ((1, 0), (7, 1), (8, 2), (17, 3)),
    "UnregisterBrokerRecord": ((1, 0),),
    "TopicRecord": ((1, 0),),
    "PartitionRecord": ((1, 0), (17, 1), (23, 2)),  # v1 Directories, v2 ELR
    "ConfigRecord": ((1, 0),),
    "PartitionChangeRecord": ((1, 0), (17, 1), (23, 2)),
    # fencing is a BrokerRegistrationChangeRecord from 3.3-IV2 on
    "FenceBrokerRecord": ((1, 0), (6, None)),
    "UnfenceBrokerRecord": ((1, 0), (6, None)),
    "RemoveTopicRecord": ((1, 0),),
    "DelegationTokenRecord": ((14, 0),),
    "UserScramCredentialRecord": ((11, 0),),
    "FeatureLevelRecord": ((MINIMUM_BOOTSTRAP_LEVEL, 0),),
    "ClientQuotaRecord": ((1, 0),),
    "ProducerIdsRecord": ((1, 0),),
    # the highest version written: v0 fences/unfences, v1 adds InControlledShutdown, v2 LogDirs
    "BrokerRegistrationChangeRecord": ((6, 0), (7, 1), (17, 2)),
    "AccessControlEntryRecord": ((1, 0),),
    "RemoveAccessControlEntryRecord": ((1, 0),),
    "NoOpRecord": ((5, 0),),
    # from 3.4-IV0 in Kafka 3.x; Kafka 4.x writes none at any level (it removed the migration)
    "ZkMigrationStateRecord": ((8, 0),),
    "RemoveUserScramCredentialRecord": ((11, 0),),
    "BeginTransactionRecord": ((13, 0),),
    "EndTransactionRecord": ((13, 0),),
    "AbortTransactionRecord": ((13, 0),),
    "RemoveDelegationTokenRecord": ((14, 0),),
    "RegisterControllerRecord": ((15, 0),),
    # written only while eligible.leader.replicas.version is 1 or more, which needs 4.0-IV1
    "ClearElrRecord": ((23, 0),),
    # newer than Kafka 4.2.1: no level kwire knows writes it
    "UnregisterControllerRecord": (),
})

_BY_LEVEL = {mv.level: mv for mv in METADATA_VERSIONS}
_BY_NAME = {mv.name: mv for mv in METADATA_VERSIONS}
# "3.6" -> its newest level (Kafka maps a release to its latest production internal version)
_BY_RELEASE = {mv.release: mv for mv in METADATA_VERSIONS if mv.is_production}
_RELEASE_SHAPE = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)*$")

LATEST_PRODUCTION = _BY_LEVEL[LATEST_PRODUCTION_LEVEL]
LATEST = METADATA_VERSIONS[-1]


def known_range() -> str:
    """``1 (3.0-IV1) to 29 (4.2-IV1)``: the levels kwire knows, for messages."""
    return f"{METADATA_VERSIONS[0].describe()} to {LATEST.describe()}"


def from_level(level: int) -> MetadataVersion:
    """The metadata.version with feature level ``level``."""
    try:
        return _BY_LEVEL[level]
    except (KeyError, TypeError):
        raise FeatureError(f"no metadata.version has feature level {level!r}: kwire knows levels "
                           f"{known_range()} (the newest), as Kafka {KAFKA_RELEASE} defines them") from None


def metadata_version(value: MetadataVersion | int | str) -> MetadataVersion:
    """Parse a metadata.version: ``3.6-IV2``, a release ``3.6`` (its newest level; ``3.6.1`` as
    Kafka reads it, the first two parts only), a bare level ``14`` (or ``"14"``), or a
    :class:`MetadataVersion` as it is."""
    if isinstance(value, MetadataVersion):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return from_level(value)
    if not isinstance(value, str):
        raise _unknown(value)
    text = value.strip()
    if text.isdigit():
        return from_level(int(text))
    if text in _BY_NAME:
        return _BY_NAME[text]
    shape = _RELEASE_SHAPE.match(text)
    if shape and f"{shape.group(1)}.{shape.group(2)}" in _BY_RELEASE:
        return _BY_RELEASE[f"{shape.group(1)}.{shape.group(2)}"]
    raise _unknown(value)


def _unknown(value: object) -> FeatureError:
    return FeatureError(f"unknown metadata.version {value!r}: kwire knows levels {known_range()} (the newest), "
                        f"as Kafka {KAFKA_RELEASE} defines them; name one like 3.6-IV2, 3.6 (that release's "
                        f"newest) or 14")


def metadata_changed_between(a: MetadataVersion | int | str, b: MetadataVersion | int | str) -> bool:
    """Kafka's ``checkIfMetadataChanged``: whether any level above the lower of the two, up to the
    higher, changed the metadata (a downgrade across such a level may lose information)."""
    low, high = sorted((metadata_version(a), metadata_version(b)))
    return any(mv.did_metadata_change for mv in METADATA_VERSIONS if low.level < mv.level <= high.level)


def release_of(value: MetadataVersion | int | str) -> str:
    """The Kafka release a level belongs to (``14`` -> ``3.6``)."""
    return metadata_version(value).release
