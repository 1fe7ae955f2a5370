"""Writing the image as a snapshot at a metadata.version, as Kafka's image writer does.

The reference is Kafka itself: the snapshot a Kafka 3.6.1 node wrote at offset 7111 (its records,
byte for byte); the loss messages of Kafka 3.9.0's and 4.2.1's image classes (``FeaturesImage``,
``ClusterImage``, ``BrokerRegistration``, ``PartitionRegistration``, ``ScramImage``,
``DelegationTokenImage``), copied here as the expected strings; and the expectations of Kafka's
own tests where they have them (``ImageDowngradeTest`` of 3.9.0 and 4.2.1,
``PartitionRegistrationTest`` and ``DefaultSupportedConfigCheckerTest`` of 4.2.1), their records
rebuilt here field for field.
"""
from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import replace

import pytest

from kwire.generated import TopicRecord
from kwire.logs.metadata_log import read_snapshot
from kwire.metadata.image import (
    Acl,
    BrokerRegistration,
    ClusterImage,
    ConfigurationsImage,
    ControllerRegistration,
    DelegationToken,
    Endpoint,
    MetadataImage,
    PartitionRegistration,
    ScramCredential,
    TopicImage,
    VersionRange,
)
from kwire.metadata.loader import load_image
from kwire.metadata.replay import MetadataReplayer
from kwire.metadata.snapshot import build_image_snapshot
from kwire.metadata.writer import UnwritableImageError, write_image
from tests.paths import KRAFT_361, KRAFT_390

SNAPSHOT_361 = KRAFT_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint"
TOPIC = uuid.UUID(int=0xABC)
DIRECTORY = uuid.UUID(int=0xD1)


def values(records) -> Counter:
    return Counter(r.encode_value() for r in records)


# ------------------------------------------------------------------------- Kafka's snapshot


def test_the_361_log_written_at_its_level_is_kafkas_snapshot_byte_for_byte():
    image = load_image(KRAFT_361, until=7111, use_snapshots=False).image
    written = write_image(image)
    assert (written.requested.name, written.release.name, written.losses) == ("3.6-IV2", "3.6", [])
    kafka = read_snapshot(SNAPSHOT_361)
    assert values(written.records) == values(kafka.records)  # the multiset: Done means 1
    assert [r.encode_value() for r in written.records] == [r.encode_value() for r in kafka.records]  # and the order


def test_the_written_snapshot_has_kafkas_name_header_and_layout():
    image = load_image(KRAFT_361, until=7111, use_snapshots=False).image
    snapshot = build_image_snapshot(image, write_image(image))
    kafka = read_snapshot(SNAPSHOT_361)
    assert snapshot.snapshot_id == kafka.snapshot_id
    assert snapshot.header.last_contained_log_timestamp == kafka.header.last_contained_log_timestamp
    assert [(b.base_offset, len(b.entries), b.is_control, b.partition_leader_epoch) for b in snapshot.batches] == \
        [(b.base_offset, len(b.entries), b.is_control, b.partition_leader_epoch) for b in kafka.batches]


@pytest.mark.parametrize("source, until", [(KRAFT_390, None), (KRAFT_390, 5000), (KRAFT_361, None)])
def test_replay_write_replay_gives_the_same_image(tmp_path, source, until):
    image = load_image(source, until=until).image
    path = build_image_snapshot(image, write_image(image)).write(tmp_path)
    again = load_image(path).image
    assert again.same_metadata(image)
    assert again.provenance == image.provenance


def test_the_390_image_at_every_lower_level_reads_back_and_writes_the_same_bytes():
    image = load_image(KRAFT_390).image
    for level in range(1, 22):
        written = write_image(image, level)
        replayer = MetadataReplayer()
        for r in written.records:
            replayer.replay(r.message)
        again = write_image(replayer.image, level)
        assert again.losses == [] and [r.encode_value() for r in again.records] == \
            [r.encode_value() for r in written.records], level


# ---------------------------------------------------------------- record versions by level


