"""The metadata image: replaying records as Kafka's deltas do, logs and snapshots as its loader does.

Expected values come from the records Kafka itself wrote (read with ``kwire dump``, listed in the
fixtures' READMEs) and from Kafka's delta rules (metadata/src/main/java/org/apache/kafka/image,
3.9.0), worked by hand; none is kwire's own output.
"""
from __future__ import annotations

import base64
import uuid

import pytest

from kwire.generated import MESSAGES
from kwire.logs.metadata_log import MetadataLogWriter, MetadataRecord, SnapshotId, build_snapshot
from kwire.metadata.image import DIRECTORY_MIGRATING, MetadataImage
from kwire.metadata.loader import load_image
from kwire.metadata.replay import MetadataReplayer, ReplayError
from kwire.wire.errors import KwireError
from tests.metadata.appended import write_log
from tests.paths import KRAFT_361, KRAFT_390

SNAPSHOT_361 = KRAFT_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint"
TOPIC = uuid.UUID(int=0x1234)
OTHER_TOPIC = uuid.UUID(int=0x5678)


def kafka_uuid(text: str) -> uuid.UUID:
    return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))


def record(_type: str, **fields):
    return MESSAGES[_type](**fields)


def replay(*records, image: MetadataImage | None = None) -> MetadataImage:
    replayer = MetadataReplayer(image)
    for r in records:
        replayer.replay(r)
    return replayer.image


def broker(broker_id: int = 1, epoch: int = 10, **fields):
    from kwire.generated.register_broker_record import BrokerEndpoint, BrokerFeature

    return MESSAGES["RegisterBrokerRecord"](broker_id=broker_id, broker_epoch=epoch, incarnation_id=uuid.UUID(int=7),
                    end_points=[BrokerEndpoint(name="PLAINTEXT", host="h", port=9092, security_protocol=0)],
                    features=[BrokerFeature(name="metadata.version", min_supported_version=1,
                                            max_supported_version=21)], **fields)


def partition(**fields):
    values = dict(partition_id=0, topic_id=TOPIC, replicas=[1, 2, 3], isr=[1, 2, 3], leader=1,
                  leader_epoch=0, partition_epoch=0)
    values.update(fields)
    return record("PartitionRecord", **values)


# ----------------------------------------------------------------------------- real logs


def test_the_361_log_up_to_7111_is_the_image_of_kafkas_snapshot_at_7111():
    from_log = load_image(KRAFT_361, until=7111, use_snapshots=False)
    from_snapshot = load_image(KRAFT_361, until=7111)
    assert from_log.snapshot is None and from_snapshot.snapshot == SNAPSHOT_361
    assert from_log.image.same_metadata(from_snapshot.image)
    # both stand at offset 7110, and the log's timestamp there is the snapshot header's lastContainedLogTimestamp
    assert from_log.image.provenance == from_snapshot.image.provenance
    assert from_snapshot.image.provenance.last_timestamp == 1754474509545


def test_the_361_image_holds_what_kafka_wrote():
    image = load_image(KRAFT_361, until=7111).image
    assert image.features.metadata_version == 14 and image.features.zk_migration_state == 0
    (node,) = image.cluster.brokers.values()
    assert (node.id, node.epoch, node.fenced, node.rack) == (1, 5, False, None)
    assert node.incarnation_id == kafka_uuid("txeRQDjhSvmioQ_xywh-pA")
    assert {n: (e.host, e.port) for n, e in node.listeners.items()} == {"PLAINTEXT": ("localhost", 9092)}
    offsets = image.topics.by_id[kafka_uuid("L4_FyI0VQPmo1SQDSQau_g")]
    assert offsets.name == "__consumer_offsets" and sorted(offsets.partitions) == list(range(50))
    assert image.configs.resources == {(2, "__consumer_offsets"): {
        "compression.type": "producer", "cleanup.policy": "compact", "segment.bytes": "104857600"}}
    assert image.next_producer_id == 1000


def test_the_whole_390_log():
    loaded = load_image(KRAFT_390)
    image = loaded.image
    assert loaded.snapshot is None and loaded.open_transaction is None
    assert image.provenance.last_offset == 9800 and image.provenance.last_epoch == 13
    assert image.features.metadata_version == 21
    # the last RegisterBrokerRecord v3 and BrokerRegistrationChangeRecords after it
    (node,) = image.cluster.brokers.values()
    assert node.directories == (kafka_uuid("vuFdPhP_V3HjMM-sCpnodw"),)  # meta.properties' directory.id
    assert set(node.supported_features) == {"metadata.version", "kraft.version"}
    assert (node.fenced, node.in_controlled_shutdown) == (True, True)  # the node was shut down last
    assert list(image.cluster.controllers) == [1]
    # first_topic was removed (RemoveTopicRecord); the other two remain
    assert sorted(t.name for t in image.topics.by_id.values()) == ["__consumer_offsets", "learn-kafka"]
    # 13 restarts: one LeaderChangeMessage per epoch, all electing node 1
    assert [e.epoch for e in image.quorum.leaders] == list(range(1, 14))
    assert {e.leader_id for e in image.quorum.leaders} == {1}


