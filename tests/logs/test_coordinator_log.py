"""Coordinator records of Kafka 4.x: consumer-, share- and streams-group records on
``__consumer_offsets`` and the share coordinator's ``__share_group_state``.

Every key and value below was worked out by hand from the definitions (int16 record type or value
version, then the body: classic strings/arrays in the non-flexible keys, compact ones and a
tagged-field section in the flexible values), not taken from kwire's output.
"""
from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from kwire.logs.coordinator_log import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    CoordinatorLogWriter,
    CoordinatorRecord,
    RawCoordinatorRecord,
    decode_coordinator_record,
    read_coordinator_log,
)
from kwire.logs.dump import decoder_for
from kwire.wire.errors import DecodeError
from tests.generated.vectors import h

TOPIC_ID = bytes(range(16))

# (topic, key hex, value hex, key name, key fields, value name, value fields)
VECTORS = [
    (OFFSETS_TOPIC,
     "0003 0002 6731",  # type 3, GroupId "g1"
     "0000 00000005"  # v0, Epoch 5
     "01 00 08 0102030405060708",  # one tagged field: tag 0 (MetadataHash), 8 bytes
     "ConsumerGroupMetadataKey", {"group_id": "g1"},
     "ConsumerGroupMetadataValue", {"epoch": 5, "metadata_hash": 0x0102030405060708, "creation_time_ms": -1}),
    (OFFSETS_TOPIC,
     "0008 0001 67 0001 6d",  # type 8, GroupId "g", MemberId "m"
     "0000 0000000a 00000009 00"  # v0, MemberEpoch 10, PreviousMemberEpoch 9, State 0
     "02 000102030405060708090a0b0c0d0e0f 02 00000004"  # one topic, partitions [4]
     "01 00 05 02 00000007"  # its tagged AssignmentEpochs (tag 0, 5 bytes): [7]
     "01 00",  # no partitions pending revocation; no top-level tagged fields
     "ConsumerGroupCurrentMemberAssignmentKey", {"group_id": "g", "member_id": "m"},
     "ConsumerGroupCurrentMemberAssignmentValue", {"member_epoch": 10, "previous_member_epoch": 9, "state": 0}),
    (OFFSETS_TOPIC,
     "0015 0001 73 0001 6d",  # type 21, GroupId "s", MemberId "m"
     "0000 02 02 30 03 00000000 00000001 00"  # v0, ActiveTasks: subtopology "0", partitions [0, 1]
     "01 01 00",  # no standby or warm-up tasks; no tagged fields
     "StreamsGroupTargetAssignmentMemberKey", {"group_id": "s", "member_id": "m"},
     "StreamsGroupTargetAssignmentMemberValue", {}),
    (SHARE_STATE_TOPIC,
     "0000 0002 7367 000102030405060708090a0b0c0d0e0f 00000003",  # type 0, "sg", topic id, partition 3
     # v0, SnapshotEpoch 1, StateEpoch 2, LeaderEpoch 7, StartOffset 100
     "0000 00000001 00000002 00000007 0000000000000064"
     "000000000000000b 000000000000000c"  # CreateTimestamp 11, WriteTimestamp 12
     "02 0000000000000064 000000000000006d 02 0001 00"  # one batch: 100..109 acknowledged, delivered once
     "01 00 04 0000000a",  # tagged DeliveryCompleteCount (tag 0) = 10
     "ShareSnapshotKey", {"group_id": "sg", "partition": 3},
     "ShareSnapshotValue", {"snapshot_epoch": 1, "state_epoch": 2, "leader_epoch": 7, "start_offset": 100,
                            "create_timestamp": 11, "write_timestamp": 12, "delivery_complete_count": 10}),
]


@pytest.mark.parametrize("topic,key_hex,value_hex,key_name,key_fields,value_name,value_fields", VECTORS,
                         ids=[v[5] for v in VECTORS])
def test_hand_worked_records_decode_and_encode_back(topic, key_hex, value_hex, key_name, key_fields,
                                                    value_name, value_fields) -> None:
    key, value = h(key_hex), h(value_hex)
    record = decode_coordinator_record(topic, key, value, strict=True)
    assert isinstance(record, CoordinatorRecord)
    assert (record.key.NAME, record.value.NAME, record.value_version) == (key_name, value_name, 0)
    for name, expected in key_fields.items():
        assert getattr(record.key, name) == expected
    for name, expected in value_fields.items():
        assert getattr(record.value, name) == expected
    assert (record.encode_key(), record.encode_value()) == (key, value)


def test_nested_and_repeated_parts_of_the_vectors() -> None:
    cur = decode_coordinator_record(OFFSETS_TOPIC, h(VECTORS[1][1]), h(VECTORS[1][2])).value
    [topic] = cur.assigned_partitions
    assert (topic.topic_id, topic.partitions, topic.assignment_epochs) == (uuid.UUID(bytes=TOPIC_ID), [4], [7])
    assert cur.partitions_pending_revocation == []
    streams = decode_coordinator_record(OFFSETS_TOPIC, h(VECTORS[2][1]), h(VECTORS[2][2])).value
    assert [(t.subtopology_id, t.partitions) for t in streams.active_tasks] == [("0", [0, 1])]
    assert streams.standby_tasks == streams.warmup_tasks == []
    snap = decode_coordinator_record(SHARE_STATE_TOPIC, h(VECTORS[3][1]), h(VECTORS[3][2])).value
    [batch] = snap.state_batches
    assert (batch.first_offset, batch.last_offset, batch.delivery_state, batch.delivery_count) == (100, 109, 2, 1)


def test_share_update_tombstone() -> None:
    key = h("0001 0002 7367 000102030405060708090a0b0c0d0e0f 00000000")  # ShareUpdateKey, partition 0
    record = decode_coordinator_record(SHARE_STATE_TOPIC, key, None, strict=True)
    assert isinstance(record, CoordinatorRecord) and record.is_tombstone
    assert (record.key.NAME, record.key.partition) == ("ShareUpdateKey", 0)


@pytest.mark.parametrize("topic,record_type", [
    (OFFSETS_TOPIC, 18),  # StreamsGroupPartitionMetadata: not shipped (see message_defs/README.md)
    (OFFSETS_TOPIC, 99),
    (SHARE_STATE_TOPIC, 2),  # types are per topic: 2 is GroupMetadata only on __consumer_offsets
])
def test_unknown_record_types_stay_raw_or_fail_when_strict(topic, record_type) -> None:
    key = record_type.to_bytes(2, "big") + h("0001 67")
    value = h("0000 00")
    record = decode_coordinator_record(topic, key, value)
    assert isinstance(record, RawCoordinatorRecord) and record.record_type == record_type
    assert (record.encode_key(), record.encode_value()) == (key, value)
    with pytest.raises(DecodeError, match=f"record type {record_type}"):
        decode_coordinator_record(topic, key, value, strict=True)


def test_a_share_state_segment_reads_back(tmp_path: Path) -> None:
    writer = CoordinatorLogWriter()
    snapshot = decode_coordinator_record(SHARE_STATE_TOPIC, h(VECTORS[3][1]), h(VECTORS[3][2]))
    writer.append([snapshot], timestamp=1_700_000_000_000)
    folder = tmp_path / "__share_group_state-4"
    folder.mkdir()
    path = writer.write_segment(folder)
    [batch] = read_coordinator_log(path, SHARE_STATE_TOPIC, strict=True)
    [entry] = batch.entries
    assert entry.record.value.to_dict(0) == snapshot.value.to_dict(0)
    assert batch.encode() == Path(path).read_bytes()
    assert decoder_for(Path(path)) == "share-state"
