"""kwire on Spark (one shared local[2] session): the ``kwire`` data source and ``decode_column``.

The expected rows never come from the code under test. Partition logs are written by kafka-python
and aiokafka (C and pure-Python builders), by kwire's builder and by librdkafka (captured
batches), and read back independently with kafka-python's ``MemoryRecords``; the KRaft logs are
real Apache Kafka files whose record counts their README lists; coordinator records are
hand-worked bytes; message bodies for ``decode_column`` are real broker responses, decoded by
kafka-python for comparison.
"""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark and kwire.arrow are made of it: without it this module skips (fails under CI)

import base64
import functools
import json
import random
import re
import struct
from pathlib import Path

import pytest

from kwire.arrow import schemas
from kwire.cli.main import main as kwire_main
from kwire.fuzz.values import case_instance
from kwire.generated import MESSAGES
from kwire.logs.metadata_log import MetadataLogWriter, MetadataRecord
from kwire.records import Codec, RecordBatchBuilder, build_end_transaction_batch
from kwire.spark import decode_column, read_table
from kwire.spark.schemas import to_spark
from kwire.wire.errors import KwireError
from kwire.wire.index import load
from tests.packages import KpBuilder, KpMemoryRecords, aiokafka_c, aiokafka_py, pa
from tests.paths import CAPTURES, KRAFT_361, KRAFT_390

KRAFT_36, KRAFT_39 = KRAFT_361, KRAFT_390
TANSU_RAW = CAPTURES / "tansu" / "raw"
LIBRDKAFKA_BATCHES = CAPTURES / "librdkafka-mock" / "batches"
TANSU_BATCHES = CAPTURES / "tansu" / "batches"

CODEC_NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
TIMESTAMP_TYPES = {0: "CREATE_TIME", 1: "LOG_APPEND_TIME"}
BASE_TS = 1_700_000_000_000
SPLIT = 64 * 1024  # small, so the big segment spreads over many tasks


# --- writing a log directory with several independent writers ------------------------------------


def random_rows(rng: random.Random, count: int) -> list[tuple]:
    rows = []
    for _ in range(count):
        key = None if rng.random() < 0.1 else b"key-%d" % rng.randrange(1000)
        value = None if rng.random() < 0.05 else rng.randbytes(rng.choice([0, 3, 40, 200, 400]))
        headers = []
        if rng.random() < 0.3:
            headers = [("trace", rng.randbytes(8)), ("ünï", b""), ("null", None)][: rng.randrange(1, 4)]
        rows.append((BASE_TS + rng.randrange(-5000, 5000), key, value, headers))
    return rows


def client_batch(builder_cls, codec: Codec, rows, base_offset: int, producer=(-1, -1, -1), transactional=False):
    pid, epoch, seq = producer
    builder = builder_cls(2, int(codec), transactional, pid, epoch, seq, 10**9)
    for i, (ts, key, value, headers) in enumerate(rows):
        assert builder.append(i, ts, key, value, headers) is not None
    return rebase(bytes(builder.build()), base_offset)


def rebase(batch: bytes, base_offset: int) -> bytes:
    """The batch at another base offset, as a broker assigns it (the field is outside the CRC)."""
    return struct.pack(">q", base_offset) + batch[8:]


def kwire_batch(codec: Codec, rows, base_offset: int, **options) -> bytes:
    builder = RecordBatchBuilder(base_offset=base_offset, codec=codec, **options)
    for ts, key, value, headers in rows:
        builder.append(ts, key, value, headers)
    return builder.build()


CLIENTS = [KpBuilder, aiokafka_c.DefaultRecordBatchBuilder, aiokafka_py._DefaultRecordBatchBuilderPy]