def test_record_versions_follow_the_level():
    image = load_image(KRAFT_390).image
    kinds = {level: {r.name: r.version for r in write_image(image, level).records} for level in (6, 7, 8, 17, 21)}
    assert [kinds[level]["RegisterBrokerRecord"] for level in (6, 7, 8, 17)] == [0, 1, 2, 3]
    assert [kinds[level]["PartitionRecord"] for level in (8, 17)] == [0, 1]
    assert "ZkMigrationStateRecord" not in kinds[7] and "ZkMigrationStateRecord" in kinds[8]
    assert "RegisterControllerRecord" in kinds[21] and "RegisterControllerRecord" not in kinds[8]


def test_below_33_iv0_no_feature_level_record_is_written():
    image = load_image(KRAFT_390).image
    names = [r.name for r in write_image(image, 3).records]
    assert "FeatureLevelRecord" not in names and names[0] == "RegisterBrokerRecord"


# ------------------------------------------------------------------------- the writing release


def test_the_writing_release_decides_the_zk_migration_record():
    image = load_image(KRAFT_361, until=7111).image  # 3.6-IV2
    assert "ZkMigrationStateRecord" in [r.name for r in write_image(image, release="3.6").records]
    assert "ZkMigrationStateRecord" not in [r.name for r in write_image(image, release="4.0").records]
    assert "ZkMigrationStateRecord" not in [r.name for r in write_image(image, 7, release="3.3").records]


def test_a_release_writes_only_the_levels_it_knows():
    image = load_image(KRAFT_390).image  # 3.9-IV0
    with pytest.raises(UnwritableImageError,
                       match="Kafka 3.6 cannot write metadata.version 3.9-IV0: its newest is 3.6-IV2"):
        write_image(image, release="3.6")
    with pytest.raises(UnwritableImageError,
                       match="Kafka 4.0 cannot write metadata.version 3.3-IV2: its oldest is 3.3-IV3"):
        write_image(image, 6, release="4.0")


# ------------------------------------------------------------------------------ loss rules


def _broker(**changes) -> BrokerRegistration:
    values = dict(id=1, epoch=5, incarnation_id=uuid.UUID(int=1),
                  listeners={"PLAINTEXT": Endpoint("h", 9092, 0)},
                  supported_features={"metadata.version": VersionRange(1, 21)}, rack=None, fenced=False,
                  in_controlled_shutdown=False, is_migrating_zk_broker=False, directories=())
    values.update(changes)
    return BrokerRegistration(**values)


def _image(level: int = 21, **parts) -> MetadataImage:
    # images are frozen: a test's image is built whole, its parts changed with dataclasses.replace
    image = MetadataImage()
    return replace(image, features=replace(image.features, metadata_version=level), **parts)


def _features(image: MetadataImage, **changes) -> MetadataImage:
    return replace(image, features=replace(image.features, **changes))


def _with_topic(image: MetadataImage, topic: TopicImage) -> MetadataImage:
    return replace(image, topics=replace(image.topics, by_id={**image.topics.by_id, topic.id: topic}))


def _image_with_partition(**changes) -> MetadataImage:
    fields = dict(replicas=(1,), directories=(uuid.UUID(int=0),), isr=(1,), removing_replicas=(),
                  adding_replicas=(), elr=(), last_known_elr=(), leader=1, leader_recovery_state=0, leader_epoch=0,
                  partition_epoch=0)
    fields.update(changes)
    return _with_topic(_image(23), TopicImage("t", TOPIC, {0: PartitionRegistration(**fields)}))


def losses(image: MetadataImage, level: int, release: str | None = None) -> list[str]:
    return [loss.what for loss in write_image(image, level, release=release).losses]


def test_loss_feature_flags_below_33_iv0():
    image = _features(_image(), finalized={"group.version": 1, "eligible.leader.replicas.version": 1})
    assert losses(image, 3) == ["feature flag(s): eligible.leader.replicas.version, group.version"]
    # from 3.3-IV0 the records exist, but Kafka 4.2.1's Feature.validateVersion wants 3.3-IV3 for any
    # level above 0 (and ELR 1 wants 4.0-IV1): kept by Kafka's writer, dropped (and said) by kwire
    assert losses(image, 4) == [
        f"{name} level 1 ({name} could not be set to 1 because it depends on metadata.version=7 (3.3-IV3)): "
        "dropped (level 0)" for name in ("eligible.leader.replicas.version", "group.version")]
    assert losses(image, 7) == [
        "eligible.leader.replicas.version level 1 (eligible.leader.replicas.version could not be set to 1 because "
        "it depends on metadata.version level 23): dropped (level 0)"]
    assert losses(image, 23, release="4.2") == []


