"""The image and its deltas (issue 23 §2, after Kafka's ``MetadataImage`` / ``MetadataDelta``):
an image never changes, a delta makes the next one, the loader commits a delta per batch or
transaction and drops an aborted one, and the rules that depend on where a delta began follow the
release (Kafka 3.9.0 ``ConfigurationsDelta.replay(RemoveTopicRecord)``: only the image's configs;
4.0.0 ``TopicsDelta.replay(ClearElrRecord)``: every topic of the image, 4.1 those of the delta too).
"""
from __future__ import annotations

import dataclasses
import typing
import uuid

import pytest

from kwire.features import kafka_release
from kwire.generated import (
    AbortTransactionRecord,
    BeginTransactionRecord,
    ClearElrRecord,
    ConfigRecord,
    EndTransactionRecord,
    FeatureLevelRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RemoveTopicRecord,
    TopicRecord,
)
from kwire.metadata import delta as delta_module
from kwire.metadata.delta import MetadataDelta
from kwire.metadata.image import ClusterImage, FeaturesImage, MetadataImage, TopicImage
from kwire.metadata.loader import load_image
from kwire.metadata.replay import MetadataReplayer, ReplayError
from tests.metadata.appended import write_log

TOPIC = uuid.UUID(int=0x1234)
OTHER = uuid.UUID(int=0x5678)


def _partition(topic_id: uuid.UUID = TOPIC, **fields) -> PartitionRecord:
    values = dict(partition_id=0, topic_id=topic_id, replicas=[1, 2, 3], isr=[1], leader=1, leader_epoch=0,
                  partition_epoch=0, eligible_leader_replicas=[2], last_known_elr=[3])
    values.update(fields)
    return PartitionRecord(**values)


def _image(*records) -> MetadataImage:
    replayer = MetadataReplayer()
    for r in records:
        replayer.replay(r)
    return replayer.image


# ------------------------------------------------------------------------------- frozen


def test_an_image_part_cannot_be_changed():
    image = _image(FeatureLevelRecord(name="metadata.version", feature_level=21),
                   FeatureLevelRecord(name="group.version", feature_level=1),
                   TopicRecord(name="t", topic_id=TOPIC), _partition())
    with pytest.raises(dataclasses.FrozenInstanceError):
        image.features.metadata_version = 7  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        image.topics = image.topics  # type: ignore[misc]
    with pytest.raises(TypeError):
        image.features.finalized["group.version"] = 2  # type: ignore[index]
    with pytest.raises(TypeError):
        image.topics.by_id[TOPIC].partitions[0] = None  # type: ignore[index]
    with pytest.raises(TypeError):
        del image.topics.by_id[TOPIC]  # type: ignore[attr-defined]
    assert image.features.finalized == {"group.version": 1}


def test_a_map_given_to_an_image_part_is_copied():
    levels = {"group.version": 1}
    features = FeaturesImage(21, levels)
    levels["group.version"] = 2
    assert features.finalized == {"group.version": 1}
    brokers: dict = {}
    cluster = ClusterImage(brokers=brokers)
    brokers[1] = None
    assert dict(cluster.brokers) == {}


# -------------------------------------------------------------------------- delta, apply


def test_apply_makes_the_next_image_and_leaves_the_first_as_it_was():
    first = _image(TopicRecord(name="t", topic_id=TOPIC), _partition())
    delta = MetadataDelta(first)
    delta.replay(PartitionChangeRecord(topic_id=TOPIC, partition_id=0, leader=2))
    delta.replay(TopicRecord(name="u", topic_id=OTHER))
    second = delta.apply()
    assert (first.topics.by_id[TOPIC].partitions[0].leader, second.topics.by_id[TOPIC].partitions[0].leader) == (1, 2)
    assert list(first.topics.by_id) == [TOPIC] and list(second.topics.by_id) == [TOPIC, OTHER]
    # parts no record touched are handed on as they are, not copied
    assert second.features is first.features and second.cluster is first.cluster
    assert delta.apply() is second
    with pytest.raises(RuntimeError, match="applied"):
        delta.replay(TopicRecord(name="v", topic_id=uuid.UUID(int=9)))


def test_a_delta_sees_its_own_records():
    # a PartitionRecord for a topic the same delta created, a change to a partition it created
    delta = MetadataDelta(MetadataImage())
    delta.replay(TopicRecord(name="t", topic_id=TOPIC))
    delta.replay(_partition())
    delta.replay(PartitionChangeRecord(topic_id=TOPIC, partition_id=0, isr=[1, 2]))
    assert delta.apply().topics.by_id[TOPIC].partitions[0].isr == (1, 2)


def test_every_replay_method_takes_the_record_class_it_is_listed_for():
    # the dispatch table pairs each generated record class with the method typed for it, so a
    # misspelt field in a method is mypy's error and a mismatched pair this test's
    for record_class, method in delta_module._REPLAY.items():
        hints = typing.get_type_hints(method, vars(delta_module))
        assert hints["record"] is record_class, method.__name__


def test_a_misspelt_field_fails_at_construction():
    with pytest.raises(TypeError):
        TopicRecord(nmae="t", topic_id=TOPIC)  # type: ignore[call-arg]