class Segment:
    """Batches appended at consecutive offsets."""

    def __init__(self, base_offset: int = 0) -> None:
        self.next_offset = base_offset
        self.parts: list[bytes] = []

    def add(self, make, rows_or_count) -> None:
        count = rows_or_count if isinstance(rows_or_count, int) else len(rows_or_count)
        self.parts.append(make(self.next_offset))
        self.next_offset += count

    def write(self, path: Path, tail: bytes = b"") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(self.parts) + tail)


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory) -> Path:
    rng = random.Random(8)
    root = tmp_path_factory.mktemp("kafka-logs")

    # orders-0: every client and codec, transactions with both markers, log-append time, two segments
    first = Segment(0)
    for index, codec in enumerate(Codec):
        rows = random_rows(rng, 20)
        first.add(lambda at, rows=rows, codec=codec, index=index: client_batch(CLIENTS[index % 3], codec, rows, at),
                  rows)
    for codec in Codec:
        rows = random_rows(rng, 15)
        first.add(lambda at, rows=rows, codec=codec: kwire_batch(codec, rows, at, partition_leader_epoch=4), rows)
    rows = random_rows(rng, 10)
    first.add(lambda at: kwire_batch(Codec.GZIP, rows, at, log_append_time=BASE_TS + 99_999), rows)
    rows = random_rows(rng, 12)
    first.add(lambda at: kwire_batch(Codec.LZ4, rows, at, producer_id=77, producer_epoch=3, base_sequence=0,
                                     is_transactional=True), rows)
    first.add(lambda at: build_end_transaction_batch(committed=True, producer_id=77, producer_epoch=3,
                                                     coordinator_epoch=9, timestamp=BASE_TS, base_offset=at), 1)
    rows = random_rows(rng, 8)
    first.add(lambda at: client_batch(CLIENTS[1], Codec.ZSTD, rows, at, producer=(88, 1, 0), transactional=True), rows)
    first.add(lambda at: build_end_transaction_batch(committed=False, producer_id=88, producer_epoch=1,
                                                     coordinator_epoch=9, timestamp=BASE_TS, base_offset=at), 1)
    first.write(root / "orders-0" / "00000000000000000000.log")
    second = Segment(first.next_offset)
    rows = random_rows(rng, 20)
    second.add(lambda at: client_batch(KpBuilder, Codec.NONE, rows, at, producer=(5, 0, 0)), rows)
    rows = [(BASE_TS + i, b"k", b"value-%03d" % i, []) for i in range(5)]
    damaged = bytearray(kwire_batch(Codec.NONE, rows, second.next_offset))
    damaged[damaged.index(b"value-002") + 6] ^= 0x20  # a flipped bit: the CRC no longer matches
    second.add(lambda at: bytes(damaged), rows)
    second.write(root / "orders-0" / f"{first.next_offset:020d}.log")
    for junk in ("00000000000000000000.index", "00000000000000000000.timeindex", "leader-epoch-checkpoint",
                 "partition.metadata", "00000000000000000024.snapshot"):
        (root / "orders-0" / junk).write_bytes(b"\x00\x00\x00\x01 not batches")

    # orders-1: one big segment of many batches (split over tasks), ending mid-batch as after a crash
    big = Segment(0)
    for i in range(160):
        rows = random_rows(rng, rng.randrange(5, 30))
        codec = list(Codec)[i % 5]
        if i % 4 == 3:
            big.add(lambda at, rows=rows, codec=codec: kwire_batch(codec, rows, at), rows)
        else:
            big.add(lambda at, rows=rows, codec=codec, i=i: client_batch(CLIENTS[i % 3], codec, rows, at), rows)
    big.write(root / "orders-1" / "00000000000000000000.log")  # torn tails: test_undecoded_ranges_* below

    # events-0: what librdkafka produced, one batch per codec, at the offsets a broker gives them
    captured = Segment(0)
    for path in sorted(LIBRDKAFKA_BATCHES.glob("cap-*.batch")):
        data = path.read_bytes()
        count = struct.unpack_from(">i", data, 57)[0]
        captured.add(lambda at, data=data: rebase(data, at), count)
    captured.write(root / "events-0" / "00000000000000000000.log")

    # a loose file of batches from kafka-python's producer (no topic-N folder: topic and partition null)
    (root / "loose").mkdir()
    produced = TANSU_BATCHES / "kafka-python_t-kp_p2_produce_v9.batch"
    (root / "loose" / "kafka-python.batch").write_bytes(produced.read_bytes())
    return root


def independent_rows(root: Path) -> list[dict]:
    """Every record under ``root``, read by kafka-python, in file order."""
    files = sorted([*root.rglob("*.log"), *root.rglob("*.batch")], key=str)
    rows = []
    for path in files:
        folder = path.parent.name
        topic, _, partition = folder.rpartition("-")
        topic, partition = (topic, int(partition)) if partition.isdigit() else (None, None)
        records = KpMemoryRecords(path.read_bytes())
        while (batch := records.next_batch()) is not None:
            crc_valid = batch.validate_crc()
            for record in batch:
                rows.append({
                    "topic": topic, "partition": partition, "file": str(path),
                    "base_offset": batch.base_offset, "partition_leader_epoch": batch.leader_epoch,
                    "producer_id": batch.producer_id, "producer_epoch": batch.producer_epoch,
                    "base_sequence": batch.base_sequence, "is_transactional": batch.is_transactional,
                    "is_control": batch.is_control_batch, "compression": CODEC_NAMES[batch.compression_type],
                    "crc_valid": crc_valid, "offset": record.offset, "timestamp": record.timestamp,
                    "timestamp_type": TIMESTAMP_TYPES[record.timestamp_type], "key": record.key,
                    "value": record.value,
                    "headers": [{"key": k, "value": v} for k, v in record.headers],
                })
    return rows


