"""How each metadata record changes the image: Kafka's ``MetadataDelta.replay`` and the deltas under it.

Kafka gathers records into a delta and applies it to the image when the raft layer commits them;
here every record is applied as it comes, which is the same image as long as no record depends on
where a delta began. One of Kafka's rules does: a RemoveTopicRecord drops the topic's configs only
when they were already in the image (and in Kafka 4.0, a ClearElrRecord for every topic cleared
only topics already in the image; 4.1 and later clear those the delta created too). Here both act
on everything present, as the controller's own state does
(``ConfigurationControlManager.deleteTopicConfigs``, ``ReplicationControlManager.replay(ClearElrRecord)``).

The rules are Kafka 3.9.0's, checked against 4.2.1's (ClearElrRecord from 4.x, which added it;
UnregisterControllerRecord from sources newer than 4.2.1, which has none). The image is one for
every release: where 4.2.1's deltas drop something on replay (a FeatureLevelRecord for
kraft.version, KAFKA-18979; the ZK migration state, which 4.x no longer keeps; configs it does not
define, KAFKA-19851), the image keeps it as 3.x does, and a 4.x writer leaves it out
(:mod:`kwire.metadata.writer`).

Records Kafka refuses to replay raise :class:`ReplayError` with Kafka's own reason (a fence of a
broker that is not registered, a change to a partition that does not exist, an unknown
metadata.version level, ...).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from kwire.wire.errors import KwireError
from kwire.metadata.image import (
    DIRECTORY_MIGRATING,
    LEADER_RECOVERY_STATES,
    Acl,
    BrokerRegistration,
    ClientQuota,
    ControllerRegistration,
    DelegationToken,
    Endpoint,
    MetadataImage,
    PartitionRegistration,
    ScramCredential,
    TopicImage,
    VersionRange,
    ZK_MIGRATION_STATES,
    uuid_sort_key,
)
from kwire.wire.jsonform import uuid_to_text

METADATA_VERSION = "metadata.version"
NO_LEADER_CHANGE = -2
NO_RECOVERY_STATE_CHANGE = -1
#: BrokerRegistrationChangeRecord.Fenced: 1 fence, 0 no change, -1 unfence.
_FENCING_CHANGES = {1: True, 0: None, -1: False}
#: BrokerRegistrationChangeRecord.InControlledShutdown: 0 no change, 1 entering controlled shutdown.
_SHUTDOWN_CHANGES = {0: None, 1: True}


class ReplayError(KwireError):
    """A record Kafka's image would refuse to apply."""


