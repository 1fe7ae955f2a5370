"""Hand-worked byte vectors for AlterPartitionRequest (API key 56) and ConsumerProtocolSubscription.

Each expected byte string was written field by field from the wire rules (big-endian ints,
flexible versions use compact lengths = n + 1 as unsigned varints and end every struct with a
tagged-field section, here empty = 0x00), not from kwire's output. Checked both ways: the object
encodes to these bytes and the bytes decode to the object.
"""
from __future__ import annotations

import uuid

from kwire.generated import AlterPartitionRequest, ConsumerProtocolSubscription
from kwire.generated.alter_partition_request import BrokerState, PartitionData, TopicData
from kwire.generated.consumer_protocol_subscription import TopicPartition
from tests.generated.vectors import check, h

TOPIC_ID = uuid.UUID("0102030405060708090a0b0c0d0e0f10")



def test_alter_partition_request_v0_by_topic_name() -> None:
    # v0: topics by name, the ISR as plain broker ids, no LeaderRecoveryState yet; flexible from v0.
    request = AlterPartitionRequest(
        broker_id=1, broker_epoch=42,
        topics=[TopicData(topic_name="foo", partitions=[
            PartitionData(partition_index=0, leader_epoch=5, new_isr=[1, 2], partition_epoch=7)])],
    )
    wire = h(
        "00000001",            # BrokerId 1
        "000000000000002a",    # BrokerEpoch 42
        "02",                  # Topics: compact array, 1 element (1 + 1)
        "04 666f6f",           #   TopicName "foo": compact string, length 3 + 1
        "02",                  #   Partitions: 1 element
        "00000000",            #     PartitionIndex 0
        "00000005",            #     LeaderEpoch 5
        "03 00000001 00000002",  #   NewIsr: compact array of 2 int32s
        "00000007",            #     PartitionEpoch 7
        "00",                  #     partition's tagged section
        "00",                  #   topic's tagged section
        "00",                  # message's tagged section
    )
    check(request, 0, wire)


def test_alter_partition_request_v3_with_broker_epochs() -> None:
    # v2 switched to topic ids, v3 replaced NewIsr by (BrokerId, BrokerEpoch) pairs (KIP-903).
    request = AlterPartitionRequest(
        broker_id=1, broker_epoch=42,
        topics=[TopicData(topic_id=TOPIC_ID, partitions=[
            PartitionData(partition_index=3, leader_epoch=5,
                          new_isr_with_epochs=[BrokerState(broker_id=1, broker_epoch=42),
                                               BrokerState(broker_id=2, broker_epoch=-1)],
                          leader_recovery_state=1, partition_epoch=7)])],
    )
    wire = h(
        "00000001",                          # BrokerId 1
        "000000000000002a",                  # BrokerEpoch 42
        "02",                                # Topics: 1 element
        "0102030405060708090a0b0c0d0e0f10",  #   TopicId: 16 raw bytes
        "02",                                #   Partitions: 1 element
        "00000003",                          #     PartitionIndex 3
        "00000005",                          #     LeaderEpoch 5
        "03",                                #     NewIsrWithEpochs: 2 elements
        "00000001 000000000000002a 00",      #       broker 1, epoch 42, tagged section
        "00000002 ffffffffffffffff 00",      #       broker 2, epoch -1 (unknown), tagged section
        "01",                                #     LeaderRecoveryState 1 (int8)
        "00000007",                          #     PartitionEpoch 7
        "00", "00", "00",                    # partition, topic, message tagged sections
    )
    check(request, 3, wire)


def test_alter_partition_request_v3_defaults() -> None:
    # Nothing set: BrokerId 0, BrokerEpoch's default -1, an empty Topics array, empty tags.
    check(AlterPartitionRequest(), 3, h("00000000", "ffffffffffffffff", "01", "00"))


def test_consumer_protocol_subscription_v3() -> None:
    # The body of a consumer's JoinGroup protocol metadata (the int16 version before it is the
    # consumer protocol's framing, not part of this struct). Never flexible: int16 string lengths,
    # int32 array counts and bytes lengths, -1 for null.
    subscription = ConsumerProtocolSubscription(
        topics=["ab", "c"], user_data=None,
        owned_partitions=[TopicPartition(topic="ab", partitions=[0, 2])],
        generation_id=4, rack_id="r1",
    )
    wire = h(
        "00000002", "0002 6162", "0001 63",    # Topics: 2 strings, "ab" and "c"
        "ffffffff",                            # UserData null: length -1
        "00000001",                            # OwnedPartitions: 1 element
        "0002 6162",                           #   Topic "ab"
        "00000002 00000000 00000002",          #   Partitions [0, 2]
        "00000004",                            # GenerationId 4 (v2+)
        "0002 7231",                           # RackId "r1" (v3+)
    )
    check(subscription, 3, wire)
    # v0 stops after UserData: the later fields are not written.
    check(ConsumerProtocolSubscription(topics=["c"], user_data=b"\x01"), 0,
          h("00000001 0001 63", "00000001 01"))