@pytest.fixture(scope="module")
def expected_rows(log_dir) -> list[dict]:
    return independent_rows(log_dir)


def test_spark_reads_exactly_what_kafka_python_reads(spark, log_dir, expected_rows):
    frame = spark.read.format("kwire").option("maxSplitBytes", SPLIT).load(str(log_dir))
    assert frame.schema == to_spark(schemas.RECORD_SCHEMA)
    rows = frame.toArrow().to_pylist()
    assert len(rows) == len(expected_rows)
    assert rows == expected_rows  # in order: no record lost or repeated at a cut
    # the cases the log was built to contain are really there
    assert {r["compression"] for r in rows} == set(CODEC_NAMES.values())
    assert sum(r["is_control"] for r in rows) == 2
    assert [r["crc_valid"] for r in rows].count(False) == 5
    assert any(r["timestamp_type"] == "LOG_APPEND_TIME" for r in rows)
    assert any(r["topic"] is None for r in rows)


def test_single_process_reader_gives_the_same_rows(log_dir, expected_rows):
    table = read_table(str(log_dir), max_split_bytes=SPLIT)
    assert table.schema.equals(schemas.RECORD_SCHEMA)
    assert table.to_pylist() == expected_rows


def test_big_segments_spread_over_tasks(spark, log_dir):
    from pyspark.sql.functions import spark_partition_id

    frame = spark.read.format("kwire").option("maxSplitBytes", SPLIT).load(str(log_dir))
    files = 5
    assert frame.rdd.getNumPartitions() > files
    tasks_per_file = dict(
        frame.select("file", spark_partition_id().alias("task")).distinct().groupBy("file").count().collect()
    )
    big = str(log_dir / "orders-1" / "00000000000000000000.log")
    assert tasks_per_file[big] >= (log_dir / "orders-1" / "00000000000000000000.log").stat().st_size // SPLIT
    assert len(tasks_per_file) == files


# --- KRaft metadata logs --------------------------------------------------------------------------

# Record types of the Kafka 3.6.1 fixture (log + snapshot + bootstrap), as its README counts them.
KRAFT_36_TYPES = {
    "NoOpRecord": 18122, "PartitionChangeRecord": 357, "PartitionRecord": 51 + 51,
    "BrokerRegistrationChangeRecord": 9 + 4, "RegisterBrokerRecord": 5 + 1, "ConfigRecord": 3 + 3,
    "ProducerIdsRecord": 4 + 1, "TopicRecord": 2 + 2, "FeatureLevelRecord": 1 + 1 + 1,
    "ZkMigrationStateRecord": 1 + 1, "BeginTransactionRecord": 1, "EndTransactionRecord": 1,
    "LeaderChangeMessage": 5, "SnapshotHeaderRecord": 1 + 1, "SnapshotFooterRecord": 1 + 1,
}


def test_a_real_metadata_log_decodes_every_record(spark):
    frame = spark.read.format("kwire").load(str(KRAFT_36))
    table = frame.toArrow()
    assert table.to_pylist() == read_table(str(KRAFT_36)).to_pylist()
    counts: dict[str, int] = {}
    for name in table["record_type"].to_pylist():
        counts[name] = counts.get(name, 0) + 1
    assert counts == KRAFT_36_TYPES
    pairs = [(t, v) for t, v in zip(table["record_type"].to_pylist(), table["record_version"].to_pylist(), strict=True)
             if t == "BrokerRegistrationChangeRecord"]
    assert sorted(pairs) == [("BrokerRegistrationChangeRecord", 0)] * 9 + [("BrokerRegistrationChangeRecord", 1)] * 4
    feature = [json.loads(j)
               for t, j in zip(table["record_type"].to_pylist(), table["record_json"].to_pylist(), strict=True)
               if t == "FeatureLevelRecord"]
    assert {(f["name"], f["featureLevel"]) for f in feature} == {("metadata.version", 14)}


def assert_typed_matches_kafka_json(cls, version: int, typed: dict, kafka: dict) -> None:
    """A typed struct (Spark's JSON of it) against Kafka's JSON form of the same message."""
    for info in cls.FIELDS:
        if info.attr not in typed:
            assert not info.present(version), info.attr
            continue
        if not info.present(version):
            assert typed[info.attr] is None, info.attr
        elif info.json_name in kafka:  # absent: a tagged field at its default, which Kafka leaves out
            assert_same_value(info, info.type, version, typed[info.attr], kafka[info.json_name])
    if "unknown_tagged_fields" in typed:
        assert (typed["unknown_tagged_fields"] or []) == kafka.get("_unknownTaggedFields", [])