def test_a_level_whose_dependency_fails_is_lowered_to_the_highest_that_holds(monkeypatch):
    # Kafka 4.2.1's production features have no level between two with different needs, so a
    # made-up one: level 2 needs 4.0-IV1 (23), level 1 nothing beyond 3.3-IV3
    from kwire.features.feature_versions import Feature, FeatureLevel
    from kwire.metadata import writer

    made_up = Feature("made.up.version", (FeatureLevel("made.up.version", 0, 7),
                                          FeatureLevel("made.up.version", 1, 7),
                                          FeatureLevel("made.up.version", 2, 23, {"metadata.version": 23})), 2)
    monkeypatch.setattr(writer, "FEATURES", {**writer.FEATURES, made_up.name: made_up})
    image = _features(_image(23), finalized={"made.up.version": 2})
    written = write_image(image, 21, release="4.2")
    assert [loss.what for loss in written.losses] == [
        "made.up.version level 2 (made.up.version could not be set to 2 because it depends on metadata.version "
        "level 23): lowered to 1"]
    assert [(r.message.name, r.message.feature_level) for r in written.records if r.name == "FeatureLevelRecord"] \
        == [("metadata.version", 21), ("made.up.version", 1)]


def test_loss_zk_migration_state_below_34_iv0():
    image = _features(_image(), zk_migration_state=1)
    assert losses(image, 7) == ["the ZK Migration state which was MIGRATION"]
    assert losses(image, 8) == []
    (loss,) = write_image(image, 21, release="4.0").losses  # Kafka 4.x no longer knows the state
    assert (loss.what, loss.kafka_words) == ("the ZK Migration state which was MIGRATION", False)


def test_loss_in_controlled_shutdown_below_33_iv3():
    image = _image(cluster=ClusterImage(brokers={1: _broker(in_controlled_shutdown=True)}))
    assert losses(image, 6) == ["the inControlledShutdown state of one or more brokers"]
    assert losses(image, 7) == []


def test_loss_migrating_zk_broker_below_34_iv0():
    image = _image(cluster=ClusterImage(brokers={1: _broker(is_migrating_zk_broker=True)}))
    assert losses(image, 7) == ["the isMigratingZkBroker state of one or more brokers"]
    assert losses(image, 8) == []


def test_loss_broker_log_directories_below_37_iv2():
    image = _image(cluster=ClusterImage(brokers={1: _broker(directories=(DIRECTORY,))}))
    assert losses(image, 16) == ["the online log directories of one or more brokers"]
    assert losses(image, 17) == []


def test_loss_controller_registrations_below_37_iv0():
    image = _image(cluster=ClusterImage(controllers={3: ControllerRegistration(
        3, uuid.UUID(int=3), False, {"CONTROLLER": Endpoint("c", 9093, 0)}, {})}))
    assert losses(image, 14) == ["controller registration data"]
    assert losses(image, 15) == []


def test_loss_partition_directories_below_37_iv2():
    image = _image_with_partition(directories=(DIRECTORY,))
    assert losses(image, 16) == ["the directory assignment state of one or more replicas"]
    assert losses(_image_with_partition(), 16) == []  # MIGRATING directories are no loss


def test_loss_scram_credentials_below_35_iv2():
    credential = ScramCredential(b"s", b"k", b"v", 4096)
    image = _image(scram={1: {"alice": credential}, 2: {"bob": credential}})
    assert losses(image, 10) == ["ScramImage({SCRAM_SHA_256:alice},{SCRAM_SHA_512:bob},{})"]
    assert losses(image, 11) == []


def test_loss_delegation_tokens_below_36_iv2():
    image = _image(delegation_tokens={"tok": DelegationToken("tok", "User:a", "User:a", (), 1, 3, 2)})
    assert losses(image, 13) == ["DelegationTokenImage(tok)"]
    assert losses(image, 14) == []


def test_acls_are_written_at_every_level():
    image = _image(acls={uuid.UUID(int=4): Acl(2, "t", 3, "User:a", "*", 3, 3)})
    assert [r.name for r in write_image(image, 1).records] == ["AccessControlEntryRecord"]


