"""Hand-worked byte vectors for OffsetForLeaderEpoch (API key 23), worked from the wire rules.

Kafka 4.0 keeps v2-v4. v2 and v3 are not flexible (int16 string lengths, int32 array counts);
v3 adds ReplicaId at the front; v4 is flexible (compact lengths n + 1 as unsigned varints, an
empty tagged-field section 0x00 closing every struct). The example: a consumer (-1) asks where
epoch 5 of partition 2 of "orders" (6f 72 64 65 72 73) ended, believing the leader epoch is 7.
"""
from __future__ import annotations

from kwire.generated import OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse
from kwire.generated.offset_for_leader_epoch_request import OffsetForLeaderPartition, OffsetForLeaderTopic
from kwire.generated.offset_for_leader_epoch_response import EpochEndOffset, OffsetForLeaderTopicResult
from tests.generated.vectors import check, h


def request(replica_id: int = -1) -> OffsetForLeaderEpochRequest:
    return OffsetForLeaderEpochRequest(replica_id=replica_id, topics=[OffsetForLeaderTopic(
        topic="orders",
        partitions=[OffsetForLeaderPartition(partition=2, current_leader_epoch=7, leader_epoch=5)])])


def test_request_v2_has_no_replica_id() -> None:
    check(request(replica_id=-2), 2, h(   # v2 has no ReplicaId: the default -2 is not written
        "00000001",          # Topics: 1
        "0006 6f7264657273",  #   Topic "orders"
        "00000001",          #   Partitions: 1
        "00000002",          #     Partition 2
        "00000007",          #     CurrentLeaderEpoch 7
        "00000005",          #     LeaderEpoch 5
    ))


def test_request_v3_starts_with_replica_id() -> None:
    check(request(), 3, h(
        "ffffffff",          # ReplicaId -1: a consumer
        "00000001", "0006 6f7264657273", "00000001", "00000002", "00000007", "00000005",
    ))


def test_request_v4_flexible() -> None:
    check(request(), 4, h(
        "ffffffff",          # ReplicaId -1
        "02",                # Topics: compact array, 1 + 1
        "07 6f7264657273",   #   Topic: compact string, 6 + 1
        "02",                #   Partitions: 1 + 1
        "00000002", "00000007", "00000005",
        "00",                #     partition's tagged section
        "00",                #   topic's tagged section
        "00",                # request's tagged section
    ))


def test_response_v4_flexible() -> None:
    # The leader answers: epoch 5 ended at offset 1000 (0x3e8), no error, no throttling.
    response = OffsetForLeaderEpochResponse(throttle_time_ms=0, topics=[OffsetForLeaderTopicResult(
        topic="orders",
        partitions=[EpochEndOffset(error_code=0, partition=2, leader_epoch=5, end_offset=1000)])])
    check(response, 4, h(
        "00000000",          # ThrottleTimeMs 0
        "02", "07 6f7264657273", "02",
        "0000",              #     ErrorCode 0
        "00000002",          #     Partition 2
        "00000005",          #     LeaderEpoch 5
        "00000000000003e8",  #     EndOffset 1000
        "00", "00", "00",
    ))