def assert_same_value(info, type_name: str, version: int, typed, kafka) -> None:
    if kafka is None:
        assert typed is None, info.attr
    elif type_name.startswith("[]"):
        assert len(typed) == len(kafka), info.attr
        for a, b in zip(typed, kafka, strict=True):
            assert_same_value(info, type_name[2:], version, a, b)
    elif info.struct is not None:
        assert_typed_matches_kafka_json(info.struct, version, typed, kafka)
    else:
        assert typed == kafka, info.attr  # bytes are base64 and uuids base64url in both


def typed_rows_as_json(spark, path: Path, record_types: list[str]) -> list[dict]:
    """(type, version, typed struct as JSON, record_json) of every record of ``record_types``,
    in one Spark job over one load per type."""
    from pyspark.sql.functions import col, lit, to_json

    frames = [
        spark.read.format("kwire").option("recordType", name).load(str(path)).select(
            lit(name).alias("type"), "offset", "record_version", "record_json",
            to_json(col("record"), {"ignoreNullFields": "false"}).alias("typed"),
        )
        for name in record_types
    ]
    union = functools.reduce(lambda a, b: a.unionByName(b), frames)
    return [row.asDict() for row in union.collect()]


def test_a_real_metadata_log_gives_typed_columns(spark):
    names = ["PartitionRecord", "RegisterBrokerRecord", "PartitionChangeRecord", "ConfigRecord",
             "LeaderChangeMessage"]
    rows = typed_rows_as_json(spark, KRAFT_36, names) + typed_rows_as_json(spark, KRAFT_39, ["RegisterBrokerRecord"])
    assert len([r for r in rows if r["type"] == "PartitionRecord"]) == 102
    assert {r["record_version"] for r in rows if r["type"] == "RegisterBrokerRecord"} == {2, 3}
    for row in rows:
        cls = MESSAGES[row["type"]]
        assert_typed_matches_kafka_json(cls, row["record_version"], json.loads(row["typed"]),
                                        json.loads(row["record_json"]))


def test_every_metadata_record_type_and_version_decodes_to_typed_columns(spark, tmp_path):
    metadata = sorted(load().metadata_records.values())  # KRaft's, not tiered storage's
    writer = MetadataLogWriter(codec=Codec.ZSTD)
    written = {}
    for name in metadata:
        cls = MESSAGES[name]
        for version in schemas.versions_of(cls):
            objs = [case_instance(cls, version, seed=3, index=i) for i in range(2)]
            for obj in objs:
                written[writer.next_offset] = (name, version, obj)
                writer.append([MetadataRecord(obj, version)], timestamp=BASE_TS, leader_epoch=1)
    folder = tmp_path / "__cluster_metadata-0"
    folder.mkdir()
    writer.write_segment(folder)

    rows = typed_rows_as_json(spark, folder, metadata)
    assert sorted(r["offset"] for r in rows) == sorted(written)
    for row in rows:
        name, version, obj = written[row["offset"]]
        assert (row["type"], row["record_version"]) == (name, version)
        # kwire's own JSON form of the record it wrote; that form is held to the JSON Kafka's own
        # converters write in tests/wire/test_kafka_json_form.py.
        kwire_json = obj.to_dict(version)
        assert json.loads(row["record_json"]) == kwire_json
        assert_typed_matches_kafka_json(MESSAGES[name], version, json.loads(row["typed"]), kwire_json)


# --- coordinator logs -----------------------------------------------------------------------------


def kafka_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">h", len(data)) + data


