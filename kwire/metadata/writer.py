"""Writing an image as the records of a snapshot at a chosen metadata.version, as Kafka's image writer does.

Each part of the image is written as its ``write(ImageWriter, ImageWriterOptions)`` method writes
it, in ``MetadataImage.write``'s order (features, cluster, topics, configs, client quotas,
producer ids, ACLs, SCRAM credentials, delegation tokens; the same from 3.3 to 4.2.1), with the
record versions the level calls for (:mod:`kwire.features`). What the level cannot hold is left
out and reported as a :class:`Loss` in Kafka's own words ("controller registration data", "the
directory assignment state of one or more replicas", ...), which Kafka prints inside "Metadata
has been lost because the following could not be represented in metadata.version X: ..." (the
same words in 3.9.0 and 4.2.1). Within a part, records come in the order Kafka's maps hand them
out (:mod:`kwire.features.java_order`; the maps are built alike in 3.9.0 and 4.2.1).

What is written depends on the writing release (:class:`~kwire.features.releases.KafkaRelease`)
as well as the level. A 3.x writer follows Kafka 3.9.0, a 4.x writer Kafka 4.2.1 (whose rules were
4.0.0's and 4.1.1's but for the last one). Where they differ:

- levels: 3.x writes from 3.0-IV1 (below 3.3-IV0 as 3.0-IV1, without FeatureLevelRecords, the
  finalized features lost as "feature flag(s): ..."); 4.x from 3.3-IV3 only.
- ZkMigrationStateRecord: 3.4 to 3.9 write one from 3.4-IV0; 4.x none (it replays the record as
  a no-op).
- a FeatureLevelRecord for kraft.version: 3.x writes it when the image holds one; 4.x skips it on
  replay (KAFKA-18979), so never.
- a partition's eligible leader replicas: 3.x writes them when the level has them
  (``isElrSupported``, 4.0-IV1, which no 3.x release writes); 4.x when the image's
  eligible.leader.replicas.version is 1 or more (``ImageWriterOptions.isEligibleLeaderReplicasEnabled``,
  set from ``FeaturesImage.isElrEnabled``), whatever the level; below 4.0-IV1 the record has no
  field for them.
- a broker's inControlledShutdown: 3.x from 3.3-IV3, a loss below; 4.x always (all its levels).
- configs the release does not define: kept by 3.x and 4.0 to 4.2.0; skipped on replay by 4.2.1
  (KAFKA-19851, :mod:`kwire.metadata.supported_configs`), so a 4.2 writer leaves them out.

A feature level the written metadata.version cannot carry by Kafka 4.2.1's feature table (its
dependencies: eligible.leader.replicas.version 1 needs 4.0-IV1, any level above 0 needs 3.3-IV3)
is written lowered to the highest level whose dependencies hold, or left out, and reported as a
loss (``kafka_keeps=True``: Kafka's writer keeps the level without a word).

Where Kafka drops something without a word (eligible leader replicas it does not write; the ZK
migration state in 4.x; configs 4.2.1 skips), kwire still reports it, marked ``kafka_words=False``.
A broker's isMigratingZkBroker flag is written from 3.4-IV0 and otherwise lost in Kafka's words by
both (4.2.1's ``BrokerRegistration`` still keeps it).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from kwire.features import (
    ELIGIBLE_LEADER_REPLICAS_VERSION,
    FEATURES,
    KRAFT_VERSION,
    MINIMUM_BOOTSTRAP_LEVEL,
    MINIMUM_KRAFT_LEVEL,
    KafkaRelease,
    MetadataVersion,
    from_level,
    kafka_release,
    metadata_version,
    release_for,
    validate_level,
)
from kwire.features import java_order as order
from kwire.generated import (
    AccessControlEntryRecord,
    ClientQuotaRecord,
    ConfigRecord,
    DelegationTokenRecord,
    FeatureLevelRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    RegisterControllerRecord,
    TopicRecord,
    UserScramCredentialRecord,
    ZkMigrationStateRecord,
)
from kwire.generated.client_quota_record import EntityData
from kwire.generated.register_broker_record import BrokerEndpoint, BrokerFeature
from kwire.generated.register_controller_record import ControllerEndpoint, ControllerFeature
from kwire.logs.metadata_log import MetadataRecord
from kwire.metadata.image import (
    CONFIG_RESOURCE_TYPES,
    DIRECTORY_MIGRATING,
    SCRAM_MECHANISMS,
    ZK_MIGRATION_STATES,
    MetadataImage,
    PartitionRegistration,
)
from kwire.metadata.supported_configs import supported_by_421
from kwire.wire.errors import KwireError
from kwire.wire.message import GeneratedStruct

METADATA_VERSION = "metadata.version"


class UnwritableImageError(KwireError):
    """The image cannot be written at all as asked (a level the writing release does not know)."""


@dataclass(frozen=True)
class Loss:
    """Something the image holds that the written records cannot."""

    what: str  # Kafka's words, as its loss handler receives them
    kafka_words: bool = True  # False: Kafka drops it silently; the words are kwire's
    kafka_keeps: bool = False  # True: Kafka writes it unchanged though the level cannot carry it

    def sentence(self, metadata_version: MetadataVersion) -> str:
        """Kafka's UnwritableMetadataException message for this loss."""
        return (f"Metadata has been lost because the following could not be represented in "
                f"metadata.version {metadata_version}: {self.what}")


