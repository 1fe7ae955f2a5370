"""The Spark data source's planning and schemas, without a Spark session: which files are read as
what, where big files are cut, and the Arrow layout of messages."""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark and kwire.arrow are made of it: without it this module skips (fails under CI)

import itertools
import json
import struct
import uuid

import pytest

from kwire.arrow import logfiles, schemas, splits
from kwire.arrow.logfiles import Kind
from kwire.arrow.reader import read_table
from kwire.generated import MESSAGES
from kwire.records import Codec, RecordBatchBuilder
from kwire.spark.schemas import spark_schema
from kwire.wire.errors import CorruptRecordError, KwireError, UnsupportedVersionError
from tests.packages import pa


def batch(base_offset: int, count: int, size: int = 100, codec: Codec = Codec.NONE) -> bytes:
    builder = RecordBatchBuilder(base_offset=base_offset, codec=codec)
    for i in range(count):
        builder.append(1_700_000_000_000 + i, b"k%d" % i, bytes([i % 251]) * size)
    return builder.build()


def write_segment(path, batches: list[bytes]) -> list[int]:
    """Write the batches back to back; return where each starts."""
    path.parent.mkdir(parents=True, exist_ok=True)
    starts, pos = [], 0
    for data in batches:
        starts.append(pos)
        pos += len(data)
    path.write_bytes(b"".join(batches))
    return starts


# --- which files, of which kind -----------------------------------------------------------------


def test_discovery_takes_batch_files_and_names_their_kind(tmp_path):
    data = batch(0, 1)
    layout = {
        "orders-3/00000000000000000000.log": Kind.PARTITION_LOG,
        "my-topic-with-dashes-12/00000000000000000005.log": Kind.PARTITION_LOG,
        "__cluster_metadata-0/00000000000000000000.log": Kind.METADATA_LOG,
        "__cluster_metadata-0/00000000000000000100-0000000002.checkpoint": Kind.METADATA_SNAPSHOT,
        "bootstrap.checkpoint": Kind.METADATA_SNAPSHOT,
        "__consumer_offsets-7/00000000000000000000.log": Kind.GROUP_COORDINATOR_LOG,
        "__transaction_state-1/00000000000000000000.log": Kind.TRANSACTION_COORDINATOR_LOG,
        "__share_group_state-2/00000000000000000000.log": Kind.SHARE_COORDINATOR_LOG,
        "loose/frames.batch": Kind.BATCH_FILE,
    }
    ignored = [
        "orders-3/00000000000000000000.index", "orders-3/00000000000000000000.timeindex",
        "orders-3/00000000000000000000.snapshot", "orders-3/leader-epoch-checkpoint",
        "orders-3/partition.metadata", "__cluster_metadata-0/quorum-state", "meta.properties",
        ".hidden/00000000000000000000.log",
    ]
    for name in [*layout, *ignored]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    found = {f.path: f for f in logfiles.discover(tmp_path)}
    assert sorted(found) == sorted(str(tmp_path / name) for name in layout)
    for name, kind in layout.items():
        assert found[str(tmp_path / name)].kind == kind, name
    entry = found[str(tmp_path / "my-topic-with-dashes-12/00000000000000000005.log")]
    assert (entry.topic, entry.partition, entry.size) == ("my-topic-with-dashes", 12, len(data))
    assert found[str(tmp_path / "loose/frames.batch")].topic is None


def test_a_file_named_directly_is_read_whatever_its_name(tmp_path):
    odd = tmp_path / "dump.bin"
    odd.write_bytes(batch(0, 2))
    (entry,) = logfiles.discover(odd)
    assert entry.kind == Kind.BATCH_FILE and entry.size == odd.stat().st_size
    with pytest.raises(KwireError):
        logfiles.discover(tmp_path / "missing")


def test_partition_folder_names():
    assert logfiles.topic_partition("orders-0") == ("orders", 0)
    assert logfiles.topic_partition("a-b-c-17") == ("a-b-c", 17)
    moving = "orders-2." + "0" * 31 + "a-future"
    assert logfiles.topic_partition(moving) == ("orders", 2)
    assert logfiles.topic_partition("orders") == (None, None)
    assert logfiles.topic_partition("orders-x") == (None, None)


# --- cutting at batch boundaries -------------------------------------------------------------------


def test_big_files_are_cut_exactly_at_batch_starts(tmp_path):
    batches = [batch(i * 10, 10, size=50 + i) for i in range(40)]
    path = tmp_path / "t-0" / "00000000000000000000.log"
    starts = write_segment(path, batches)
    (entry,) = logfiles.discover(path)
    every = 4000
    pieces = splits.pieces_of(entry, every)
    assert len(pieces) > 3
    assert pieces[0].start == 0 and pieces[-1].end == entry.size
    for left, right in itertools.pairwise(pieces):
        assert left.end == right.start
        assert right.start in starts  # never inside a batch
        assert left.size >= every  # a cut comes once a piece holds at least `every` bytes
    # the cut rows are the uncut rows
    whole = read_table(str(path), max_split_bytes=10**9)
    cut = read_table(str(path), max_split_bytes=every)
    assert cut.equals(whole) and whole.num_rows == 400