def test_coordinator_logs_decode_key_and_value(spark, tmp_path):
    # __consumer_offsets record type 1 (OffsetCommitKey), worked by hand from the definitions
    key = struct.pack(">h", 1) + kafka_string("grp") + kafka_string("orders") + struct.pack(">i", 3)
    value_v3 = struct.pack(">hqi", 3, 42, 7) + kafka_string("meta") + struct.pack(">q", BASE_TS)
    value_v1 = struct.pack(">hq", 1, 41) + kafka_string("") + struct.pack(">qq", BASE_TS - 1, BASE_TS + 1)
    builder = RecordBatchBuilder(base_offset=0)
    builder.append(BASE_TS, key, value_v1)
    builder.append(BASE_TS, key, value_v3)
    builder.append(BASE_TS, key, None)  # a tombstone
    (tmp_path / "__consumer_offsets-0").mkdir()
    (tmp_path / "__consumer_offsets-0" / "00000000000000000000.log").write_bytes(builder.build())
    # __transaction_state record type 0: TransactionLogKey / TransactionLogValue v0
    txn_key = struct.pack(">h", 0) + kafka_string("tx-1")
    txn_value = (struct.pack(">hqhib", 0, 1000, 2, 60000, 1) + struct.pack(">i", 1) + kafka_string("orders")
                 + struct.pack(">ii", 1, 3) + struct.pack(">qq", BASE_TS + 5, BASE_TS))
    txn = RecordBatchBuilder(base_offset=0)
    txn.append(BASE_TS, txn_key, txn_value)
    (tmp_path / "__transaction_state-0").mkdir()
    (tmp_path / "__transaction_state-0" / "00000000000000000000.log").write_bytes(txn.build())

    rows = spark.read.format("kwire").load(str(tmp_path)).toArrow().to_pylist()
    decoded = [(r["topic"], r["record_type"], r["record_version"], json.loads(r["record_json"])) for r in rows]
    commit_key = {"group": "grp", "topic": "orders", "partition": 3}
    assert decoded == [
        ("__consumer_offsets", "OffsetCommitValue", 1, {"key": commit_key, "value": {
            "offset": 41, "metadata": "", "commitTimestamp": BASE_TS - 1, "expireTimestamp": BASE_TS + 1}}),
        ("__consumer_offsets", "OffsetCommitValue", 3, {"key": commit_key, "value": {
            "offset": 42, "leaderEpoch": 7, "metadata": "meta", "commitTimestamp": BASE_TS}}),
        ("__consumer_offsets", "OffsetCommitValue", None, {"key": commit_key, "value": None}),
        ("__transaction_state", "TransactionLogValue", 0, {"key": {"transactionalId": "tx-1"}, "value": {
            "producerId": 1000, "producerEpoch": 2, "transactionTimeoutMs": 60000, "transactionStatus": 1,
            "transactionPartitions": [{"topic": "orders", "partitionIds": [3]}],
            "transactionLastUpdateTimestampMs": BASE_TS + 5, "transactionStartTimestampMs": BASE_TS}}),
    ]
    typed = spark.read.format("kwire").option("recordType", "OffsetCommitValue").load(str(tmp_path))
    records = [r["record"] for r in typed.toArrow().to_pylist()]
    assert [r["key"] for r in records] == [{"group": "grp", "topic": "orders", "partition": 3}] * 3
    assert [r["value"] and (r["value"]["offset"], r["value"]["leader_epoch"], r["value"]["expire_timestamp"])
            for r in records] == [(41, None, BASE_TS + 1), (42, 7, None), None]


# --- decode_column --------------------------------------------------------------------------------


def response_bodies(pattern: str) -> list[tuple[str, bytes]]:
    """Bodies of flexible responses: size int32, correlation id int32, empty tagged section, body."""
    out = []
    for path in sorted(TANSU_RAW.glob(pattern)):
        frame = path.read_bytes()
        assert frame[8] == 0
        out.append((path.name, frame[9:]))
    return out


def uuid_text(value) -> str:
    return base64.urlsafe_b64encode(value.bytes).rstrip(b"=").decode()


def test_decode_column_matches_kafka_python_on_real_responses(spark):
    from kafka.protocol.metadata import MetadataResponse as KpMetadataResponse

    bodies = response_bodies("*_resp_*_k3_v12_*.bin")
    frame = spark.createDataFrame(bodies + [("null", None)], "file string, body binary")
    decoded = decode_column(frame, "body", "MetadataResponse", 12)
    assert decoded.columns == ["file", "body"]
    rows = {r["file"]: r["body"] for r in decoded.toArrow().to_pylist()}
    assert rows.pop("null") is None
    for name, body in bodies:
        theirs = KpMetadataResponse.decode(body, version=12)
        ours = rows[name]
        assert (ours["cluster_id"], ours["controller_id"]) == (theirs.cluster_id, theirs.controller_id)
        assert [(b["node_id"], b["host"], b["port"], b["rack"]) for b in ours["brokers"]] == [
            (b.node_id, b.host, b.port, b.rack) for b in theirs.brokers]
        assert [(t["name"], t["topic_id"], t["error_code"], t["is_internal"]) for t in ours["topics"]] == [
            (t.name, uuid_text(t.topic_id), t.error_code, t.is_internal) for t in theirs.topics]
        assert [[(p["partition_index"], p["leader_id"], p["replica_nodes"], p["isr_nodes"]) for p in t["partitions"]]
                for t in ours["topics"]] == [
            [(p.partition_index, p.leader_id, list(p.replica_nodes), list(p.isr_nodes)) for p in t.partitions]
            for t in theirs.topics]
    assert any(rows[name]["topics"] for name, _ in bodies)