def check_writes(release: KafkaRelease, mv: MetadataVersion) -> None:
    """Refuse a level the writing release cannot write (the release's own rules, listed above, are the
    fields of :class:`kwire.features.releases.KafkaRelease`)."""
    if mv.level > release.latest_production_level:
        raise UnwritableImageError(
            f"Kafka {release.name} cannot write metadata.version {mv}: its newest is {release.latest_production}")
    if mv.level < release.minimum_level:
        raise UnwritableImageError(
            f"Kafka {release.name} cannot write metadata.version {mv}: its oldest is "
            f"{from_level(release.minimum_level)}")


def writer_release(name: str | None, image_level: int) -> KafkaRelease:
    """The release that writes: ``name`` if given, else the one the image's own level belongs to."""
    return kafka_release(name) if name else release_for(image_level)


@dataclass
class WrittenImage:
    """The records of an image written at a level, and what they could not hold."""

    records: list[MetadataRecord]
    losses: list[Loss]
    requested: MetadataVersion  # the level asked for
    metadata_version: MetadataVersion  # the level whose rules were used (below 3.3-IV0: 3.0-IV1)
    release: KafkaRelease

    @property
    def lossy(self) -> bool:
        return bool(self.losses)

    def loss_sentences(self) -> list[str]:
        return [loss.sentence(self.requested) for loss in self.losses]


@dataclass
class _Options:
    """Kafka's ImageWriterOptions: the level written, whether ELR is on, a loss handler that collects."""

    mv: MetadataVersion
    release: KafkaRelease
    elr_enabled: bool = False  # isEligibleLeaderReplicasEnabled: the image's eligible.leader.replicas.version >= 1
    losses: list[Loss] = field(default_factory=list)

    def handle_loss(self, what: str, kafka_words: bool = True, kafka_keeps: bool = False) -> None:
        loss = Loss(what, kafka_words, kafka_keeps)
        if loss not in self.losses:  # Kafka reports once per broker or partition; once is enough
            self.losses.append(loss)

    def version(self, record: str) -> int:
        version = self.mv.record_version(record)
        if version is None:  # pragma: no cover - callers check the gate first
            raise UnwritableImageError(f"{record} is not written at metadata.version {self.mv}")
        return version


def image_metadata_version(image: MetadataImage) -> MetadataVersion:
    """The image's metadata.version (3.0-IV1 when no FeatureLevelRecord set one, as Kafka assumes)."""
    level = image.features.metadata_version
    return from_level(MINIMUM_KRAFT_LEVEL if level is None else level)