class MetadataReplayer:
    """Applies metadata records, one at a time, to ``image``.

    ``known_metadata_version`` tells whether a metadata.version level exists (Kafka refuses a
    FeatureLevelRecord naming a level it does not know); by default every level is accepted.
    """

    def __init__(self, image: MetadataImage | None = None,
                 known_metadata_version: Callable[[int], bool] | None = None) -> None:
        self.image = image if image is not None else MetadataImage()
        self._known_metadata_version = known_metadata_version
        self._handlers: dict[str, Callable[[Any], None]] = {
            "RegisterBrokerRecord": self._register_broker,
            "UnregisterBrokerRecord": self._unregister_broker,
            "FenceBrokerRecord": lambda r: self._fence(r.id, r.epoch, True, "fence"),
            "UnfenceBrokerRecord": lambda r: self._fence(r.id, r.epoch, False, "unfence"),
            "BrokerRegistrationChangeRecord": self._broker_change,
            "RegisterControllerRecord": self._register_controller,
            "UnregisterControllerRecord": lambda r: self.image.cluster.controllers.pop(r.controller_id, None),
            "TopicRecord": self._topic,
            "PartitionRecord": self._partition,
            "PartitionChangeRecord": self._partition_change,
            "RemoveTopicRecord": self._remove_topic,
            "ClearElrRecord": self._clear_elr,
            "ConfigRecord": self._config,
            "ClientQuotaRecord": self._client_quota,
            "ProducerIdsRecord": self._producer_ids,
            "AccessControlEntryRecord": self._acl,
            "RemoveAccessControlEntryRecord": self._remove_acl,
            "UserScramCredentialRecord": self._scram,
            "RemoveUserScramCredentialRecord": self._remove_scram,
            "DelegationTokenRecord": self._delegation_token,
            "RemoveDelegationTokenRecord": lambda r: self.image.delegation_tokens.pop(r.token_id, None),
            "FeatureLevelRecord": self._feature_level,
            "ZkMigrationStateRecord": self._zk_migration_state,
            "NoOpRecord": lambda r: None,
        }

    def replay(self, message: Any) -> None:
        """Apply one metadata record (an instance of a generated metadata class)."""
        handler = self._handlers.get(getattr(message, "NAME", ""))
        if handler is None:
            raise ReplayError(f"unknown metadata record type {getattr(message, 'NAME', type(message).__name__)}")
        handler(message)

    # ------------------------------------------------------------------------------ features

    def _feature_level(self, record: Any) -> None:
        features = self.image.features
        if record.name == METADATA_VERSION:
            known = self._known_metadata_version
            if known is not None and not known(record.feature_level):
                raise ReplayError(f"No MetadataVersion with feature level {record.feature_level}")
            features.metadata_version = record.feature_level
        elif record.feature_level == 0:
            features.finalized.pop(record.name, None)
        else:
            features.finalized[record.name] = record.feature_level

    def _zk_migration_state(self, record: Any) -> None:
        if record.zk_migration_state not in ZK_MIGRATION_STATES:
            raise ReplayError(f"Value {record.zk_migration_state} is not a valid Zk migration state")
        self.image.features.zk_migration_state = record.zk_migration_state

    # ------------------------------------------------------------------------------- cluster

    def _register_broker(self, record: Any) -> None:
        broker = BrokerRegistration(
            id=record.broker_id,
            epoch=record.broker_epoch,
            incarnation_id=record.incarnation_id,
            listeners=_listeners(record),
            supported_features=_supported_features(record),
            rack=record.rack,
            fenced=record.fenced,
            in_controlled_shutdown=record.in_controlled_shutdown,
            is_migrating_zk_broker=record.is_migrating_zk_broker,
            directories=tuple(sorted(record.log_dirs, key=uuid_sort_key)),
        )
        self.image.cluster.brokers[broker.id] = broker

    def _unregister_broker(self, record: Any) -> None:
        self.image.cluster.brokers.pop(record.broker_id, None)

    def _broker(self, broker_id: int, epoch: int, action: str) -> BrokerRegistration:
        broker = self.image.cluster.brokers.get(broker_id)
        if broker is None:
            raise ReplayError(f"Tried to {action} broker {broker_id}, but that broker was not registered.")
        if broker.epoch != epoch:
            raise ReplayError(f"Tried to {action} broker {broker_id}, but the given epoch, {epoch}, did not "
                              f"match the current broker epoch, {broker.epoch}")
        return broker

    def _fence(self, broker_id: int, epoch: int, fenced: bool, action: str) -> None:
        self.image.cluster.brokers[broker_id] = self._broker(broker_id, epoch, action).changed(fenced=fenced)

    def _broker_change(self, record: Any) -> None:
        broker = self._broker(record.broker_id, record.broker_epoch, "change")
        if record.fenced not in _FENCING_CHANGES:
            raise ReplayError(f"Unable to replay {record.NAME}: unknown value for fenced field: {record.fenced}")
        if record.in_controlled_shutdown not in _SHUTDOWN_CHANGES:
            raise ReplayError(f"Unable to replay {record.NAME}: unknown value for inControlledShutdown field: "
                              f"{record.in_controlled_shutdown}")
        directories = tuple(record.log_dirs) if record.log_dirs else None
        self.image.cluster.brokers[broker.id] = broker.changed(
            fenced=_FENCING_CHANGES[record.fenced],
            in_controlled_shutdown=_SHUTDOWN_CHANGES[record.in_controlled_shutdown],
            directories=directories)

    def _register_controller(self, record: Any) -> None:
        controller = ControllerRegistration(
            id=record.controller_id,
            incarnation_id=record.incarnation_id,
            zk_migration_ready=record.zk_migration_ready,
            listeners=_listeners(record),
            supported_features=_supported_features(record),
        )
        self.image.cluster.controllers[controller.id] = controller

    # -------------------------------------------------------------------------------- topics

    def _topic(self, record: Any) -> None:
        self.image.topics.by_id[record.topic_id] = TopicImage(record.name, record.topic_id)

    def _existing_topic(self, topic_id: UUID, what: str) -> TopicImage:
        topic = self.image.topics.by_id.get(topic_id)
        if topic is None:
            raise ReplayError(f"{what} for topic {uuid_to_text(topic_id)}, which does not exist")
        return topic

    def _partition(self, record: Any) -> None:
        topic = self._existing_topic(record.topic_id, "PartitionRecord")
        topic.partitions[record.partition_id] = partition_from_record(record)

    def _partition_change(self, record: Any) -> None:
        topic = self.image.topics.by_id.get(record.topic_id)
        partition = topic.partitions.get(record.partition_id) if topic else None
        if topic is None or partition is None:
            raise ReplayError(f"Unable to find partition {uuid_to_text(record.topic_id)}:{record.partition_id}")
        topic.partitions[record.partition_id] = merge_partition_change(partition, record)

    def _remove_topic(self, record: Any) -> None:
        topic = self.image.topics.by_id.pop(record.topic_id, None)
        if topic is None:
            raise ReplayError(f"Unable to delete topic with id {uuid_to_text(record.topic_id)}: no such topic found.")
        self.image.configs.resources.pop((TOPIC_RESOURCE, topic.name), None)

    def _clear_elr(self, record: Any) -> None:
        if record.topic_name:
            topic = self.image.topics.by_name(record.topic_name)
            if topic is None:
                raise ReplayError(f"Unable to clear elr for topic with name {record.topic_name}: no such topic found.")
            topics = [topic]
        else:
            topics = list(self.image.topics.by_id.values())
        for topic in topics:
            for partition_id, partition in topic.partitions.items():
                if partition.elr or partition.last_known_elr:
                    topic.partitions[partition_id] = _merged(partition, elr=(), last_known_elr=())

    # ------------------------------------------------------------------------ configs, quotas

    def _config(self, record: Any) -> None:
        key = (record.resource_type, record.resource_name)
        configs = self.image.configs.resources
        if record.value is None:
            data = configs.get(key)
            if data is not None:
                data.pop(record.name, None)
                if not data:
                    del configs[key]
        else:
            configs.setdefault(key, {})[record.name] = record.value

    def _client_quota(self, record: Any) -> None:
        parts: dict[str, str | None] = {}
        for data in record.entity:
            parts[data.entity_type] = data.entity_name
        key = frozenset(parts.items())
        quotas = self.image.client_quotas.entities
        if record.remove:
            quota = quotas.get(key)
            if quota is not None:
                quota.quotas.pop(record.key, None)
                if not quota.quotas:
                    del quotas[key]
        else:
            quotas.setdefault(key, ClientQuota(tuple(parts.items()))).quotas[record.key] = record.value

    def _producer_ids(self, record: Any) -> None:
        self.image.next_producer_id = record.next_producer_id

    # ------------------------------------------------------------------ ACLs, SCRAM, tokens

    def _acl(self, record: Any) -> None:
        self.image.acls[record.id] = Acl(record.resource_type, record.resource_name, record.pattern_type,
                                         record.principal, record.host, record.operation, record.permission_type)

    def _remove_acl(self, record: Any) -> None:
        if self.image.acls.pop(record.id, None) is None:
            raise ReplayError(f"Failed to find existing ACL with ID {uuid_to_text(record.id)} in either image or changes")

    def _scram(self, record: Any) -> None:
        users = self.image.scram.setdefault(_scram_mechanism(record.mechanism), {})
        users[record.name] = ScramCredential(bytes(record.salt), bytes(record.stored_key), bytes(record.server_key),
                                             record.iterations)

    def _remove_scram(self, record: Any) -> None:
        mechanism = _scram_mechanism(record.mechanism)
        users = self.image.scram.get(mechanism)
        if users is not None and users.pop(record.name, None) is not None and not users:
            del self.image.scram[mechanism]

    def _delegation_token(self, record: Any) -> None:
        self.image.delegation_tokens[record.token_id] = DelegationToken(
            record.token_id, record.owner, record.requester, tuple(record.renewers), record.issue_timestamp,
            record.max_timestamp, record.expiration_timestamp)