def test_until_cuts_the_log_and_picks_the_newest_snapshot_at_or_below_it():
    early = load_image(KRAFT_361, until=100)
    assert early.snapshot is None and early.image.provenance.last_offset == 99
    late = load_image(KRAFT_361, until=8000)
    assert late.snapshot == SNAPSHOT_361 and late.image.provenance.last_offset == 7999
    assert late.files[-1].name.endswith(".log")


# ------------------------------------------------------------------------- transactions


def test_a_transaction_applies_when_it_ends_and_an_aborted_one_never(tmp_path):
    directory = write_log(tmp_path, [
        [record("BeginTransactionRecord", name="t1"), record("TopicRecord", name="kept", topic_id=TOPIC)],
        [record("EndTransactionRecord")],
        [record("BeginTransactionRecord", name="t2"), record("TopicRecord", name="dropped", topic_id=OTHER_TOPIC),
         record("AbortTransactionRecord", reason="test")],
    ])
    loaded = load_image(directory)
    assert [t.name for t in loaded.image.topics.by_id.values()] == ["kept"]
    assert loaded.aborted_records == 1 and loaded.open_transaction is None
    # cut inside the first transaction: nothing of it applied, the image stands before it began
    cut = load_image(directory, until=2)
    assert not cut.image.topics.by_id and cut.open_transaction == 0
    assert cut.image.provenance.last_offset == -1


def test_transaction_markers_out_of_order_are_refused(tmp_path):
    directory = write_log(tmp_path, [[record("EndTransactionRecord")]])
    with pytest.raises(ReplayError, match="EndTransactionRecord without having seen a BeginTransactionRecord"):
        load_image(directory)


# --------------------------------------------------------------------------- delta rules


def test_partition_change_merges_and_bumps_epochs():
    image = replay(record("TopicRecord", name="t", topic_id=TOPIC), partition(),
                   record("PartitionChangeRecord", partition_id=0, topic_id=TOPIC, isr=[1, 2]),
                   record("PartitionChangeRecord", partition_id=0, topic_id=TOPIC, leader=2,
                          eligible_leader_replicas=[3], leader_recovery_state=1))
    p = image.topics.by_id[TOPIC].partitions[0]
    assert (p.isr, p.leader, p.elr, p.leader_recovery_state) == ((1, 2), 2, (3,), 1)
    # a new leader bumps the leader epoch, every change the partition epoch
    assert (p.leader_epoch, p.partition_epoch) == (1, 2)
    assert p.directories == (DIRECTORY_MIGRATING,) * 3  # no directories in the records: MIGRATING


def test_partition_directories_must_match_replicas():
    with pytest.raises(ReplayError, match="lengths for replicas and directories"):
        replay(record("TopicRecord", name="t", topic_id=TOPIC), partition(directories=[uuid.uuid4()]))


def test_change_to_a_missing_partition_is_refused():
    with pytest.raises(ReplayError, match="Unable to find partition"):
        replay(record("PartitionChangeRecord", partition_id=0, topic_id=TOPIC, isr=[1]))


def test_clear_elr_clears_and_bumps_only_partitions_that_had_elr():
    image = replay(record("TopicRecord", name="t", topic_id=TOPIC), partition(eligible_leader_replicas=[2]),
                   partition(partition_id=1), record("ClearElrRecord", topic_name=""))
    parts = image.topics.by_id[TOPIC].partitions
    assert (parts[0].elr, parts[0].partition_epoch, parts[0].leader_epoch) == ((), 1, 0)
    assert parts[1].partition_epoch == 0


def test_removing_a_topic_removes_its_configs():
    image = replay(record("TopicRecord", name="t", topic_id=TOPIC),
                   record("ConfigRecord", resource_type=2, resource_name="t", name="retention.ms", value="1"),
                   record("ConfigRecord", resource_type=4, resource_name="", name="x", value="y"),
                   record("RemoveTopicRecord", topic_id=TOPIC))
    assert not image.topics.by_id and list(image.configs.resources) == [(4, "")]
    with pytest.raises(ReplayError, match="no such topic found"):
        replay(record("RemoveTopicRecord", topic_id=TOPIC), image=image)


def test_a_null_config_value_deletes_the_key_and_an_empty_resource():
    image = replay(record("ConfigRecord", resource_type=4, resource_name="1", name="a", value="1"),
                   record("ConfigRecord", resource_type=4, resource_name="1", name="a", value=None))
    assert image.configs.resources == {}


def test_broker_fencing_and_changes():
    image = replay(broker(), record("BrokerRegistrationChangeRecord", broker_id=1, broker_epoch=10, fenced=1,
                                    in_controlled_shutdown=1, log_dirs=[uuid.UUID(int=9), uuid.UUID(int=3)]))
    b = image.cluster.brokers[1]
    assert (b.fenced, b.in_controlled_shutdown, b.directories) == (True, True, (uuid.UUID(int=3), uuid.UUID(int=9)))
    image = replay(record("UnfenceBrokerRecord", id=1, epoch=10), image=image)
    assert image.cluster.brokers[1].fenced is False
    with pytest.raises(ReplayError, match=r"Tried to fence broker 1, but the given epoch, 9, did not match "
                                          r"the current broker epoch, 10"):
        replay(record("FenceBrokerRecord", id=1, epoch=9), image=image)
    with pytest.raises(ReplayError, match="Tried to change broker 2, but that broker was not registered."):
        replay(record("BrokerRegistrationChangeRecord", broker_id=2, broker_epoch=1), image=image)
    with pytest.raises(ReplayError, match="unknown value for fenced field: 5"):
        replay(record("BrokerRegistrationChangeRecord", broker_id=1, broker_epoch=10, fenced=5), image=image)