def test_decode_column_keeps_records_bytes(spark):
    from kafka.protocol.consumer import FetchResponse as KpFetchResponse

    bodies = response_bodies("*_resp_*_k1_v12_*.bin")
    frame = spark.createDataFrame(bodies, "file string, body binary")
    rows = decode_column(frame, "body", MESSAGES["FetchResponse"], 12, into="fetch").toArrow().to_pylist()
    for (_name, body), row in zip(bodies, rows, strict=True):
        assert row["body"] == body  # the source column stays when the struct goes elsewhere
        theirs = KpFetchResponse.decode(body, version=12)
        ours = row["fetch"]
        assert [[(p["partition_index"], p["high_watermark"], p["records"]) for p in t["partitions"]]
                for t in ours["responses"]] == [
            [(p.partition_index, p.high_watermark, None if p.records is None else bytes(p.records))
             for p in t.partitions] for t in theirs.responses]
    assert any(p["records"] for row in rows for t in row["fetch"]["responses"] for p in t["partitions"])


def test_decode_column_on_bad_bodies(spark):
    (name, body), = response_bodies("c19_resp_0001_k3_v12_*.bin")
    frame = spark.createDataFrame([("good", body), ("cut", body[:-5])], "file string, body binary")
    rows = decode_column(frame, "body", "MetadataResponse", 12, on_error="null").toArrow().to_pylist()
    assert rows[0]["body"]["cluster_id"] == "tansu_cluster" and rows[1]["body"] is None
    with pytest.raises(Exception) as info:
        decode_column(frame, "body", "MetadataResponse", 12).collect()
    assert "DecodeError" in str(info.value)
    from kwire.wire.errors import KwireError, UnsupportedVersionError

    with pytest.raises(UnsupportedVersionError):
        decode_column(frame, "body", "MetadataResponse", 99)
    with pytest.raises(KwireError):
        decode_column(frame, "missing", "MetadataResponse", 12)
    with pytest.raises(KwireError):
        decode_column(frame, "body", "NoSuchMessage", 12)


# --- failures and the command line ----------------------------------------------------------------


def test_corrupt_input_fails_the_read_with_kwire_error(spark, tmp_path):
    rows = [(BASE_TS, b"k", b"v" * 50, [])] * 10
    good = kwire_batch(Codec.GZIP, rows, 0)
    broken = bytearray(kwire_batch(Codec.GZIP, rows, 10))
    broken[-20:] = b"\xff" * 20  # the gzip stream no longer decompresses
    (tmp_path / "t-0").mkdir()
    (tmp_path / "t-0" / "00000000000000000000.log").write_bytes(good + bytes(broken))
    with pytest.raises(Exception) as info:
        spark.read.format("kwire").load(str(tmp_path)).collect()
    # the broken gzip stream is judged as every command judges it: the batch's CRC no longer matches
    assert "DamagedFileError" in str(info.value) and "00000000000000000000.log" in str(info.value)
    assert "CRC-32C mismatch in the record batch at base offset 10" in str(info.value)
    with pytest.raises(Exception) as info:
        spark.read.format("kwire").load(str(tmp_path / "nothing-here")).collect()
    assert "no such file or directory" in str(info.value)


