"""The Python side of kwire on Spark, run here without a JVM.

On Spark 4 the JVM asks Python worker processes for a data source's schema, its partitions and
each partition's rows, and ``decode_column``'s tasks decode in workers too: neither the test's
process nor mutmut's stats pass (``make mutation``) sees those calls. Here the same objects are
driven directly: ``KwireDataSource`` as the JVM's workers drive it, and ``decode_column`` over a
stand-in frame whose ``mapInArrow`` runs the task's function on Arrow batches in this process.
The expected rows come from kafka-python (``MemoryRecords``, its ``MetadataResponse``).
"""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark is made of it: without it this module skips (fails under CI)
need_module("pyspark")  # its DataSource classes and type converters, not a JVM

import random
import struct

import pytest

from kwire.arrow import schemas
from kwire.records import Codec
from kwire.spark.datasource import KwireDataSource, SplitPartition
from kwire.spark.decode import decode_column
from kwire.spark.schemas import to_spark
from kwire.wire.errors import DecodeError, KwireError
from tests.packages import KpBuilder, pa
from tests.spark.test_decode import client_batch, independent_rows, random_rows, response_bodies, uuid_text

SPLIT = 16 * 1024


def batch_starts(data: bytes) -> list[int]:
    """Where each record batch of a log starts: baseOffset (int64), then batchLength (int32)
    counting the bytes after it (Kafka's DefaultRecordBatch layout)."""
    starts, position = [], 0
    while position < len(data):
        starts.append(position)
        position += 12 + struct.unpack_from(">i", data, position + 8)[0]
    return starts


@pytest.fixture
def partition_log(tmp_path):
    """A topic partition of 24 kafka-python batches (~4 KB each), so a 16 KiB split cuts it."""
    rng = random.Random(37)
    parts, offset = [], 0
    for _ in range(24):
        rows = [(ts, key, rng.randbytes(160), headers) for ts, key, _value, headers in random_rows(rng, 25)]
        parts.append(client_batch(KpBuilder, Codec.NONE, rows, offset))
        offset += len(rows)
    segment = tmp_path / "orders-0" / "00000000000000000000.log"
    segment.parent.mkdir()
    segment.write_bytes(b"".join(parts))
    return tmp_path


def test_the_data_source_cuts_at_batch_starts_and_reads_what_kafka_python_reads(partition_log):
    source = KwireDataSource({"path": str(partition_log), "maxSplitBytes": str(SPLIT)})
    assert KwireDataSource.name() == "kwire"
    assert source.schema() == to_spark(schemas.RECORD_SCHEMA)
    reader = source.reader(source.schema())
    partitions = reader.partitions()
    segment = partition_log / "orders-0" / "00000000000000000000.log"
    data = segment.read_bytes()
    assert len(partitions) >= len(data) // SPLIT > 1
    assert [p.index for p in partitions] == list(range(len(partitions)))
    starts = batch_starts(data)
    pieces = [piece for p in partitions for piece in p.pieces]
    assert [(piece.start, piece.end) for piece in pieces] == list(zip([0, *[p.end for p in pieces[:-1]]],
                                                                      [p.end for p in pieces], strict=True))
    assert pieces[-1].end == len(data) and all(piece.start in starts for piece in pieces)
    assert repr(partitions[0]) == (f"SplitPartition(0, {len(partitions[0].pieces)} pieces, "
                                   f"{sum(p.size for p in partitions[0].pieces)} bytes)")
    rows = [row for p in partitions for batch in reader.read(p) for row in batch.to_pylist()]
    assert rows == independent_rows(partition_log)


def test_the_data_source_decodes_records_when_the_load_asks(partition_log):
    """decodeRecords reaches both the schema (the JVM's question) and the tasks' reader."""
    source = KwireDataSource({"path": str(partition_log), "decodeRecords": "true"})
    names = source.schema().fieldNames()
    assert names[-3:] == ["record_type", "record_version", "record_json"]
    reader = source.reader(source.schema())
    batches = [batch for p in reader.partitions() for batch in reader.read(p)]
    assert all(batch.schema.names == names for batch in batches)
    rows = [row for batch in batches for row in batch.to_pylist()]
    assert len(rows) == len(independent_rows(partition_log)) and {r["record_type"] for r in rows} == {None}


def test_a_directory_without_batch_files_is_one_partition_with_nothing_to_read(tmp_path):
    """Spark runs a job over at least one partition: a directory holding no file of batches (here
    only a broker's meta.properties) gives one empty one, and so an empty frame, not an error."""
    (tmp_path / "meta.properties").write_text("version=1\n")
    reader = KwireDataSource({"path": str(tmp_path)}).reader(None)
    partitions = reader.partitions()
    assert [(type(p), p.index, p.pieces) for p in partitions] == [(SplitPartition, 0, [])]
    assert list(reader.read(partitions[0])) == []


class ArrowFrame:
    """Stands in for a DataFrame: ``mapInArrow`` runs the task's function here, on Arrow batches of
    two rows (so a task sees several batches)."""

    def __init__(self, table) -> None:
        self.table = table
        self.schema = to_spark(table.schema)

    def mapInArrow(self, function, schema):  # noqa: N802 (PySpark's name)
        self.out_schema = schema
        return pa.Table.from_batches(list(function(iter(self.table.to_batches(max_chunksize=2)))))


def bodies_table(bodies):
    return pa.table({"file": [name for name, _ in bodies], "body": [body for _, body in bodies]},
                    schema=pa.schema([("file", pa.string()), ("body", pa.binary())]))


def test_decode_column_tasks_decode_what_kafka_python_decodes():
    from kafka.protocol.metadata import MetadataResponse as KpMetadataResponse

    bodies = response_bodies("*_resp_*_k3_v12_*.bin")
    assert len(bodies) > 2
    frame = ArrowFrame(bodies_table([*bodies, ("null", None)]))
    rows = decode_column(frame, "body", "MetadataResponse", 12, into="decoded").to_pylist()
    assert frame.out_schema.fieldNames() == ["file", "body", "decoded"]
    assert rows[-1] == {"file": "null", "body": None, "decoded": None}
    for (name, body), row in zip(bodies, rows, strict=False):
        theirs = KpMetadataResponse.decode(body, version=12)
        ours = row["decoded"]
        assert (row["file"], row["body"]) == (name, body)
        assert (ours["cluster_id"], ours["controller_id"]) == (theirs.cluster_id, theirs.controller_id)
        assert [(t["name"], t["topic_id"], t["error_code"]) for t in ours["topics"]] == [
            (t.name, uuid_text(t.topic_id), t.error_code) for t in theirs.topics]


def test_decode_column_tasks_raise_or_give_null_for_a_body_that_does_not_decode():
    (name, body), = response_bodies("c19_resp_0001_k3_v12_*.bin")
    table = bodies_table([("good", body), ("cut", body[:-5])])
    rows = decode_column(ArrowFrame(table), "body", "MetadataResponse", 12, on_error="null").to_pylist()
    assert rows[0]["body"]["cluster_id"] == "tansu_cluster" and rows[1] == {"file": "cut", "body": None}
    with pytest.raises(DecodeError):
        decode_column(ArrowFrame(table), "body", "MetadataResponse", 12)
    with pytest.raises(KwireError, match="on_error must be 'raise' or 'null', not 'skip'"):
        decode_column(ArrowFrame(table), "body", "MetadataResponse", 12, on_error="skip")