def test_small_files_are_packed_together(tmp_path):
    for partition in range(6):
        write_segment(tmp_path / f"t-{partition}" / "00000000000000000000.log", [batch(0, 3)])
    files = logfiles.discover(tmp_path)
    size = files[0].size
    plan = splits.plan(files, max_split_bytes=size * 2)
    assert [len(s) for s in plan] == [2, 2, 2]
    assert [p.file for s in plan for p in s] == files


def test_min_splits_shrinks_the_split_size_but_not_below_a_mebibyte():
    assert splits.split_size(100 * 2**20, 32 * 2**20, 1) == 32 * 2**20
    assert splits.split_size(100 * 2**20, 32 * 2**20, 10) == 10 * 2**20
    assert splits.split_size(3 * 2**20, 32 * 2**20, 8) == 2**20
    assert splits.split_size(10, 64, 1) == 64  # an explicit small maximum is honoured


def test_a_truncated_tail_is_left_to_the_reader(tmp_path):
    batches = [batch(i * 5, 5) for i in range(20)]
    path = tmp_path / "t-0" / "00000000000000000000.log"
    whole = b"".join(batches)
    path.parent.mkdir()
    path.write_bytes(whole + batch(100, 5)[:-7])  # a crash mid-write
    (entry,) = logfiles.discover(path)
    pieces = splits.pieces_of(entry, 1000)
    assert pieces[-1].end == entry.size
    with pytest.raises(CorruptRecordError, match="the last batch is incomplete"):
        read_table(str(path), max_split_bytes=1000)  # reported, not dropped: the read fails ...
    table = read_table(str(path), max_split_bytes=1000, skip_undecodable=True)  # ... or says what it skipped
    assert table.num_rows == 101 and table["offset"].to_pylist() == list(range(100)) + [None]
    assert table["skipped_position"].to_pylist()[-1] == len(whole)


def test_a_corrupt_entry_size_is_reported_with_its_position(tmp_path):
    good = batch(0, 3)
    path = tmp_path / "t-0" / "00000000000000000000.log"
    path.parent.mkdir()
    path.write_bytes(good * 30 + struct.pack(">qi", 90, 5) + b"\x00" * 64)
    (entry,) = logfiles.discover(path)
    with pytest.raises(CorruptRecordError) as info:
        splits.pieces_of(entry, 100)
    assert info.value.offset == len(good) * 30
    with pytest.raises(CorruptRecordError) as info:
        read_table(str(path))
    assert info.value.offset == len(good) * 30 and str(path) in str(info.value)


def test_bad_options_are_kwire_errors(tmp_path):
    path = tmp_path / "x.batch"
    path.write_bytes(batch(0, 1))
    for options in ({"max_split_bytes": 0}, {"decode_records": "maybe"}, {"record_type": "NoSuchRecord"},
                    {"skip_undecodable": "perhaps"}, {"batch_rows": "many"}):
        with pytest.raises(KwireError):
            read_table(str(path), **options)


# --- message schemas -------------------------------------------------------------------------------


def test_every_message_version_has_an_arrow_and_a_spark_schema():
    for cls in MESSAGES.values():
        for version in schemas.versions_of(cls):
            arrow = schemas.arrow_schema(cls, version)
            spark = spark_schema(cls, version)
            assert spark.fieldNames() == arrow.names
            # a default instance converts into that layout
            pa.array([schemas.converter(cls, version)(cls())], schemas.message_type(cls, version))
        union = {f.name for f in schemas.message_type(cls, None)}
        assert union == {f.name for v in schemas.versions_of(cls) for f in schemas.message_type(cls, v)}


def test_message_layout_follows_the_version():
    cls = MESSAGES["ApiVersionsResponse"]
    v0, v3 = schemas.message_type(cls, 0), schemas.message_type(cls, 3)
    assert [f.name for f in v0] == ["error_code", "api_keys"]
    assert [f.name for f in v3] == [
        "error_code", "api_keys", "throttle_time_ms", "supported_features", "finalized_features_epoch",
        "finalized_features", "zk_migration_ready", "unknown_tagged_fields",
    ]
    assert v3.field("error_code").type == pa.int16()
    element = v3.field("api_keys").type.value_type
    assert [f.name for f in element] == ["api_key", "min_version", "max_version", "unknown_tagged_fields"]
    with pytest.raises(UnsupportedVersionError):
        schemas.message_type(cls, 99)