def test_kwire_decode_command_writes_parquet_and_json(spark, log_dir, expected_rows, tmp_path, capsys):
    out = tmp_path / "parquet"
    # the log holds batches whose CRC fails (crc_valid false): never called clean (issue 36)
    assert kwire_main(["decode", str(log_dir), "--out", str(out), "--split-mb", "1"]) == 2
    assert "CRC-32C mismatch in the record batch at base offset" in capsys.readouterr().err and not out.exists()
    assert kwire_main(["decode", str(log_dir), "--out", str(out), "--split-mb", "1", "--skip-undecodable"]) == 1
    printed = capsys.readouterr().out
    failing = len({(r["file"], r["base_offset"]) for r in expected_rows if not r["crc_valid"]})
    assert f"{len(expected_rows)} records" in printed
    assert f"; {failing} batch{'es' if failing != 1 else ''} failing its CRC (rows with crc_valid false)" in printed
    written = pa.concat_tables(
        [__import__("pyarrow.parquet").parquet.read_table(p) for p in sorted(out.glob("*.parquet"))])
    key = lambda r: (r["file"], r["offset"])  # noqa: E731
    rows = [{k: v for k, v in r.items() if k not in ("skipped_position", "skipped_bytes")} for r in written.to_pylist()]
    assert sorted(rows, key=key) == sorted(expected_rows, key=key)

    out_json = tmp_path / "json"
    assert kwire_main(["decode", str(KRAFT_36 / "bootstrap.checkpoint"), "--out", str(out_json),
                       "--format", "json", "-q"]) == 0
    lines = [json.loads(line) for p in sorted(out_json.glob("*.json")) for line in p.read_text().splitlines()]
    assert [line["record_type"] for line in lines] == [
        "SnapshotHeaderRecord", "FeatureLevelRecord", "SnapshotFooterRecord"]

    assert kwire_main(["decode", str(tmp_path / "missing"), "--out", str(tmp_path / "x")]) == 2
    assert kwire_main(["decode", str(log_dir), "--out", str(out)]) == 1  # the output exists: refused
    assert f"kwire decode: refused: {out} already exists (use --mode overwrite or --force" in capsys.readouterr().err
    # --mode overwrite replaces it: the bootstrap file's 3 records instead of the log's
    assert kwire_main(["decode", str(KRAFT_36 / "bootstrap.checkpoint"), "--out", str(out), "--mode", "overwrite",
                       "-q"]) == 0
    assert sum(__import__("pyarrow.parquet").parquet.read_table(p).num_rows for p in out.glob("*.parquet")) == 3


def test_control_records_are_decoded_in_any_file_when_asked(log_dir):
    rows = read_table(str(log_dir), decode_records=True).to_pylist()
    markers = [(r["offset"], r["record_type"], r["record_version"], json.loads(r["record_json"]))
               for r in rows if r["is_control"]]
    assert [m[1:] for m in markers] == [
        ("EndTxnMarker", 0, {"committed": True, "coordinatorEpoch": 9}),
        ("EndTxnMarker", 0, {"committed": False, "coordinatorEpoch": 9}),
    ]
    assert all(r["record_type"] is None and r["record_json"] is None for r in rows if not r["is_control"])


def test_a_metadata_value_that_does_not_decode_fails_or_is_skipped(tmp_path):
    from kwire.wire.errors import DecodeError

    folder = tmp_path / "__cluster_metadata-0"
    folder.mkdir()
    builder = RecordBatchBuilder()
    builder.append(BASE_TS, None, b"\x01\x02\x00" + b"\x05")  # TopicRecord v0 whose name runs past the end
    builder.append(BASE_TS, None, b"\x01\x14\x00\x00")  # NoOpRecord v0, fine
    (folder / "00000000000000000000.log").write_bytes(builder.build())
    with pytest.raises(DecodeError) as info:
        read_table(str(tmp_path))
    assert info.value.offset == 0 and "record at offset 0" in str(info.value)  # the batch, in the file
    rows = read_table(str(tmp_path), skip_undecodable=True).to_pylist()
    assert [(r["record_type"], r["record_json"]) for r in rows] == [(None, None), ("NoOpRecord", "{}")]


# --- nothing lost silently: damaged lengths and truncated tails ---------------------------------------

def damaged_copies(tmp_path):
    """Two copies of the Kafka 3.6.1 metadata log: one cut in the middle of a batch (a torn tail),
    one whose third batch's length reads 0x7fffffff (a damaged size with 1.3 MB of batches after it)."""
    original = (KRAFT_36 / "__cluster_metadata-0" / "00000000000000000000.log").read_bytes()
    torn = tmp_path / "torn" / "__cluster_metadata-0" / "00000000000000000000.log"
    torn.parent.mkdir(parents=True)
    torn.write_bytes(original[:100_000])  # 100,000 is inside a batch (every batch is checked below)
    damaged = tmp_path / "damaged" / "__cluster_metadata-0" / "00000000000000000000.log"
    damaged.parent.mkdir(parents=True)
    data = bytearray(original)
    data[236 + 8:236 + 12] = b"\x7f\xff\xff\xff"
    damaged.write_bytes(bytes(data))
    return torn, damaged


def test_undecoded_ranges_fail_the_read_with_file_and_position(tmp_path, spark):
    torn, damaged = damaged_copies(tmp_path)
    with pytest.raises(KwireError,
                       match=rf"{re.escape(str(torn))}: the last batch is incomplete \(byte offset 99952\)"):
        read_table(str(torn.parent))
    with pytest.raises(KwireError, match=rf"{re.escape(str(damaged))}: not a record batch: .*its size field is damaged "
                                         r"\(byte offset 236\)"):
        read_table(str(damaged.parent))
    with pytest.raises(Exception) as info:
        spark.read.format("kwire").load(str(damaged.parent)).collect()
    assert "its size field is damaged" in str(info.value) and "byte offset 236" in str(info.value)


