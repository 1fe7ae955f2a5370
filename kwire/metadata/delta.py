"""The changes a run of metadata records makes to an image: Kafka's ``MetadataDelta``.

A :class:`MetadataDelta` starts from an image, takes records (``replay``: the generated record
classes, one typed method each, as Kafka's ``MetadataDelta.replay`` overloads) into the per-part
delta each one changes, and ``apply()`` makes the next image; the image it started from does not
change. The loader (:mod:`kwire.metadata.loader`) commits one delta per batch or transaction and
drops an aborted transaction's.

Where a rule depends on where a delta began, ``release`` chooses: with a
:class:`kwire.features.releases.KafkaRelease`, that release's broker image (a RemoveTopicRecord
drops only the configs the image before the delta held; a ClearElrRecord for every topic clears
the topics the delta created from 4.1 on); without one, the controller's view
(``ConfigurationControlManager.deleteTopicConfigs``, ``ReplicationControlManager.replay(ClearElrRecord)``),
which acts on everything present and so gives the same image wherever deltas begin.

The rules are Kafka 3.9.0's, checked against 4.2.1's (ClearElrRecord from 4.x, which added it;
UnregisterControllerRecord from sources newer than 4.2.1, which has none). The image is one for
every release: where 4.2.1's deltas drop something on replay (a FeatureLevelRecord for
kraft.version, KAFKA-18979; the ZK migration state, which 4.x no longer keeps; configs it does not
define, KAFKA-19851), the image keeps it as 3.x does, and a 4.x writer leaves it out
(:mod:`kwire.metadata.writer`). Records Kafka refuses to replay raise
:class:`kwire.metadata.errors.ReplayError` with Kafka's own reason.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kwire.features.releases import KafkaRelease
from kwire.generated import (
    AccessControlEntryRecord,
    BrokerRegistrationChangeRecord,
    ClearElrRecord,
    ClientQuotaRecord,
    ConfigRecord,
    DelegationTokenRecord,
    FeatureLevelRecord,
    FenceBrokerRecord,
    NoOpRecord,
    PartitionChangeRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    RegisterControllerRecord,
    RemoveAccessControlEntryRecord,
    RemoveDelegationTokenRecord,
    RemoveTopicRecord,
    RemoveUserScramCredentialRecord,
    TopicRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
    UnregisterControllerRecord,
    UserScramCredentialRecord,
    ZkMigrationStateRecord,
)
from kwire.metadata.cluster_delta import ClusterDelta
from kwire.metadata.configs_delta import ClientQuotasDelta, ConfigurationsDelta
from kwire.metadata.errors import ReplayError
from kwire.metadata.features_delta import FeaturesDelta
from kwire.metadata.image import MetadataImage, Provenance
from kwire.metadata.security_delta import AclsDelta, DelegationTokensDelta, ScramDelta
from kwire.metadata.topics_delta import TopicsDelta


class MetadataDelta:
    """Records replayed onto ``image``; part deltas are made when a record first touches the part."""

    def __init__(self, image: MetadataImage, *, release: KafkaRelease | None = None,
                 known_metadata_version: Callable[[int], bool] | None = None) -> None:
        self.image = image
        self.release = release
        self._known_metadata_version = known_metadata_version
        self._parts: dict[str, Any] = {}  # image part name -> its delta, made when a record first touches it
        self._next_producer_id: int | None = None
        self._applied: MetadataImage | None = None

    @property
    def is_empty(self) -> bool:
        """No record changed anything (the image it applies to is the one it began from)."""
        return not self._parts and self._next_producer_id is None

    # --------------------------------------------------------------------------- replay

    def replay(self, message: Any) -> None:
        """Apply one metadata record (an instance of a generated metadata record class)."""
        if self._applied is not None:
            raise RuntimeError("this delta was applied: start a new one from the image it made")
        method = _REPLAY.get(type(message))
        if method is None:
            raise ReplayError(f"unknown metadata record type {getattr(message, 'NAME', type(message).__name__)}")
        method(self, message)

    def replay_feature_level(self, record: FeatureLevelRecord) -> None:
        self.features.replay_feature_level(record)

    def replay_zk_migration_state(self, record: ZkMigrationStateRecord) -> None:
        self.features.replay_zk_migration_state(record)

    def replay_register_broker(self, record: RegisterBrokerRecord) -> None:
        self.cluster.replay_register_broker(record)

    def replay_unregister_broker(self, record: UnregisterBrokerRecord) -> None:
        self.cluster.replay_unregister_broker(record)

    def replay_fence_broker(self, record: FenceBrokerRecord) -> None:
        self.cluster.replay_fence_broker(record)

    def replay_unfence_broker(self, record: UnfenceBrokerRecord) -> None:
        self.cluster.replay_unfence_broker(record)

    def replay_broker_registration_change(self, record: BrokerRegistrationChangeRecord) -> None:
        self.cluster.replay_broker_registration_change(record)

    def replay_register_controller(self, record: RegisterControllerRecord) -> None:
        self.cluster.replay_register_controller(record)

    def replay_unregister_controller(self, record: UnregisterControllerRecord) -> None:
        self.cluster.replay_unregister_controller(record)

    def replay_topic(self, record: TopicRecord) -> None:
        self.topics.replay_topic(record)

    def replay_partition(self, record: PartitionRecord) -> None:
        self.topics.replay_partition(record)

    def replay_partition_change(self, record: PartitionChangeRecord) -> None:
        self.topics.replay_partition_change(record)

    def replay_remove_topic(self, record: RemoveTopicRecord) -> None:
        removed = self.topics.replay_remove_topic(record)
        self.configs.remove_topic(removed.name)

    def replay_clear_elr(self, record: ClearElrRecord) -> None:
        self.topics.replay_clear_elr(record)

    def replay_config(self, record: ConfigRecord) -> None:
        self.configs.replay_config(record)

    def replay_client_quota(self, record: ClientQuotaRecord) -> None:
        self.client_quotas.replay_client_quota(record)

    def replay_producer_ids(self, record: ProducerIdsRecord) -> None:
        self._next_producer_id = record.next_producer_id

    def replay_acl(self, record: AccessControlEntryRecord) -> None:
        self.acls.replay_acl(record)

    def replay_remove_acl(self, record: RemoveAccessControlEntryRecord) -> None:
        self.acls.replay_remove_acl(record)

    def replay_scram(self, record: UserScramCredentialRecord) -> None:
        self.scram.replay_scram(record)

    def replay_remove_scram(self, record: RemoveUserScramCredentialRecord) -> None:
        self.scram.replay_remove_scram(record)

    def replay_delegation_token(self, record: DelegationTokenRecord) -> None:
        self.delegation_tokens.replay_delegation_token(record)

    def replay_remove_delegation_token(self, record: RemoveDelegationTokenRecord) -> None:
        self.delegation_tokens.replay_remove_delegation_token(record)

    def replay_no_op(self, record: NoOpRecord) -> None:
        """NoOpRecord (KIP-835) changes nothing."""

    # -------------------------------------------------------------------------- part deltas

    def _part(self, name: str, make: Callable[..., Any], **options: Any) -> Any:
        """The delta of image part ``name`` (Kafka's ``getOrCreate...Delta``): made from the image's
        part the first time a record touches it."""
        delta = self._parts.get(name)
        if delta is None:
            delta = self._parts[name] = make(getattr(self.image, name), **options)
        return delta

    @property
    def features(self) -> FeaturesDelta:
        return self._part("features", FeaturesDelta, known_metadata_version=self._known_metadata_version)

    @property
    def cluster(self) -> ClusterDelta:
        return self._part("cluster", ClusterDelta)

    @property
    def topics(self) -> TopicsDelta:
        covers = self.release.clear_elr_covers_delta_topics if self.release is not None else True
        return self._part("topics", TopicsDelta, clear_elr_covers_delta_topics=covers)

    @property
    def configs(self) -> ConfigurationsDelta:
        image_only = self.release.remove_topic_configs_from_image_only if self.release is not None else False
        return self._part("configs", ConfigurationsDelta, topic_configs_from_image_only=image_only)

    @property
    def client_quotas(self) -> ClientQuotasDelta:
        return self._part("client_quotas", ClientQuotasDelta)

    @property
    def acls(self) -> AclsDelta:
        return self._part("acls", AclsDelta)

    @property
    def scram(self) -> ScramDelta:
        return self._part("scram", ScramDelta)

    @property
    def delegation_tokens(self) -> DelegationTokensDelta:
        return self._part("delegation_tokens", DelegationTokensDelta)

    # --------------------------------------------------------------------------------- apply

    def apply(self, provenance: Provenance | None = None) -> MetadataImage:
        """The next image: the one this delta began from with its changes, at ``provenance`` (by
        default the image's own). A delta is applied once; it takes no record after."""
        if self._applied is None:
            image = self.image
            changes: dict[str, Any] = {name: delta.apply() for name, delta in self._parts.items()}
            if self._next_producer_id is not None:
                changes["next_producer_id"] = self._next_producer_id
            if provenance is not None and provenance != image.provenance:
                changes["provenance"] = provenance
            self._applied = replace(image, **changes) if changes else image
        return self._applied


#: Each metadata record class and the method that replays it (the transaction markers are the
#: loader's: they say where deltas begin and end, and change nothing).
_REPLAY: dict[type, Callable[[MetadataDelta, Any], None]] = {
    FeatureLevelRecord: MetadataDelta.replay_feature_level,
    ZkMigrationStateRecord: MetadataDelta.replay_zk_migration_state,
    RegisterBrokerRecord: MetadataDelta.replay_register_broker,
    UnregisterBrokerRecord: MetadataDelta.replay_unregister_broker,
    FenceBrokerRecord: MetadataDelta.replay_fence_broker,
    UnfenceBrokerRecord: MetadataDelta.replay_unfence_broker,
    BrokerRegistrationChangeRecord: MetadataDelta.replay_broker_registration_change,
    RegisterControllerRecord: MetadataDelta.replay_register_controller,
    UnregisterControllerRecord: MetadataDelta.replay_unregister_controller,
    TopicRecord: MetadataDelta.replay_topic,
    PartitionRecord: MetadataDelta.replay_partition,
    PartitionChangeRecord: MetadataDelta.replay_partition_change,
    RemoveTopicRecord: MetadataDelta.replay_remove_topic,
    ClearElrRecord: MetadataDelta.replay_clear_elr,
    ConfigRecord: MetadataDelta.replay_config,
    ClientQuotaRecord: MetadataDelta.replay_client_quota,
    ProducerIdsRecord: MetadataDelta.replay_producer_ids,
    AccessControlEntryRecord: MetadataDelta.replay_acl,
    RemoveAccessControlEntryRecord: MetadataDelta.replay_remove_acl,
    UserScramCredentialRecord: MetadataDelta.replay_scram,
    RemoveUserScramCredentialRecord: MetadataDelta.replay_remove_scram,
    DelegationTokenRecord: MetadataDelta.replay_delegation_token,
    RemoveDelegationTokenRecord: MetadataDelta.replay_remove_delegation_token,
    NoOpRecord: MetadataDelta.replay_no_op,
}