def test_kafka_types_map_to_spark_types():
    topic = MESSAGES["TopicRecord"]
    value = schemas.converter(topic, 0)(topic(name="t", topic_id=uuid.UUID(bytes=bytes(range(16)))))
    # Kafka prints a Uuid as URL-safe base64 without padding
    assert value == {"name": "t", "topic_id": "AAECAwQFBgcICQoLDA0ODw", "unknown_tagged_fields": []}
    quota = schemas.message_type(MESSAGES["ClientQuotaRecord"], 0)
    assert quota.field("value").type == pa.float64()
    spark = spark_schema(MESSAGES["ApiVersionsResponse"], 3)
    assert spark["error_code"].dataType.simpleString() == "smallint"
    assert spark["api_keys"].dataType.simpleString().startswith("array<struct<api_key:smallint")


def test_union_layout_leaves_absent_fields_null():
    cls = MESSAGES["OffsetCommitValue"]
    v1 = cls(offset=5, metadata="m", commit_timestamp=7, expire_timestamp=9)
    row = schemas.converter(cls, 1, union=True)(v1)
    assert row["offset"] == 5 and row["expire_timestamp"] == 9
    assert row["leader_epoch"] is None  # added in v3
    v3_row = schemas.converter(cls, 3, union=True)(cls(offset=5, leader_epoch=2))
    assert v3_row["expire_timestamp"] is None and v3_row["leader_epoch"] == 2
    pa.array([row, v3_row], schemas.message_type(cls, None))


def test_schemas_command_writes_loadable_spark_and_arrow_schemas(tmp_path):
    from pyspark.sql.types import StructType

    from kwire.cli.main import main as kwire_main

    assert kwire_main(["schemas", "--out", str(tmp_path), "--messages", "ApiVersionsResponse", "TopicRecord",
                       "-q"]) == 0
    cls = MESSAGES["ApiVersionsResponse"]
    written = sorted(p.name for p in (tmp_path / "ApiVersionsResponse").iterdir())
    assert written == sorted([f"v{v}.{ext}" for v in range(5) for ext in ("arrow", "spark.json")]
                             + ["all.arrow", "all.spark.json"])
    for stem, version in (("v3", 3), ("all", None)):
        spark = StructType.fromJson(json.loads((tmp_path / "ApiVersionsResponse" / f"{stem}.spark.json").read_text()))
        assert spark == spark_schema(cls, version)
        arrow = pa.ipc.read_schema(pa.py_buffer((tmp_path / "ApiVersionsResponse" / f"{stem}.arrow").read_bytes()))
        assert arrow.equals(schemas.arrow_schema(cls, version))
    records = pa.ipc.read_schema(pa.py_buffer((tmp_path / "_records.arrow").read_bytes()))
    assert records.equals(schemas.RECORD_SCHEMA)
    assert kwire_main(["schemas", "--out", str(tmp_path), "--messages", "NoSuchMessage"]) == 2


def test_session_defaults_yield_to_the_users_settings(tmp_path, monkeypatch):
    from kwire.spark import session

    monkeypatch.delenv("SPARK_HOME", raising=False)
    monkeypatch.delenv("SPARK_CONF_DIR", raising=False)
    defaults = session.session_config()
    assert defaults["spark.ui.enabled"] == "false"
    assert defaults["spark.sql.execution.arrow.pyspark.enabled"] == "true"
    assert defaults["spark.driver.extraJavaOptions"] == f"-Dlog4j2.configurationFile={session.LOG4J2_CONFIG.as_uri()}"
    assert session.LOG4J2_CONFIG.exists()
    # keys of spark-defaults.conf are left to it, a log4j2.properties beside it is used
    (tmp_path / "spark-defaults.conf").write_text("# comment\nspark.ui.enabled   true\nspark.master=local[3]\n")
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    assert session.spark_defaults_keys() == {"spark.ui.enabled", "spark.master"}
    configured = session.session_config({"spark.sql.shuffle.partitions": "3"})
    assert "spark.ui.enabled" not in configured and configured["spark.sql.shuffle.partitions"] == "3"
    assert "log4j2" in configured["spark.driver.extraJavaOptions"]
    (tmp_path / "log4j2.properties").write_text("rootLogger.level = info\n")
    assert "spark.driver.extraJavaOptions" not in session.session_config()
    # the master: argument, then $SPARK_MASTER, then local[*]
    monkeypatch.delenv("SPARK_MASTER", raising=False)
    assert session.resolve_master() == "local[*]"
    monkeypatch.setenv("SPARK_MASTER", "spark://h:7077")
    assert session.resolve_master() == "spark://h:7077" and session.resolve_master("local[2]") == "local[2]"
    assert session.is_local("local[2]") and not session.is_local("spark://h:7077")
