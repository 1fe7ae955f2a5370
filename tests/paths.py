"""Where the test suite finds its data: the one place that knows (see tests/data/README.md)."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MESSAGE_DEFS = REPO / "message_defs"
DATA = REPO / "tests" / "data"

CAPTURES = DATA / "captures"  # frames recorded from real clients, and their record batches
KAFKA_GO = DATA / "kafka-go" / "fixtures"  # FetchResponse frames from a real broker (hex)
KRAFT_361 = DATA / "kraft-renoagilsaputra-kafka"  # a Kafka 3.6.1 node's metadata
KRAFT_390 = DATA / "kraft-ichwansh03-kafka-migration-log4j2"  # a Kafka 3.9.0 node's metadata
KAFKA_DEFINITIONS = DATA / "kafka-definitions"  # Apache Kafka's own definition files, unmodified
KAFKA_421_DEFINITIONS = KAFKA_DEFINITIONS / "kafka-4.2.1"  # every definition directory of Kafka 4.2.1
KAFKA_CHECKPOINTS = DATA / "kafka-checkpoints"  # state files written, and damaged ones read, by Kafka 3.9's classes
KAFKA_JSON = DATA / "kafka-json"  # Kafka's JSON form and record batches, written by Kafka's classes
KAFKA_VECTORS = DATA / "kafka-vectors"  # old versions' bytes written by Kafka 3.8.0's generated classes
KAFKA_UUID = DATA / "kafka-uuid" / "fromstring.tsv"  # what Kafka's Uuid.fromString accepts and refuses
KAFKA_RECORD_SCHEMA = DATA / "kafka-record-schema" / "DefaultRecord-schema.txt"  # Kafka's record layout, its words