def test_features_quotas_scram_acls_tokens():
    from kwire.generated.client_quota_record import EntityData

    user = [EntityData(entity_type="user", entity_name="alice")]
    acl_id = uuid.UUID(int=42)
    image = replay(
        record("FeatureLevelRecord", name="metadata.version", feature_level=20),
        record("FeatureLevelRecord", name="group.version", feature_level=1),
        record("FeatureLevelRecord", name="group.version", feature_level=0),  # level 0 removes a feature
        record("ClientQuotaRecord", entity=user, key="producer_byte_rate", value=1024.0),
        record("ClientQuotaRecord", entity=user, key="producer_byte_rate", remove=True),
        record("UserScramCredentialRecord", name="alice", mechanism=1, salt=b"s", stored_key=b"k", server_key=b"v",
               iterations=4096),
        record("RemoveUserScramCredentialRecord", name="alice", mechanism=1),
        record("AccessControlEntryRecord", id=acl_id, resource_type=2, resource_name="t", pattern_type=3,
               principal="User:alice", host="*", operation=3, permission_type=3),
        record("DelegationTokenRecord", token_id="tok", owner="User:alice", requester="User:alice",
               renewers=["User:bob"], issue_timestamp=1, max_timestamp=3, expiration_timestamp=2),
        record("ZkMigrationStateRecord", zk_migration_state=3),
    )
    assert image.features.metadata_version == 20 and image.features.finalized == {}
    assert image.client_quotas.entities == {} and image.scram == {}
    assert list(image.acls) == [acl_id] and list(image.delegation_tokens) == ["tok"]
    assert image.features.zk_migration_state == 3
    with pytest.raises(ReplayError, match="Failed to find existing ACL with ID"):
        replay(record("RemoveAccessControlEntryRecord", id=uuid.UUID(int=1)), image=image)
    with pytest.raises(ReplayError, match="Value 9 is not a valid Zk migration state"):
        replay(record("ZkMigrationStateRecord", zk_migration_state=9), image=image)


def test_an_unknown_metadata_version_level_is_refused_when_levels_are_known():
    replayer = MetadataReplayer(known_metadata_version=lambda level: 1 <= level <= 25)
    with pytest.raises(ReplayError, match="No MetadataVersion with feature level 99"):
        replayer.replay(record("FeatureLevelRecord", name="metadata.version", feature_level=99))


# --------------------------------------------------------------------------------- quorum


def test_voters_and_kraft_version_from_a_snapshot_header(tmp_path):
    from kwire.generated.voters_record import Endpoint, KRaftVersionFeature, Voter

    voters = MESSAGES["VotersRecord"](version=0, voters=[Voter(
        voter_id=3, voter_directory_id=uuid.UUID(int=5),
        endpoints=[Endpoint(name="CONTROLLER", host="c3", port=9093)],
        kraft_version_feature=KRaftVersionFeature(min_supported_version=0, max_supported_version=1))])
    snapshot = build_snapshot([MetadataRecord(record("FeatureLevelRecord", name="metadata.version",
                                                     feature_level=21), 0)],
                              timestamp=5, snapshot_id=SnapshotId(10, 2), kraft_version=1, voters=voters,
                              last_contained_log_timestamp=4)
    path = snapshot.write(tmp_path)
    image = load_image(path).image
    assert image.quorum.kraft_version == 1
    assert [(v.id, v.endpoints) for v in image.quorum.voters] == [(3, (("CONTROLLER", "c3", 9093),))]
    assert (image.provenance.last_offset, image.provenance.last_epoch, image.provenance.last_timestamp) == (9, 2, 4)


def test_a_log_that_starts_after_its_newest_snapshot_is_missing_offsets(tmp_path):
    writer = MetadataLogWriter(100)
    writer.append([MetadataRecord(record("NoOpRecord"), 0)], timestamp=1, leader_epoch=1)
    directory = tmp_path / "__cluster_metadata-0"
    directory.mkdir()
    writer.write_segment(directory)
    with pytest.raises(KwireError, match="the log starts at offset 100 and no snapshot holds the offsets before it: "
                                         "offsets 0 to 99 are missing"):
        load_image(directory)


def test_bad_paths_are_clear_errors(tmp_path):
    with pytest.raises(KwireError, match="no such file or directory"):
        load_image(tmp_path / "absent")
    with pytest.raises(KwireError, match="no metadata log segments or snapshots"):
        load_image(tmp_path)
    with pytest.raises(KwireError, match="must not be negative"):
        load_image(KRAFT_390, until=-1)