TOPIC_RESOURCE = 2  # ConfigResource.Type.TOPIC


def _listeners(record: Any) -> dict[str, Endpoint]:
    """A registration record's endpoints by listener name (a repeated name: the last one wins)."""
    return {e.name: Endpoint(e.host, e.port, e.security_protocol) for e in record.end_points}


def _supported_features(record: Any) -> dict[str, VersionRange]:
    return {f.name: VersionRange(f.min_supported_version, f.max_supported_version) for f in record.features}


def _scram_mechanism(value: int) -> int:
    return value if value in (1, 2) else 0  # ScramMechanism.fromType: anything else is UNKNOWN


def _recovery_state(value: int) -> int:
    if value not in LEADER_RECOVERY_STATES:
        raise ReplayError(f"Value {value} is not a valid leader recovery state")
    return value


def _directories(replicas: tuple[int, ...], directories: list[UUID] | None, record: Any) -> tuple[UUID, ...] | None:
    """A record's directories, checked against its replicas (InvalidReplicaDirectoriesException)."""
    if directories and len(directories) != len(replicas):
        raise ReplayError(f"The lengths for replicas and directories do not match: {record!r}")
    return None if directories is None else tuple(directories)


def _default_to_migrating(directories: tuple[UUID, ...] | None, count: int) -> tuple[UUID, ...]:
    """No directories, or only MIGRATING ones, become MIGRATING for every replica."""
    if directories is None or all(d == DIRECTORY_MIGRATING for d in directories):
        return (DIRECTORY_MIGRATING,) * count
    return directories


