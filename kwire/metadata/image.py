"""Kafka's metadata image: the cluster state a metadata log and its snapshots describe.

The parts follow Kafka's ``org.apache.kafka.image`` (``MetadataImage``: features, cluster, topics,
configs, client quotas, producer ids, ACLs, SCRAM credentials, delegation tokens) plus what the
raft layer keeps beside it (:class:`QuorumImage`: kraft.version, voters, the leader of each
epoch). As Kafka's, an image never changes: every part is a frozen dataclass and every map in it
a read-only view (``MappingProxyType``); the next image is made by a
:class:`kwire.metadata.delta.MetadataDelta`. Maps compare equal when they hold the same entries,
whatever their order, as Kafka's maps do; their insertion order is kept only to write records back
in Kafka's order (:mod:`kwire.features.java_order`).

This module imports nothing of the package: the delta builds images, the describer prints them.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, TypeVar
from uuid import UUID

K = TypeVar("K")
V = TypeVar("V")

#: ``DirectoryId.MIGRATING``: a replica whose directory is not known yet (before JBOD on KRaft).
DIRECTORY_MIGRATING = UUID(int=0)
#: Leader id meaning "no leader".
NO_LEADER = -1

#: ZkMigrationState values (KIP-866) and the names Kafka prints; note 1 is MIGRATION, 2 PRE_MIGRATION.
ZK_MIGRATION_STATES = {0: "NONE", 1: "MIGRATION", 2: "PRE_MIGRATION", 3: "POST_MIGRATION", 4: "ZK"}
LEADER_RECOVERY_STATES = {0: "RECOVERED", 1: "RECOVERING"}
#: ScramMechanism types and names (``org.apache.kafka.clients.admin.ScramMechanism``).
SCRAM_MECHANISMS = {0: "UNKNOWN", 1: "SCRAM_SHA_256", 2: "SCRAM_SHA_512"}
#: ConfigResource.Type ids and names.
CONFIG_RESOURCE_TYPES = {0: "UNKNOWN", 2: "TOPIC", 4: "BROKER", 8: "BROKER_LOGGER", 16: "CLIENT_METRICS", 32: "GROUP"}


def frozen_map(mapping: Mapping[K, V] | None = None) -> Mapping[K, V]:
    """A read-only view of ``mapping``: itself when it already is one, else of a copy (so the
    caller's dict, changed later, does not change the image)."""
    if isinstance(mapping, MappingProxyType):
        return mapping
    return MappingProxyType(dict(mapping or {}))


def _freeze_maps(part: Any, names: tuple[str, ...], nested: tuple[str, ...] = ()) -> None:
    """Make the map fields ``names`` of a frozen dataclass read-only views (``nested``: fields whose
    values are maps too). A view passes as it is: deltas hand over views of maps they built."""
    for name in names:
        value = getattr(part, name)
        if type(value) is MappingProxyType:
            continue
        if name in nested:
            value = {key: frozen_map(inner) for key, inner in value.items()}
        object.__setattr__(part, name, frozen_map(value))


def uuid_sort_key(value: UUID) -> tuple[int, int]:
    """``Uuid.compareTo``: the two halves compared as signed longs."""
    def signed(half: int) -> int:
        return half - (1 << 64) if half >= 1 << 63 else half

    return signed(value.int >> 64), signed(value.int & 0xFFFF_FFFF_FFFF_FFFF)


# ----------------------------------------------------------------------------------- features


@dataclass(frozen=True)
class FeaturesImage:
    """Finalized feature levels: metadata.version apart (None until a FeatureLevelRecord sets it;
    Kafka then assumes 3.0-IV1, level 1), the other features by name, and the ZK migration state."""

    metadata_version: int | None = None
    finalized: Mapping[str, int] = field(default_factory=frozen_map)
    zk_migration_state: int = 0

    def __post_init__(self) -> None:
        _freeze_maps(self, ("finalized",))

    def is_empty(self) -> bool:
        return self.metadata_version is None and not self.finalized and self.zk_migration_state == 0


# ------------------------------------------------------------------------------------ cluster


@dataclass(frozen=True)
class Endpoint:
    """One listener of a registration (Kafka's ``org.apache.kafka.common.Endpoint``), keyed by its name."""

    host: str
    port: int
    security_protocol: int


@dataclass(frozen=True)
class VersionRange:
    """A supported feature's levels (``org.apache.kafka.metadata.VersionRange``), both ends included."""

    min: int
    max: int


@dataclass(frozen=True)
class BrokerRegistration:
    """One registered broker (``org.apache.kafka.metadata.BrokerRegistration``)."""

    id: int
    epoch: int
    incarnation_id: UUID
    listeners: Mapping[str, Endpoint]
    supported_features: Mapping[str, VersionRange]
    rack: str | None
    fenced: bool
    in_controlled_shutdown: bool
    is_migrating_zk_broker: bool
    directories: tuple[UUID, ...]  # sorted as Kafka sorts them (Uuid.compareTo)

    def __post_init__(self) -> None:
        _freeze_maps(self, ("listeners", "supported_features"))

    def changed(self, *, fenced: bool | None = None, in_controlled_shutdown: bool | None = None,
                directories: tuple[UUID, ...] | None = None) -> BrokerRegistration:
        """``cloneWith``: the same registration with the given states changed."""
        return replace(
            self,
            fenced=self.fenced if fenced is None else fenced,
            in_controlled_shutdown=self.in_controlled_shutdown if in_controlled_shutdown is None
            else in_controlled_shutdown,
            directories=self.directories if directories is None else tuple(sorted(directories, key=uuid_sort_key)),
        )


@dataclass(frozen=True)
class ControllerRegistration:
    """One registered controller (KIP-919, ``org.apache.kafka.metadata.ControllerRegistration``)."""

    id: int
    incarnation_id: UUID
    zk_migration_ready: bool
    listeners: Mapping[str, Endpoint]
    supported_features: Mapping[str, VersionRange]

    def __post_init__(self) -> None:
        _freeze_maps(self, ("listeners", "supported_features"))


@dataclass(frozen=True)
class ClusterImage:
    brokers: Mapping[int, BrokerRegistration] = field(default_factory=frozen_map)
    controllers: Mapping[int, ControllerRegistration] = field(default_factory=frozen_map)

    def __post_init__(self) -> None:
        _freeze_maps(self, ("brokers", "controllers"))


# ------------------------------------------------------------------------------------- topics


@dataclass(frozen=True)
class PartitionRegistration:
    """One partition (``org.apache.kafka.metadata.PartitionRegistration``)."""

    replicas: tuple[int, ...]
    directories: tuple[UUID, ...]
    isr: tuple[int, ...]
    removing_replicas: tuple[int, ...]
    adding_replicas: tuple[int, ...]
    elr: tuple[int, ...]
    last_known_elr: tuple[int, ...]
    leader: int
    leader_recovery_state: int
    leader_epoch: int
    partition_epoch: int


@dataclass(frozen=True)
class TopicImage:
    name: str
    id: UUID
    partitions: Mapping[int, PartitionRegistration] = field(default_factory=frozen_map)

    def __post_init__(self) -> None:
        _freeze_maps(self, ("partitions",))


@dataclass(frozen=True)
class TopicsImage:
    by_id: Mapping[UUID, TopicImage] = field(default_factory=frozen_map)

    def __post_init__(self) -> None:
        _freeze_maps(self, ("by_id",))

    def by_name(self, name: str) -> TopicImage | None:
        for topic in self.by_id.values():
            if topic.name == name:
                return topic
        return None


# ----------------------------------------------------------------------- configs and quotas


ConfigResource = tuple[int, str]  # (resource type id, resource name)
ClientQuotaEntity = tuple[tuple[str, str | None], ...]  # (entity type, entity name) in record order


@dataclass(frozen=True)
class ConfigurationsImage:
    resources: Mapping[ConfigResource, Mapping[str, str]] = field(default_factory=frozen_map)

    def __post_init__(self) -> None:
        _freeze_maps(self, ("resources",), nested=("resources",))


@dataclass(frozen=True)
class ClientQuotasImage:
    # keyed by the entity's parts as a frozenset (equal entities match whatever their order)
    entities: Mapping[frozenset[tuple[str, str | None]], ClientQuota] = field(default_factory=frozen_map)

    def __post_init__(self) -> None:
        _freeze_maps(self, ("entities",))


@dataclass(frozen=True)
class ClientQuota:
    entity: ClientQuotaEntity  # the parts in the order the first record gave them
    quotas: Mapping[str, float] = field(default_factory=frozen_map)

    def __post_init__(self) -> None:
        _freeze_maps(self, ("quotas",))


# ------------------------------------------------------------------------- security and ids


@dataclass(frozen=True)
class Acl:
    """One ACL (``StandardAcl``), codes as in AccessControlEntryRecord."""

    resource_type: int
    resource_name: str
    pattern_type: int
    principal: str
    host: str
    operation: int
    permission_type: int


@dataclass(frozen=True)
class ScramCredential:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int


@dataclass(frozen=True)
class DelegationToken:
    token_id: str
    owner: str
    requester: str
    renewers: tuple[str, ...]
    issue_timestamp: int
    max_timestamp: int
    expiration_timestamp: int


# ------------------------------------------------------------------------------------- quorum


@dataclass(frozen=True)
class Voter:
    """One voter of a VotersRecord (kraft.version 1): id, directory id, endpoints, kraft.version range."""

    id: int
    directory_id: UUID
    endpoints: tuple[tuple[str, str, int], ...]  # (listener name, host, port)
    kraft_version: VersionRange


@dataclass(frozen=True)
class LeaderEpoch:
    """A LeaderChangeMessage: who led from ``offset`` on, in ``epoch``, elected by whom."""

    epoch: int
    leader_id: int
    offset: int
    voters: tuple[int, ...]
    granting_voters: tuple[int, ...]


@dataclass(frozen=True)
class QuorumImage:
    """The raft layer's state: kraft.version and voters (KIP-853 control records), leaders by epoch."""

    kraft_version: int = 0
    voters: tuple[Voter, ...] | None = None  # None: static quorum (controller.quorum.voters)
    leaders: tuple[LeaderEpoch, ...] = ()
    #: the directory's ``quorum-state`` (leader id, epoch) when it names a newer epoch than any
    #: LeaderChangeMessage replayed (the log that held it was cleaned); only for the image of now
    state_file_leader: tuple[int, int] | None = None

    @property
    def current_leader(self) -> tuple[int, int] | None:
        """(leader id, epoch) of the newest epoch known, from the log or ``quorum-state``."""
        if self.state_file_leader is not None:
            return self.state_file_leader
        return (self.leaders[-1].leader_id, self.leaders[-1].epoch) if self.leaders else None


# ------------------------------------------------------------------------------------- image


@dataclass(frozen=True)
class Provenance:
    """Where the image stands: the last offset it contains, its epoch and log timestamp."""

    last_offset: int = -1
    last_epoch: int = -1
    last_timestamp: int = -1


@dataclass(frozen=True)
class MetadataImage:
    features: FeaturesImage = field(default_factory=FeaturesImage)
    cluster: ClusterImage = field(default_factory=ClusterImage)
    topics: TopicsImage = field(default_factory=TopicsImage)
    configs: ConfigurationsImage = field(default_factory=ConfigurationsImage)
    client_quotas: ClientQuotasImage = field(default_factory=ClientQuotasImage)
    next_producer_id: int = -1  # ProducerIdsImage; -1 until a ProducerIdsRecord
    acls: Mapping[UUID, Acl] = field(default_factory=frozen_map)
    # mechanism -> user -> credential
    scram: Mapping[int, Mapping[str, ScramCredential]] = field(default_factory=frozen_map)
    delegation_tokens: Mapping[str, DelegationToken] = field(default_factory=frozen_map)
    quorum: QuorumImage = field(default_factory=QuorumImage)
    provenance: Provenance = field(default_factory=Provenance, compare=False)

    def __post_init__(self) -> None:
        _freeze_maps(self, ("acls", "scram", "delegation_tokens"), nested=("scram",))

    def same_metadata(self, other: MetadataImage) -> bool:
        """Equal in everything a snapshot's metadata records carry (the quorum and provenance aside)."""
        return all(getattr(self, name) == getattr(other, name) for name in METADATA_PARTS)


#: The parts a snapshot's metadata records hold, in the order Kafka writes them (MetadataImage.write).
METADATA_PARTS = ("features", "cluster", "topics", "configs", "client_quotas", "next_producer_id", "acls",
                  "scram", "delegation_tokens")