def test_undecoded_ranges_are_rows_when_skipped(tmp_path, spark):
    torn, damaged = damaged_copies(tmp_path)
    rows = read_table(str(damaged.parent), skip_undecodable=True).to_pylist()
    skipped = [(r["skipped_position"], r["skipped_bytes"]) for r in rows if r["skipped_bytes"] is not None]
    assert skipped == [(236, 166)]  # the third batch, from its damaged length to where the fourth starts
    assert len(rows) - 1 == 18566 - 2  # every record but the third batch's two
    spark_rows = (spark.read.format("kwire").option("skipUndecodable", "true").load(str(damaged.parent))
                  .where("skipped_bytes IS NOT NULL").select("file", "skipped_position", "skipped_bytes").collect())
    assert [tuple(r) for r in spark_rows] == [(str(damaged), 236, 166)]

    rows = read_table(str(torn.parent), skip_undecodable=True).to_pylist()
    skipped = [(r["skipped_position"], r["skipped_bytes"]) for r in rows if r["skipped_bytes"] is not None]
    assert skipped == [(99952, 48)]


def test_kwire_decode_fails_on_an_undecoded_range_or_counts_it_when_told(tmp_path, spark, capsys):
    torn, damaged = damaged_copies(tmp_path)
    assert kwire_main(["decode", str(damaged.parent), "--out", str(tmp_path / "a")]) == 2  # unusable input
    err = capsys.readouterr().err
    assert "its size field is damaged" in err and "byte offset 236" in err
    assert kwire_main(["decode", str(damaged.parent), "--out", str(tmp_path / "b"), "--skip-undecodable"]) == 1
    assert capsys.readouterr().out.endswith(
        "1 file, 18148 batches, 18564 records; 166 bytes not decoded, in 1 skipped range "
        "(rows with skipped_bytes set)\n")


# --- the embedded default and the Spark path write the same output --------------------------------


def written_rows(out: Path, output_format: str) -> list:
    """Every row of a decode's output: Parquet rows as dicts in (file, offset) order, JSON lines as
    text, sorted (part files split the rows differently on the two paths)."""
    if output_format == "json":
        return sorted(line for p in out.glob("*.json") for line in p.read_text().splitlines())
    import pyarrow.parquet as pq

    rows = [row for p in sorted(out.glob("*.parquet")) for row in pq.read_table(p).to_pylist()]
    return sorted(rows, key=lambda r: (r["file"], r["offset"] if r["offset"] is not None else -1,
                                       r.get("skipped_position") or -1))


@pytest.mark.parametrize("output_format", ["parquet", "json"])
def test_decode_here_writes_what_decode_on_spark_writes(spark, log_dir, tmp_path, monkeypatch, capsys, output_format):
    from kwire.arrow import decode_files

    monkeypatch.setattr(decode_files, "IN_PROCESS_BYTES", 0)  # this small input too goes to two worker processes
    torn, damaged = damaged_copies(tmp_path)
    inputs = [  # exit 1: read past damage, as asked (never called clean)
        # every codec and client, control batches, a bad CRC
        (str(log_dir), ["--split-mb", "1", "--skip-undecodable"], 1),
        (str(KRAFT_36), ["--record-type", "PartitionRecord"], 0),  # decoded records and a typed struct column
        (str(damaged.parent), ["--skip-undecodable"], 1),  # a skipped range: a row of its own
        (str(torn.parent), ["--skip-undecodable"], 1),  # a torn tail
    ]
    for number, (source, extra, code) in enumerate(inputs):
        here, there = tmp_path / f"here-{number}", tmp_path / f"spark-{number}"
        common = ["decode", source, "--format", output_format, *extra]
        assert kwire_main([*common, "--out", str(here), "--jobs", "2"]) == code
        summary_here = capsys.readouterr().out.partition(": ")[2]
        assert kwire_main([*common, "--out", str(there), "--spark"]) == code
        summary_there = capsys.readouterr().out.partition(": ")[2]
        assert summary_here == summary_there and " 0 records" not in summary_here
        assert (here / "_SUCCESS").exists() and (there / "_SUCCESS").exists()
        rows = written_rows(here, output_format)
        assert rows and rows == written_rows(there, output_format), source
    # one part per split, as Spark's tasks write: the 1.3 MB metadata log cut in two for two processes
    parts = sorted(p.name.partition(".")[0] for p in (tmp_path / "here-1").glob("part-*"))
    assert parts == ["part-00000", "part-00001"]