def test_the_loss_sentence_is_kafkas():
    image = _image(cluster=ClusterImage(controllers={3: ControllerRegistration(3, uuid.UUID(int=3), False, {}, {})}))
    written = write_image(image, "3.6-IV2")
    assert written.loss_sentences() == ["Metadata has been lost because the following could not be represented "
                                        "in metadata.version 3.6-IV2: controller registration data"]


def test_kraft_version_and_voters_go_into_the_snapshot_header(tmp_path):
    from kwire.generated import MESSAGES
    from kwire.generated.voters_record import Endpoint as VoterEndpoint
    from kwire.generated.voters_record import KRaftVersionFeature, Voter
    from kwire.logs.metadata_log import MetadataRecord, SnapshotId, build_snapshot

    voters = MESSAGES["VotersRecord"](version=0, voters=[Voter(
        voter_id=3, voter_directory_id=uuid.UUID(int=5),
        endpoints=[VoterEndpoint(name="CONTROLLER", host="c3", port=9093)],
        kraft_version_feature=KRaftVersionFeature(min_supported_version=0, max_supported_version=1))])
    level = MetadataRecord(MESSAGES["FeatureLevelRecord"](name="metadata.version", feature_level=21), 0)
    source = build_snapshot([level], timestamp=5, snapshot_id=SnapshotId(10, 2), kraft_version=1, voters=voters,
                            last_contained_log_timestamp=4).write(tmp_path)
    image = load_image(source).image
    written = build_image_snapshot(image, write_image(image))
    assert written.kraft_version.kraft_version == 1 and written.voters == voters
    assert written.snapshot_id == SnapshotId(10, 2) and written.header.last_contained_log_timestamp == 4


# ------------------------------------------------------------- what Kafka 4.2.1 writes differently


def kafka_uuid(text: str) -> uuid.UUID:
    """``Uuid.fromString``: URL-safe base64 of the 16 bytes."""
    import base64

    return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))


def record(_type: str, _version: int, **fields):
    from kwire.generated import MESSAGES
    from kwire.logs.metadata_log import MetadataRecord

    return MetadataRecord(MESSAGES[_type](**fields), _version)


def written(records, level: int, release: str):
    """ImageDowngradeTest.writeWithExpectedLosses: replay ``records``, write at ``level``."""
    replayer = MetadataReplayer()
    for r in records:
        replayer.replay(r.message)
    out = write_image(replayer.image, level, release=release)
    return [(r.name, r.version, r.encode_value()) for r in out.records], [loss.what for loss in out.losses]


def as_written(records):
    return [(r.name, r.version, r.encode_value()) for r in records]


FOO = kafka_uuid("5JPuABiJTPu2pQjpZWM6_A")
TOPIC_FOO = record("TopicRecord", 0, name="foo", topic_id=FOO)
PARTITION_FOO = dict(topic_id=FOO, replicas=[0, 1], isr=[0, 1], leader=0, leader_epoch=1, partition_epoch=2)


def mv_record(level: int):
    return record("FeatureLevelRecord", 0, name="metadata.version", feature_level=level)


def broker_123(version: int, **flags):
    return record("RegisterBrokerRecord", version, broker_id=123, incarnation_id=kafka_uuid("XgjKo16hRWeWrTui0iR5Nw"),
                  broker_epoch=456, rack=None, fenced=False, in_controlled_shutdown=True, **flags)


@pytest.mark.parametrize("release", ["3.9", "4.2"])
def test_image_downgrade_test_pre_zk_migration_support_version(release):
    # ImageDowngradeTest.testPreZkMigrationSupportVersion, alike in 3.9.0 and 4.2.1
    inputs = [mv_record(8), broker_123(2, is_migrating_zk_broker=True), TOPIC_FOO,
              record("PartitionRecord", 0, **PARTITION_FOO)]
    assert written(inputs, 7, release) == (
        as_written([mv_record(7), broker_123(1), TOPIC_FOO, record("PartitionRecord", 0, **PARTITION_FOO)]),
        ["the isMigratingZkBroker state of one or more brokers"])


