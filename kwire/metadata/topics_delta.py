"""Changes to the topics and their partitions (Kafka's ``TopicsDelta`` and ``TopicDelta``), and
``PartitionRegistration.merge``: how a PartitionChangeRecord changes a partition."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any
from uuid import UUID

from kwire.generated import ClearElrRecord, PartitionChangeRecord, PartitionRecord, RemoveTopicRecord, TopicRecord
from kwire.metadata.changes import MapChanges
from kwire.metadata.errors import ReplayError
from kwire.metadata.image import (
    DIRECTORY_MIGRATING,
    LEADER_RECOVERY_STATES,
    PartitionRegistration,
    TopicImage,
    TopicsImage,
)
from kwire.wire.uuids import uuid_to_text

NO_LEADER_CHANGE = -2
NO_RECOVERY_STATE_CHANGE = -1


class TopicsDelta:
    """``clear_elr_covers_delta_topics``: whether a ClearElrRecord for every topic clears the topics
    this delta created as well as the image's (the release's rule, see
    :class:`kwire.features.releases.KafkaRelease`)."""

    def __init__(self, image: TopicsImage, *, clear_elr_covers_delta_topics: bool = True) -> None:
        self.image = image
        self.clear_elr_covers_delta_topics = clear_elr_covers_delta_topics
        self.topics = MapChanges(image.by_id)
        self.partitions: dict[UUID, MapChanges[int, PartitionRegistration]] = {}  # topics with changed partitions

    def topic(self, topic_id: UUID) -> TopicImage | None:
        return self.topics.get(topic_id)

    def by_name(self, name: str) -> TopicImage | None:
        return next((t for t in self.topics.current().values() if t.name == name), None)

    def replay_topic(self, record: TopicRecord) -> None:
        self.topics.set(record.topic_id, TopicImage(record.name, record.topic_id))
        self.partitions.pop(record.topic_id, None)

    def replay_partition(self, record: PartitionRecord) -> None:
        if self.topics.get(record.topic_id) is None:
            raise ReplayError(f"PartitionRecord for topic {uuid_to_text(record.topic_id)}, which does not exist")
        self._partitions(record.topic_id).set(record.partition_id, partition_from_record(record))

    def replay_partition_change(self, record: PartitionChangeRecord) -> None:
        topic = self.topics.get(record.topic_id)
        partition = self._partitions(record.topic_id).get(record.partition_id) if topic else None
        if topic is None or partition is None:
            raise ReplayError(f"Unable to find partition {uuid_to_text(record.topic_id)}:{record.partition_id}")
        self._partitions(record.topic_id).set(record.partition_id, merge_partition_change(partition, record))

    def replay_remove_topic(self, record: RemoveTopicRecord) -> TopicImage:
        """Removes the topic; returns it (its configs go too: :class:`kwire.metadata.configs_delta`)."""
        topic = self.topics.remove(record.topic_id)
        if topic is None:
            raise ReplayError(f"Unable to delete topic with id {uuid_to_text(record.topic_id)}: no such topic found.")
        self.partitions.pop(record.topic_id, None)
        return topic

    def replay_clear_elr(self, record: ClearElrRecord) -> None:
        if record.topic_name:
            topic = self.by_name(record.topic_name)
            if topic is None:
                raise ReplayError(f"Unable to clear elr for topic with name {record.topic_name}: no such topic found.")
            topic_ids = [topic.id]
        elif self.clear_elr_covers_delta_topics:
            topic_ids = list(self.topics)
        else:
            topic_ids = [topic_id for topic_id in self.topics if topic_id in self.image.by_id]
        for topic_id in topic_ids:
            partitions = self._partitions(topic_id)
            for partition_id in partitions:
                partition = partitions.get(partition_id)
                if partition is not None and (partition.elr or partition.last_known_elr):
                    partitions.set(partition_id, _merged(partition, elr=(), last_known_elr=()))

    def apply(self) -> TopicsImage:
        for topic_id, partitions in self.partitions.items():
            topic = self.topics.get(topic_id)
            if topic is not None and partitions.changed:
                self.topics.set(topic_id, replace(topic, partitions=partitions.frozen()))
        return replace(self.image, by_id=self.topics.frozen())

    def _partitions(self, topic_id: UUID) -> MapChanges[int, PartitionRegistration]:
        changes = self.partitions.get(topic_id)
        if changes is None:
            topic = self.topics.get(topic_id)
            base: Mapping[int, PartitionRegistration] = topic.partitions if topic is not None else {}
            changes = self.partitions[topic_id] = MapChanges(base)
        return changes


def _recovery_state(value: int) -> int:
    if value not in LEADER_RECOVERY_STATES:
        raise ReplayError(f"Value {value} is not a valid leader recovery state")
    return value


def _directories(replicas: tuple[int, ...], directories: list[UUID] | None,
                 record: PartitionRecord | PartitionChangeRecord) -> tuple[UUID, ...] | None:
    """A record's directories, checked against its replicas (InvalidReplicaDirectoriesException)."""
    if directories and len(directories) != len(replicas):
        raise ReplayError(f"The lengths for replicas and directories do not match: {record!r}")
    return None if directories is None else tuple(directories)


def _default_to_migrating(directories: tuple[UUID, ...] | None, count: int) -> tuple[UUID, ...]:
    """No directories, or only MIGRATING ones, become MIGRATING for every replica."""
    if directories is None or all(d == DIRECTORY_MIGRATING for d in directories):
        return (DIRECTORY_MIGRATING,) * count
    return directories


def partition_from_record(record: PartitionRecord) -> PartitionRegistration:
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


def merge_partition_change(partition: PartitionRegistration, record: PartitionChangeRecord) -> PartitionRegistration:
    """``PartitionRegistration.merge``: fields the record carries replace the old ones; a new leader
    bumps the leader epoch; every change bumps the partition epoch."""
    replicas = partition.replicas if record.replicas is None else tuple(record.replicas)
    given: tuple[UUID, ...] | None
    if record.directories is None:
        given = partition.directories
    else:
        given = _directories(replicas, record.directories, record) if record.replicas is not None \
            else tuple(record.directories)
    directories = _default_to_migrating(given, len(replicas))
    if directories and len(directories) != len(replicas):
        raise ReplayError("The lengths for replicas and directories do not match.")
    changes: dict[str, Any] = {"replicas": replicas, "directories": directories}
    if record.isr is not None:
        changes["isr"] = tuple(record.isr)
    if record.removing_replicas is not None:
        changes["removing_replicas"] = tuple(record.removing_replicas)
    if record.adding_replicas is not None:
        changes["adding_replicas"] = tuple(record.adding_replicas)
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
    values = {f.name: getattr(partition, f.name) for f in fields(PartitionRegistration)}
    values.update(changes)
    values["partition_epoch"] = partition.partition_epoch + 1
    return PartitionRegistration(**values)