def write_image(image: MetadataImage, target: MetadataVersion | int | str | None = None, *,
                release: str | None = None) -> WrittenImage:
    """The records of ``image`` written at ``target`` (default: the image's own level) by ``release``
    (default: the release the image's level belongs to)."""
    current = image_metadata_version(image)
    requested = current if target is None else metadata_version(target)
    writer = writer_release(release, current.level)
    check_writes(writer, requested)
    # below 3.3-IV0 there is no FeatureLevelRecord: Kafka writes those levels as 3.0-IV1
    effective = from_level(MINIMUM_KRAFT_LEVEL) if requested.level < MINIMUM_BOOTSTRAP_LEVEL else requested
    options = _Options(effective, writer, image.features.finalized.get(ELIGIBLE_LEADER_REPLICAS_VERSION, 0) >= 1)
    records: list[MetadataRecord] = []
    for part in (_features, _cluster, _topics, _configs, _client_quotas, _producer_ids, _acls, _scram,
                 _delegation_tokens):
        records.extend(MetadataRecord(message, version) for message, version in part(image, options))
    return WrittenImage(records, options.losses, requested, effective, writer)


Written = list[tuple[GeneratedStruct, int]]  # (generated record, version)


# ---------------------------------------------------------------------------------- features


def _features(image: MetadataImage, options: _Options) -> Written:
    features = image.features
    out: Written = []
    finalized = dict(features.finalized)
    if not options.release.writes_kraft_version_feature_record:
        finalized.pop(KRAFT_VERSION, None)
    if options.mv.level < MINIMUM_BOOTSTRAP_LEVEL:
        if finalized:
            options.handle_loss("feature flag(s): " + ", ".join(sorted(finalized)))
    else:
        _lower_to_dependencies(finalized, options)
        # metadata.version first, at version 0, so any reader learns the level before the rest
        out.append((FeatureLevelRecord(name=METADATA_VERSION, feature_level=options.mv.level), 0))
        for name in order.sized_copy_order(finalized, order.string_hash):
            if name != METADATA_VERSION:
                out.append((FeatureLevelRecord(name=name, feature_level=finalized[name]), 0))
    state = features.zk_migration_state
    if options.release.writes_zk_migration_state and options.mv.is_migration_supported:
        out.append((ZkMigrationStateRecord(zk_migration_state=state), 0))
    elif state != 0:
        options.handle_loss(f"the ZK Migration state which was {ZK_MIGRATION_STATES[state]}",
                            kafka_words=options.release.keeps_zk_migration_state)
    return out


def _lower_to_dependencies(finalized: dict[str, int], options: _Options) -> None:
    """Lower (or drop) each feature whose level depends on more than the written level gives it.

    Kafka's feature table says what each level needs (4.2.1's ``Feature`` dependencies:
    eligible.leader.replicas.version 1 needs metadata.version 4.0-IV1); its image writer does not
    look and writes the level anyway. kwire writes the highest level whose dependencies hold and
    reports the change as a loss, so it is refused without --unsafe."""
    changed = True
    while changed:  # a lowered feature may be another's dependency
        changed = False
        for name in sorted(finalized):
            known = FEATURES.get(name)
            level = finalized[name]
            if known is None or level <= 0:
                continue
            levels = {METADATA_VERSION: options.mv.level, **finalized}
            why = validate_level(known.level(level, unstable=True), levels)
            if why is None:
                continue
            kept = next((candidate.level for candidate in reversed(known.levels)
                         if candidate.level < level and validate_level(candidate, levels) is None), 0)
            fate = f"lowered to {kept}" if kept else "dropped (level 0)"
            options.handle_loss(f"{name} level {level} ({why}): {fate}", kafka_words=False, kafka_keeps=True)
            if kept:
                finalized[name] = kept
            else:
                del finalized[name]
            changed = True


# ----------------------------------------------------------------------------------- cluster