@pytest.mark.parametrize("release", ["3.9", "4.2"])
def test_image_downgrade_test_directory_assignment_state(release):
    # ImageDowngradeTest.testDirectoryAssignmentState: 3.9.0 expects a ZkMigrationStateRecord, 4.2.1 none
    directories = [kafka_uuid("c7QfSi6xSIGQVh3Qd5RJxA"), kafka_uuid("rWaCHejCRRiptDMvW5Xw0g")]
    inputs = [mv_record(15), TOPIC_FOO, record("PartitionRecord", 2, **PARTITION_FOO, directories=directories)]
    zk = [record("ZkMigrationStateRecord", 0, zk_migration_state=0)] if release == "3.9" else []
    assert written(inputs, 15, release) == (
        as_written([mv_record(15), *zk, TOPIC_FOO, record("PartitionRecord", 0, **PARTITION_FOO)]),
        ["the directory assignment state of one or more replicas"])


PARTITION_WITH_ELR = dict(
    replicas=(0, 1, 2, 3, 4), isr=(0, 1), removing_replicas=(), adding_replicas=(), elr=(2, 3), last_known_elr=(4,),
    leader=0, leader_recovery_state=0, leader_epoch=0, partition_epoch=0,
    directories=(uuid.UUID(int=1), kafka_uuid("KBJBm9GVRAG9Ffe25odmmg"), uuid.UUID(int=2),  # UNASSIGNED, LOST
                 kafka_uuid("7DZNT5qBS7yFF7VMMHS7kw"), kafka_uuid("cJGPUZsMSEqbidOLYLOIXg")))


def _partition_image(level: int, elr_on: bool, **partition) -> MetadataImage:
    image = _image(level)
    if elr_on:
        image = _features(image, finalized={"eligible.leader.replicas.version": 1})
    return _with_topic(image, TopicImage("t", TOPIC, {0: PartitionRegistration(**partition)}))


def _partition_written(image: MetadataImage, release: str = "4.2"):
    out = write_image(image, release=release)
    (partition,) = [r for r in out.records if r.name == "PartitionRecord"]
    return partition, out.losses


@pytest.mark.parametrize("level", [16, 17, 23])  # 3.7-IV1, 3.7-IV2, 4.0-IV1
def test_partition_registration_test_to_record(level):
    # PartitionRegistrationTest.testPartitionRegistrationToRecord (4.2.1): ELR on from 4.0-IV1
    partition, found = _partition_written(_partition_image(level, level >= 23, **PARTITION_WITH_ELR))
    expected = dict(topic_id=TOPIC, partition_id=0, replicas=[0, 1, 2, 3, 4], isr=[0, 1], leader=0,
                    leader_recovery_state=0, leader_epoch=0, partition_epoch=0)
    if level >= 23:
        expected.update(eligible_leader_replicas=[2, 3], last_known_elr=[4])
    if level >= 17:
        expected["directories"] = list(PARTITION_WITH_ELR["directories"])
    assert partition.encode_value() == record("PartitionRecord", partition.version, **expected).encode_value()
    assert partition.version == {16: 0, 17: 1, 23: 2}[level]
    assert ("the directory assignment state of one or more replicas" in [loss.what for loss in found]) == (level < 17)


def test_partition_registration_test_elr_should_be_null_if_empty():
    # PartitionRegistrationTest.testPartitionRegistrationToRecord_ElrShouldBeNullIfEmpty (4.2.1)
    fields = dict(PARTITION_WITH_ELR, elr=(), last_known_elr=(), directories=(uuid.UUID(int=0),) * 5)
    partition, found = _partition_written(_partition_image(23, False, **fields))
    assert (partition.version, partition.message.eligible_leader_replicas, partition.message.last_known_elr,
            found) == (2, None, None, [])


def test_a_4x_writer_writes_elr_by_the_feature_and_reports_what_it_drops():
    # the level alone is not enough for 4.2.1: ELR off, the replicas are dropped without a word from Kafka
    partition, found = _partition_written(_partition_image(23, False, **PARTITION_WITH_ELR))
    assert (partition.version, partition.message.eligible_leader_replicas) == (2, None)
    assert [(loss.what, loss.kafka_words) for loss in found] == [
        ("the eligible leader replicas of one or more partitions", False)]
    # ELR on but a level below 4.0-IV1: the record has no field for them
    # (nor can the level carry the feature itself: ELR 1 depends on 4.0-IV1)
    elr_feature = ("eligible.leader.replicas.version level 1 (eligible.leader.replicas.version could not be set "
                   "to 1 because it depends on metadata.version level 23): dropped (level 0)")
    _, found = _partition_written(_partition_image(21, True, **PARTITION_WITH_ELR), release="4.2")
    assert [loss.what for loss in found] == [elr_feature, "the eligible leader replicas of one or more partitions"]
    # a 3.x writer decides by level alone, and no 3.x level has ELR
    _, found = _partition_written(_partition_image(21, True, **PARTITION_WITH_ELR), release="3.9")
    assert [loss.what for loss in found] == [elr_feature, "the eligible leader replicas of one or more partitions"]