def test_an_unknown_record_type_is_refused():
    with pytest.raises(ReplayError, match="unknown metadata record type BeginTransactionRecord"):
        MetadataDelta(MetadataImage()).replay(BeginTransactionRecord(name="t"))


# ------------------------------------------------------------------- release rules


def test_remove_topic_takes_the_deltas_configs_too_only_in_the_controllers_view():
    image = _image(TopicRecord(name="t", topic_id=TOPIC))
    records = [ConfigRecord(resource_type=2, resource_name="t", name="retention.ms", value="1"),
               RemoveTopicRecord(topic_id=TOPIC)]
    for release, left in ((None, {}), (kafka_release("3.9"), {(2, "t"): {"retention.ms": "1"}}),
                          (kafka_release("4.2"), {(2, "t"): {"retention.ms": "1"}})):
        delta = MetadataDelta(image, release=release)
        for r in records:
            delta.replay(r)
        assert delta.apply().configs.resources == left, release
    # configs the image held go in every view
    held = _image(TopicRecord(name="t", topic_id=TOPIC),
                  ConfigRecord(resource_type=2, resource_name="t", name="retention.ms", value="1"))
    delta = MetadataDelta(held, release=kafka_release("3.9"))
    delta.replay(RemoveTopicRecord(topic_id=TOPIC))
    assert delta.apply().configs.resources == {}


def test_clear_elr_for_every_topic_4_0_clears_the_images_topics_4_1_the_deltas_too():
    image = _image(TopicRecord(name="old", topic_id=TOPIC), _partition())
    cleared = {}
    for name in (None, "4.0", "4.1"):
        delta = MetadataDelta(image, release=kafka_release(name) if name else None)
        delta.replay(TopicRecord(name="new", topic_id=OTHER))
        delta.replay(_partition(OTHER))
        delta.replay(ClearElrRecord(topic_name=""))
        after = delta.apply().topics.by_id
        cleared[name] = [after[t].partitions[0].elr == () for t in (TOPIC, OTHER)]
    assert cleared == {None: [True, True], "4.0": [True, False], "4.1": [True, True]}


# ------------------------------------------------------------------------------- loader


def _log(tmp_path, batches):
    # PartitionRecord v2 carries ELR
    return write_log(tmp_path, batches, lambda r: 2 if isinstance(r, PartitionRecord) else 0)


def test_an_aborted_transactions_delta_is_dropped_and_what_follows_is_kept(tmp_path):
    directory = _log(tmp_path, [
        [TopicRecord(name="before", topic_id=TOPIC), BeginTransactionRecord(name="t"),
         TopicRecord(name="dropped", topic_id=OTHER), _partition(OTHER)],
        [PartitionChangeRecord(topic_id=OTHER, partition_id=0, leader=2), AbortTransactionRecord(reason="x"),
         TopicRecord(name="after", topic_id=uuid.UUID(int=7))],
    ])
    loaded = load_image(directory)
    assert [t.name for t in loaded.image.topics.by_id.values()] == ["before", "after"]
    assert (loaded.records, loaded.aborted_records, loaded.open_transaction) == (4, 3, None)
    assert loaded.image.provenance.last_offset == 6


def test_an_open_transaction_leaves_the_image_where_it_began_within_a_batch(tmp_path):
    directory = _log(tmp_path, [
        [TopicRecord(name="before", topic_id=TOPIC), BeginTransactionRecord(name="t"),
         TopicRecord(name="open", topic_id=OTHER)],
    ])
    loaded = load_image(directory)
    assert [t.name for t in loaded.image.topics.by_id.values()] == ["before"]
    assert loaded.open_transaction == 1 and loaded.image.provenance.last_offset == 0


def test_a_transaction_spanning_batches_commits_when_it_ends(tmp_path):
    directory = _log(tmp_path, [
        [BeginTransactionRecord(name="t"), TopicRecord(name="t", topic_id=TOPIC)],
        [_partition()],
        [EndTransactionRecord(), PartitionChangeRecord(topic_id=TOPIC, partition_id=0, leader=2)],
    ])
    loaded = load_image(directory)
    assert loaded.image.topics.by_id[TOPIC].partitions[0].leader == 2
    assert loaded.records == 5 and loaded.image.provenance.last_offset == 4


def test_a_bad_record_in_a_transaction_is_refused_where_it_stands(tmp_path):
    # as Kafka's MetadataBatchLoader, records go into the transaction's delta at once: the error
    # names the record's own offset, not the EndTransactionRecord's
    directory = _log(tmp_path, [
        [BeginTransactionRecord(name="t"), PartitionChangeRecord(topic_id=TOPIC, partition_id=0, leader=2)],
        [EndTransactionRecord()],
    ])
    with pytest.raises(ReplayError, match="record at offset 1: PartitionChangeRecord: Unable to find partition"):
        load_image(directory)


def test_a_replayer_image_is_fixed_once_read():
    replayer = MetadataReplayer()
    replayer.replay(TopicRecord(name="t", topic_id=TOPIC))
    first = replayer.image
    replayer.replay(TopicRecord(name="u", topic_id=OTHER))
    assert list(first.topics.by_id) == [TOPIC] and list(replayer.image.topics.by_id) == [TOPIC, OTHER]
    assert isinstance(first.topics.by_id[TOPIC], TopicImage)