def partition_from_record(record: Any) -> PartitionRegistration:
    replicas = tuple(record.replicas)
    return PartitionRegistration(
        replicas=replicas,
        directories=_default_to_migrating(_directories(replicas, record.directories, record), len(replicas)),
        isr=tuple(record.isr),
        removing_replicas=tuple(record.removing_replicas),
        adding_replicas=tuple(record.adding_replicas),
        elr=tuple(record.eligible_leader_replicas or ()),
        last_known_elr=tuple(record.last_known_elr or ()),
        leader=record.leader,
        leader_recovery_state=_recovery_state(record.leader_recovery_state),
        leader_epoch=record.leader_epoch,
        partition_epoch=record.partition_epoch,
    )


def merge_partition_change(partition: PartitionRegistration, record: Any) -> PartitionRegistration:
    """``PartitionRegistration.merge``: fields the record carries replace the old ones; a new leader
    bumps the leader epoch; every change bumps the partition epoch."""
    replicas = partition.replicas if record.replicas is None else tuple(record.replicas)
    if record.directories is None:
        directories = partition.directories
    else:
        directories = _directories(replicas, record.directories, record) if record.replicas is not None \
            else tuple(record.directories)
    directories = _default_to_migrating(directories, len(replicas))
    if directories and len(directories) != len(replicas):
        raise ReplayError("The lengths for replicas and directories do not match.")
    changes: dict[str, Any] = {"replicas": replicas, "directories": directories}
    for name in ("isr", "removing_replicas", "adding_replicas"):
        value = getattr(record, name)
        if value is not None:
            changes[name] = tuple(value)
    if record.eligible_leader_replicas is not None:
        changes["elr"] = tuple(record.eligible_leader_replicas)
    if record.last_known_elr is not None:
        changes["last_known_elr"] = tuple(record.last_known_elr)
    if record.leader != NO_LEADER_CHANGE:
        changes["leader"] = record.leader
        changes["leader_epoch"] = partition.leader_epoch + 1
    if record.leader_recovery_state != NO_RECOVERY_STATE_CHANGE:
        changes["leader_recovery_state"] = _recovery_state(record.leader_recovery_state)
    return _merged(partition, **changes)


def _merged(partition: PartitionRegistration, **changes: Any) -> PartitionRegistration:
    """The partition after a change record: the given fields replaced, the partition epoch bumped."""
    values = {name: getattr(partition, name) for name in PartitionRegistration.__dataclass_fields__}
    values.update(changes)
    values["partition_epoch"] = partition.partition_epoch + 1
    return PartitionRegistration(**values)
