"""Kafka's metadata image: the cluster state a metadata log and its snapshots describe.

The parts follow Kafka's ``org.apache.kafka.image`` (``MetadataImage``: features, cluster, topics,
configs, client quotas, producer ids, ACLs, SCRAM credentials, delegation tokens) plus what the
raft layer keeps beside it (:class:`QuorumImage`: kraft.version, voters, the leader of each
epoch). Maps are Python dicts: equal when they hold the same entries, whatever their order, as
Kafka's maps are; their insertion order is kept only to write records back in Kafka's order
(:mod:`kwire.features.java_order`).

:mod:`kwire.metadata.replay` builds an image record by record;
:func:`kwire.metadata.describe.image_to_json` gives the form ``kwire metadata image --json`` prints.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from uuid import UUID

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


def uuid_sort_key(value: UUID) -> tuple[int, int]:
    """``Uuid.compareTo``: the two halves compared as signed longs."""
    def signed(half: int) -> int:
        return half - (1 << 64) if half >= 1 << 63 else half

    return signed(value.int >> 64), signed(value.int & 0xFFFF_FFFF_FFFF_FFFF)


# ----------------------------------------------------------------------------------- features


@dataclass
class FeaturesImage:
    """Finalized feature levels: metadata.version apart (None until a FeatureLevelRecord sets it;
    Kafka then assumes 3.0-IV1, level 1), the other features by name, and the ZK migration state."""

    metadata_version: int | None = None
    finalized: dict[str, int] = field(default_factory=dict)
    zk_migration_state: int = 0

    def is_empty(self) -> bool:
        return self.metadata_version is None and not self.finalized and self.zk_migration_state == 0


# ------------------------------------------------------------------------------------ cluster


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int
    security_protocol: int


@dataclass(frozen=True)
class VersionRange:
    min: int
    max: int


@dataclass(frozen=True)
class BrokerRegistration:
    """One registered broker (``org.apache.kafka.metadata.BrokerRegistration``)."""

    id: int
    epoch: int
    incarnation_id: UUID
    listeners: dict[str, Endpoint]
    supported_features: dict[str, VersionRange]
    rack: str | None
    fenced: bool
    in_controlled_shutdown: bool
    is_migrating_zk_broker: bool
    directories: tuple[UUID, ...]  # sorted as Kafka sorts them (Uuid.compareTo)

    def changed(self, *, fenced: bool | None = None, in_controlled_shutdown: bool | None = None,
                directories: tuple[UUID, ...] | None = None) -> "BrokerRegistration":
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
    listeners: dict[str, Endpoint]
    supported_features: dict[str, VersionRange]


@dataclass
class ClusterImage:
    brokers: dict[int, BrokerRegistration] = field(default_factory=dict)
    controllers: dict[int, ControllerRegistration] = field(default_factory=dict)


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


@dataclass
class TopicImage:
    name: str
    id: UUID
    partitions: dict[int, PartitionRegistration] = field(default_factory=dict)


@dataclass
class TopicsImage:
    by_id: dict[UUID, TopicImage] = field(default_factory=dict)

    def by_name(self, name: str) -> TopicImage | None:
        for topic in self.by_id.values():
            if topic.name == name:
                return topic
        return None


# ----------------------------------------------------------------------- configs and quotas


ConfigResource = tuple[int, str]  # (resource type id, resource name)
ClientQuotaEntity = tuple[tuple[str, str | None], ...]  # (entity type, entity name) in record order


@dataclass
class ConfigurationsImage:
    resources: dict[ConfigResource, dict[str, str]] = field(default_factory=dict)


@dataclass
class ClientQuotasImage:
    # keyed by the entity's parts as a frozenset (equal entities match whatever their order)
    entities: dict[frozenset[tuple[str, str | None]], "ClientQuota"] = field(default_factory=dict)


@dataclass
class ClientQuota:
    entity: ClientQuotaEntity  # the parts in the order the first record gave them
    quotas: dict[str, float] = field(default_factory=dict)


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


@dataclass
class QuorumImage:
    """The raft layer's state: kraft.version and voters (KIP-853 control records), leaders by epoch."""

    kraft_version: int = 0
    voters: tuple[Voter, ...] | None = None  # None: static quorum (controller.quorum.voters)
    leaders: list[LeaderEpoch] = field(default_factory=list)
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


@dataclass
class Provenance:
    """Where the image stands: the last offset it contains, its epoch and log timestamp."""

    last_offset: int = -1
    last_epoch: int = -1
    last_timestamp: int = -1


@dataclass
class MetadataImage:
    features: FeaturesImage = field(default_factory=FeaturesImage)
    cluster: ClusterImage = field(default_factory=ClusterImage)
    topics: TopicsImage = field(default_factory=TopicsImage)
    configs: ConfigurationsImage = field(default_factory=ConfigurationsImage)
    client_quotas: ClientQuotasImage = field(default_factory=ClientQuotasImage)
    next_producer_id: int = -1  # ProducerIdsImage; -1 until a ProducerIdsRecord
    acls: dict[UUID, Acl] = field(default_factory=dict)
    scram: dict[int, dict[str, ScramCredential]] = field(default_factory=dict)  # mechanism -> user -> credential
    delegation_tokens: dict[str, DelegationToken] = field(default_factory=dict)
    quorum: QuorumImage = field(default_factory=QuorumImage)
    provenance: Provenance = field(default_factory=Provenance, compare=False)

    def same_metadata(self, other: "MetadataImage") -> bool:
        """Equal in everything a snapshot's metadata records carry (the quorum and provenance aside)."""
        return all(getattr(self, name) == getattr(other, name) for name in METADATA_PARTS)


#: The parts a snapshot's metadata records hold, in the order Kafka writes them (MetadataImage.write).
METADATA_PARTS = ("features", "cluster", "topics", "configs", "client_quotas", "next_producer_id", "acls",
                  "scram", "delegation_tokens")
