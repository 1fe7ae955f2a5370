"""Write a small Kafka data directory with kwire's own writers, for `make run` to decode.

    python examples/sample_data.py OUT_DIR

OUT_DIR/__cluster_metadata-0/ gets a KRaft metadata log (a leader change, feature levels, a
broker, a topic with its partitions, a config) and OUT_DIR/orders-0/ a partition segment with one
batch per compression codec, a transactional batch and its commit marker.
"""
from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path

from kwire.generated import (
    ConfigRecord,
    FeatureLevelRecord,
    LeaderChangeMessage,
    PartitionRecord,
    RegisterBrokerRecord,
    TopicRecord,
)
from kwire.generated.leader_change_message import Voter
from kwire.generated.register_broker_record import BrokerEndpoint
from kwire.logs.logdir import segment_file_name
from kwire.logs.metadata_log import MetadataLogWriter, MetadataRecord
from kwire.records import Codec, RecordBatchBuilder, build_end_transaction_batch
from kwire.wire.files import atomic_write

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def write_metadata_log(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    topic_id = uuid.UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
    log = MetadataLogWriter()
    log.append_control([LeaderChangeMessage(leader_id=1, voters=[Voter(voter_id=1)],
                                            granting_voters=[Voter(voter_id=1)])],
                       timestamp=START_MS, leader_epoch=1)
    log.append([MetadataRecord(FeatureLevelRecord(name="metadata.version", feature_level=21), 0),
                MetadataRecord(FeatureLevelRecord(name="kraft.version", feature_level=1), 0)],
               timestamp=START_MS + 10, leader_epoch=1)
    broker = RegisterBrokerRecord(broker_id=1, broker_epoch=5, incarnation_id=uuid.uuid5(topic_id, "broker-1"),
                                  end_points=[BrokerEndpoint(name="PLAINTEXT", host="localhost", port=9092)])
    log.append([MetadataRecord(broker, 3)], timestamp=START_MS + 20, leader_epoch=1)
    partitions = [MetadataRecord(PartitionRecord(partition_id=p, topic_id=topic_id, replicas=[1], isr=[1], leader=1,
                                                 leader_epoch=0, partition_epoch=0), 1) for p in range(3)]
    log.append([MetadataRecord(TopicRecord(name="orders", topic_id=topic_id), 0), *partitions,
                MetadataRecord(ConfigRecord(resource_type=2, resource_name="orders", name="retention.ms",
                                            value="604800000"), 0)],
               timestamp=START_MS + 30, leader_epoch=1)
    return log.write_segment(directory, force=True)  # the example's own output, written again each run


def write_partition(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    batches, offset = [], 0
    for codec in Codec:
        builder = RecordBatchBuilder(base_offset=offset, codec=codec)
        for i in range(5):
            builder.append(START_MS + offset + i, f"order-{offset + i}".encode(),
                           f'{{"codec": "{codec.name.lower()}", "n": {i}}}'.encode(), [("source", b"sample")])
        batches.append(builder.build())
        offset += 5
    txn = RecordBatchBuilder(base_offset=offset, codec=Codec.NONE, producer_id=4000, producer_epoch=0,
                             base_sequence=0, is_transactional=True)
    txn.append(START_MS + offset, b"order-txn", b'{"paid": true}')
    batches.append(txn.build())
    batches.append(build_end_transaction_batch(base_offset=offset + 1, producer_id=4000, producer_epoch=0,
                                               committed=True, coordinator_epoch=0, timestamp=START_MS + offset + 1))
    return atomic_write(directory / segment_file_name(0), b"".join(batches), force=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory to create (a Kafka data directory)")
    args = parser.parse_args(argv)
    written = [write_metadata_log(args.out / "__cluster_metadata-0"), write_partition(args.out / "orders-0")]
    for path in written:
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