def _cluster(image: MetadataImage, options: _Options) -> Written:
    mv = options.mv
    out: Written = []
    brokers = image.cluster.brokers
    for broker_id in order.sized_copy_order(brokers, order.int_hash):
        broker = brokers[broker_id]
        listeners, features = broker.listeners, broker.supported_features
        record = RegisterBrokerRecord(
            broker_id=broker.id, rack=broker.rack, broker_epoch=broker.epoch, incarnation_id=broker.incarnation_id,
            fenced=broker.fenced,
            # BrokerRegistration's constructor copies its listeners into new HashMap<>(size), its features
            # into new HashMap<>(map)
            end_points=[BrokerEndpoint(name=name, host=listeners[name].host, port=listeners[name].port,
                                       security_protocol=listeners[name].security_protocol)
                        for name in order.sized_copy_order(listeners, order.string_hash)],
            features=[BrokerFeature(name=name, min_supported_version=features[name].min,
                                    max_supported_version=features[name].max)
                      for name in order.copied_hash_map_order(features, order.string_hash)])
        if broker.in_controlled_shutdown:
            if mv.is_in_controlled_shutdown_state_supported:  # so at every level a 4.x writer writes
                record.in_controlled_shutdown = True
            else:
                options.handle_loss("the inControlledShutdown state of one or more brokers")
        if broker.is_migrating_zk_broker:
            if mv.is_migration_supported:
                record.is_migrating_zk_broker = True
            else:
                options.handle_loss("the isMigratingZkBroker state of one or more brokers")
        if not broker.directories or mv.is_directory_assignment_supported:
            record.log_dirs = list(broker.directories)
        else:
            options.handle_loss("the online log directories of one or more brokers")
        out.append((record, options.version("RegisterBrokerRecord")))
    controllers = image.cluster.controllers
    if controllers:
        if not mv.is_controller_registration_supported:
            options.handle_loss("controller registration data")
        else:
            for controller_id in order.sized_copy_order(controllers, order.int_hash):
                c = controllers[controller_id]
                out.append((RegisterControllerRecord(
                    controller_id=c.id, incarnation_id=c.incarnation_id, zk_migration_ready=c.zk_migration_ready,
                    end_points=[ControllerEndpoint(name=name, host=c.listeners[name].host, port=c.listeners[name].port,
                                                   security_protocol=c.listeners[name].security_protocol)
                                for name in order.hash_map_order(c.listeners, order.string_hash)],
                    features=[ControllerFeature(name=name, min_supported_version=c.supported_features[name].min,
                                                max_supported_version=c.supported_features[name].max)
                              for name in order.hash_map_order(c.supported_features, order.string_hash)]),
                    options.version("RegisterControllerRecord")))
    return out


# ------------------------------------------------------------------------------------ topics


def _topics(image: MetadataImage, options: _Options) -> Written:
    out: Written = []
    for topic_id in order.hash_tree_order(image.topics.by_id, order.uuid_hash):
        topic = image.topics.by_id[topic_id]
        out.append((TopicRecord(name=topic.name, topic_id=topic.id), 0))
        for partition_id in order.hash_map_order(topic.partitions, order.int_hash):
            out.append(_partition_record(topic.id, partition_id, topic.partitions[partition_id], options))
    return out


def _partition_record(topic_id: UUID, partition_id: int, p: PartitionRegistration,
                      options: _Options) -> tuple[PartitionRecord, int]:
    mv = options.mv
    record = PartitionRecord(
        partition_id=partition_id, topic_id=topic_id, replicas=list(p.replicas), isr=list(p.isr),
        removing_replicas=list(p.removing_replicas), adding_replicas=list(p.adding_replicas), leader=p.leader,
        leader_recovery_state=p.leader_recovery_state, leader_epoch=p.leader_epoch, partition_epoch=p.partition_epoch)
    if p.elr or p.last_known_elr:
        writes = options.elr_enabled if options.release.writes_elr_by_feature else mv.is_elr_supported
        if writes and mv.is_elr_supported:
            # tagged fields: set only when there is something in them, as Kafka does
            if p.elr:
                record.eligible_leader_replicas = list(p.elr)
            if p.last_known_elr:
                record.last_known_elr = list(p.last_known_elr)
        else:  # not written (4.x below 4.0-IV1: the record cannot carry them, Kafka's write would fail)
            options.handle_loss("the eligible leader replicas of one or more partitions", kafka_words=False)
    if mv.is_directory_assignment_supported:
        record.directories = list(p.directories)
    elif any(d != DIRECTORY_MIGRATING for d in p.directories):
        options.handle_loss("the directory assignment state of one or more replicas")
    return record, options.version("PartitionRecord")


# --------------------------------------------------------------------------- configs, quotas