def test_a_4x_writer_leaves_out_a_kraft_version_feature_level_record():
    image = _features(_image(21), finalized={"kraft.version": 1, "group.version": 1})
    names = {release: [r.message.name for r in write_image(image, release=release).records
                       if r.name == "FeatureLevelRecord"] for release in ("3.9", "4.0")}
    assert sorted(names["3.9"]) == ["group.version", "kraft.version", "metadata.version"]
    assert names["4.0"] == ["metadata.version", "group.version"]  # KAFKA-18979: skipped on replay, so no loss
    assert write_image(image, release="4.0").losses == []


def test_a_42_writer_leaves_out_the_configs_kafka_421_does_not_define():
    # DefaultSupportedConfigChecker (4.2.1): topic, group and client-metrics configs by name, any broker config
    image = _image(21, configs=ConfigurationsImage({
        (2, "foo"): {"segment.bytes": "1048576", "message.format.version": "3.0-IV1", "invalid.topic.config": "x"},
        (4, "1"): {"listener.name.EXTERNAL.ssl.keystore.location": "/k", "log.cleaner.threads": "2"},
        (32, "g"): {"consumer.session.timeout.ms": "45000", "invalid.group.config": "y"},
        (16, "m"): {"interval.ms": "1000"},
    }))

    def configs(release):
        out = write_image(image, release=release)
        return sorted((r.message.resource_name, r.message.name) for r in out.records if r.name == "ConfigRecord"), \
            [(loss.what, loss.kafka_words) for loss in out.losses]

    kept, lost = configs("4.1")
    assert len(kept) == 8 and lost == []
    kept, lost = configs("4.2")
    assert kept == [("1", "listener.name.EXTERNAL.ssl.keystore.location"), ("1", "log.cleaner.threads"),
                    ("foo", "segment.bytes"), ("g", "consumer.session.timeout.ms"), ("m", "interval.ms")]
    assert lost == [("the configs Kafka 4.2.1 does not define, which it skips on replay: TOPIC 'foo' "
                     "(message.format.version, invalid.topic.config), GROUP 'g' (invalid.group.config)", False)]


# ---------------------------------------------------------------- the order of the topics

def _kafka_uuid_hash(value: uuid.UUID) -> int:
    """Kafka's ``Uuid.hashCode()`` (clients/.../common/Uuid.java, 3.8.0): ``(int) (xor >> 32) ^ (int) xor``
    of the two 64-bit halves, as a signed 32-bit int."""
    xor = (value.int >> 64) ^ (value.int & (2**64 - 1))
    h = ((xor >> 32) ^ xor) & 0xFFFFFFFF
    return h - 2**32 if h >= 2**31 else h


def test_topics_are_written_in_the_order_of_kafkas_topic_map():
    # TopicsImage keeps topicsById in an ImmutableMap, a PCollections HashTreePMap (3.8.0), which
    # iterates by ascending signed hashCode. Two topics whose uuid order is the reverse of that:
    # the one whose hash is negative (low half 0x80000000) comes first.
    negative = uuid.UUID(int=(0x10 << 64) | 0x80000000)
    positive = uuid.UUID(int=(0x10 << 64) | 0x5)
    assert positive < negative and _kafka_uuid_hash(negative) < 0 < _kafka_uuid_hash(positive)
    replayer = MetadataReplayer()
    for r in read_snapshot(SNAPSHOT_361).records:
        replayer.replay(r.message)
    replayer.replay(TopicRecord(name="positive", topic_id=positive))
    replayer.replay(TopicRecord(name="negative", topic_id=negative))
    written = [r.message.topic_id for r in write_image(replayer.image).records if r.name == "TopicRecord"]
    assert len(written) == 4
    assert written == sorted(written, key=_kafka_uuid_hash)
    assert written.index(negative) < written.index(positive)