def _configs(image: MetadataImage, options: _Options) -> Written:
    # ConfigResource hashes by an enum's identity hash, so Kafka's order of resources varies from
    # run to run; kwire keeps the order in which they first appeared
    out: Written = []
    skipped = []
    for resource, data in image.configs.resources.items():
        if options.release.skips_undefined_configs:
            undefined = [name for name in data if not supported_by_421(resource, name)]
            if undefined:
                skipped.append(f"{CONFIG_RESOURCE_TYPES.get(resource[0], resource[0])} {resource[1]!r} "
                               f"({', '.join(undefined)})")
                data = {name: value for name, value in data.items() if name not in undefined}
        for name in order.sized_copy_order(data, order.string_hash):
            out.append((ConfigRecord(resource_type=resource[0], resource_name=resource[1], name=name,
                                     value=data[name]), 0))
    if skipped:
        options.handle_loss("the configs Kafka 4.2.1 does not define, which it skips on replay: " + ", ".join(skipped),
                            kafka_words=False)
    return out


def _entity_hash(key: frozenset) -> int:
    """``ClientQuotaEntity.hashCode()``: Objects.hash(entries), a map's hash being the sum of its entries'."""
    total = sum(order.string_hash(t) ^ (0 if n is None else order.string_hash(n)) for t, n in key)
    return 31 + total


def _client_quotas(image: MetadataImage, options: _Options) -> Written:
    out: Written = []
    entities = image.client_quotas.entities
    for key in order.sized_copy_order(entities, _entity_hash):
        quota = entities[key]
        parts = dict(quota.entity)
        entity = [EntityData(entity_type=t, entity_name=parts[t])
                  for t in order.hash_map_order(parts, order.string_hash)]
        for name in order.sized_copy_order(quota.quotas, order.string_hash):
            out.append((ClientQuotaRecord(entity=entity, key=name, value=quota.quotas[name], remove=False), 0))
    return out


def _producer_ids(image: MetadataImage, options: _Options) -> Written:
    if image.next_producer_id < 0:
        return []
    return [(ProducerIdsRecord(broker_id=-1, broker_epoch=-1, next_producer_id=image.next_producer_id), 0)]


# ---------------------------------------------------------------------- ACLs, SCRAM, tokens


def _acls(image: MetadataImage, options: _Options) -> Written:
    # Kafka writes ACLs at every level: before FeatureLevelRecord it cannot tell 3.2-IV0 (which
    # introduced them) from 3.0-IV1, so it pretends they were always there
    out: Written = []
    for acl_id in order.hash_map_order(image.acls, order.uuid_hash):
        a = image.acls[acl_id]
        out.append((AccessControlEntryRecord(id=acl_id, resource_type=a.resource_type,
                                             resource_name=a.resource_name, pattern_type=a.pattern_type,
                                             principal=a.principal, host=a.host, operation=a.operation,
                                             permission_type=a.permission_type), 0))
    return out


def _scram(image: MetadataImage, options: _Options) -> Written:
    # mechanisms are keyed by an enum (identity hash, no stable order): kwire writes them by type
    out: Written = []
    if options.mv.is_scram_supported:
        for mechanism in sorted(image.scram):
            users = image.scram[mechanism]
            for user in order.copied_hash_map_order(users, order.string_hash):
                c = users[user]
                out.append((UserScramCredentialRecord(name=user, mechanism=mechanism, salt=c.salt,
                                                      stored_key=c.stored_key, server_key=c.server_key,
                                                      iterations=c.iterations), 0))
    elif any(image.scram.values()):
        parts = [f"{SCRAM_MECHANISMS[m]}:{', '.join(order.copied_hash_map_order(image.scram[m], order.string_hash))}"
                 for m in sorted(image.scram) if image.scram[m]]
        options.handle_loss("ScramImage({" + "".join(p + "},{" for p in parts) + "})")
    return out


def _delegation_tokens(image: MetadataImage, options: _Options) -> Written:
    tokens = image.delegation_tokens
    token_ids = order.hash_map_order(tokens, order.string_hash)
    if not options.mv.is_delegation_token_supported:
        if tokens:
            options.handle_loss("DelegationTokenImage(" + ", ".join(token_ids) + ")")
        return []
    return [(DelegationTokenRecord(owner=t.owner, requester=t.requester, renewers=list(t.renewers),
                                   issue_timestamp=t.issue_timestamp, max_timestamp=t.max_timestamp,
                                   expiration_timestamp=t.expiration_timestamp, token_id=t.token_id), 0)
            for t in (tokens[i] for i in token_ids)]
