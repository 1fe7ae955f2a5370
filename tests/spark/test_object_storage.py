"""Kafka data directories in object storage: ``read_table``, the ``kwire`` data source and
``kwire decode`` on ``s3://`` URIs (through ``pyarrow.fs``), against moto's S3 server on loopback.

What a reader fetched is counted by the server (its access log, see s3server.py): planning reads
12-byte batch headers and nothing else, and decoding fetches every byte of each object once, in
ranged reads. The expected rows are those of the same directories read from local disk.
"""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark and kwire.arrow are made of it: without it this module skips (fails under CI)

import struct
from pathlib import Path

import pytest

from kwire.arrow import logfiles, splits
from kwire.cli.main import main as kwire_main
from kwire.spark import read_table
from kwire.wire.errors import KwireError
from tests.spark.remote_data import BUCKET

LOG_OVERHEAD = 12


def local_rows(path: Path, uri: str, **options) -> list[dict]:
    """Rows of the local copy, their ``file`` column renamed to the object's URI."""
    rows = read_table(str(path), **options).to_pylist()
    for row in rows:
        row["file"] = f"{uri}/{Path(row['file']).relative_to(path).as_posix()}"
    return rows


def object_gets(accesses, prefix: str):
    return [a for a in accesses if a.method == "GET" and a.path.startswith(f"/{BUCKET}/{prefix}/") and not a.query]


def batch_starts(data: bytes) -> list[int]:
    starts, pos = [], 0
    while pos + LOG_OVERHEAD <= len(data):
        starts.append(pos)
        pos += LOG_OVERHEAD + int.from_bytes(data[pos + 8:pos + 12], "big")
    return starts


def test_discovery_lists_a_prefix_as_a_directory(s3, kafka_dirs):
    found = logfiles.discover(f"s3://{BUCKET}/kraft")
    assert [(f.path, f.kind, f.topic, f.partition, f.size) for f in found] == [
        (f"s3://{BUCKET}/kraft/__cluster_metadata-0/00000000000000000000.log", logfiles.Kind.METADATA_LOG,
         "__cluster_metadata", 0,
         (kafka_dirs["kraft"] / "__cluster_metadata-0/00000000000000000000.log").stat().st_size),
        (f"s3://{BUCKET}/kraft/bootstrap.checkpoint", logfiles.Kind.METADATA_SNAPSHOT, None, None, 249),
    ]  # quorum-state, meta.properties, README.md, ... are not batches
    (one,) = logfiles.discover(f"s3://{BUCKET}/kraft/README.md")  # named directly: taken whatever its name
    assert one.kind == logfiles.Kind.BATCH_FILE
    with pytest.raises(KwireError, match="no such file or directory"):
        logfiles.discover(f"s3://{BUCKET}/nothing-here")


def test_read_table_from_s3_fetches_each_byte_once_in_ranges(s3, kafka_dirs):
    uri = f"s3://{BUCKET}/kraft"
    mark = s3.mark()
    table = read_table(uri)
    gets = object_gets(s3.since(mark), "kraft")
    assert table.to_pylist() == local_rows(kafka_dirs["kraft"], uri)
    assert all(g.range is not None and g.status == 206 for g in gets), gets
    sizes = {f"/{BUCKET}/kraft/{p.relative_to(kafka_dirs['kraft']).as_posix()}": p.stat().st_size
             for p in kafka_dirs["kraft"].rglob("*") if p.is_file()}
    fetched: dict[str, int] = {}
    for g in gets:
        fetched[g.path] = fetched.get(g.path, 0) + g.body_bytes
    assert fetched == {path: size for path, size in sizes.items() if path.endswith((".log", ".checkpoint"))}


def test_planning_reads_only_batch_headers(s3, kafka_dirs):
    files = logfiles.discover(f"s3://{BUCKET}/many")
    big = [f for f in files if f.size > 256 * 1024]
    assert len(big) == 6
    mark = s3.mark()
    plan = splits.plan(files, max_split_bytes=256 * 1024)
    gets = object_gets(s3.since(mark), "many")
    headers = 0
    for file in big:
        local = kafka_dirs["many"] / file.path.removeprefix(f"s3://{BUCKET}/many/")
        starts = batch_starts(local.read_bytes())
        headers += len(starts)
        # the cuts are batch starts, and the server saw one 12-byte read per batch header
        cuts = [p.start for split in plan for p in split if p.file.path == file.path]
        assert set(cuts) <= set(starts) and len(cuts) >= 4
        ranges = sorted(int(g.range.split("=")[1].split("-")[0]) for g in gets if g.path.endswith(local.name)
                        and local.parent.name in g.path)
        assert ranges == starts
    assert all(g.body_bytes == LOG_OVERHEAD and g.range.endswith(tuple("0123456789")) for g in gets)
    assert sum(g.body_bytes for g in gets) == LOG_OVERHEAD * headers
    assert sum(f.size for f in big) > 500 * LOG_OVERHEAD * headers  # a tiny share of the bytes


def test_spark_reads_s3(spark, s3, kafka_dirs, tmp_path, capsys):
    uri = f"s3://{BUCKET}/kraft"
    assert spark.read.format("kwire").load(uri).toArrow().to_pylist() == local_rows(kafka_dirs["kraft"], uri)
    # kwire decode on S3 runs in test_cluster.py (on the cluster); a missing prefix fails before Spark starts
    assert kwire_main(["decode", f"s3://{BUCKET}/nothing-here", "--out", str(tmp_path / "x")]) == 2
    assert f"s3://{BUCKET}/nothing-here: no such file or directory" in capsys.readouterr().err


def kafka_offset_index(segment: bytes, interval: int = 4096) -> bytes:
    """The offset index Kafka keeps beside a segment (base offset 0), built from the format: 8-byte
    entries (offset relative to the segment's base, position), one when more than ``interval``
    bytes were appended since the last, naming the last offset of the batch appended at that
    position, as LogSegment.append does; then the zero-filled tail of a preallocated index."""
    entries, pos, since = [], 0, 0
    while pos + LOG_OVERHEAD <= len(segment):
        length = int.from_bytes(segment[pos + 8:pos + 12], "big")
        if since > interval:
            base_offset = int.from_bytes(segment[pos:pos + 8], "big")
            last_offset = base_offset + int.from_bytes(segment[pos + 23:pos + 27], "big")
            entries.append(struct.pack(">ii", last_offset, pos))
            since = 0
        since += LOG_OVERHEAD + length
        pos += LOG_OVERHEAD + length
    return b"".join(entries) + bytes(8 * 32)


def test_planning_takes_cuts_from_the_segments_offset_index(s3, kafka_dirs, tmp_path):
    segment = kafka_dirs["many"] / "orders-0" / "00000000000000000000.log"
    data = segment.read_bytes()
    index = kafka_offset_index(data)
    entries = [struct.unpack_from(">ii", index, i) for i in range(0, len(index), 8)]
    lying = b"".join(struct.pack(">ii", offset, position + 1 if position else 0) for offset, position in entries)
    for name, content in (("indexed", index), ("lying", lying)):
        folder = tmp_path / name / "orders-0"
        folder.mkdir(parents=True)
        (folder / segment.name).write_bytes(data)
        (folder / "00000000000000000000.index").write_bytes(content)
        s3.upload(tmp_path / name, BUCKET, name)
    starts = batch_starts(data)

    (file,) = logfiles.discover(f"s3://{BUCKET}/indexed")
    assert file.offset_index == f"{BUCKET}/indexed/orders-0/00000000000000000000.index" and file.base_offset == 0
    mark = s3.mark()
    plan = splits.plan([file], max_split_bytes=128 * 1024)
    gets = object_gets(s3.since(mark), "indexed")
    cuts = [piece.start for split in plan for piece in split][1:]
    assert set(cuts) <= set(starts) and len(cuts) >= 6
    # the index once, and one 12-byte header per cut, to check it: not one per batch
    assert sorted((g.path.rsplit(".", 1)[1], g.body_bytes) for g in gets) == sorted(
        [("index", len(index))] + [("log", LOG_OVERHEAD)] * len(cuts))
    uri = f"s3://{BUCKET}/indexed"
    assert read_table(uri, max_split_bytes=128 * 1024).to_pylist() == local_rows(tmp_path / "indexed", uri)

    # an index whose positions fall inside batches is caught at the first cut and left for the walk
    (file,) = logfiles.discover(f"s3://{BUCKET}/lying")
    mark = s3.mark()
    walked = splits.plan([file], max_split_bytes=128 * 1024)
    headers = [g for g in object_gets(s3.since(mark), "lying") if g.path.endswith(".log")]
    assert len(headers) == 1 + len(starts)
    assert [piece.start for split in walked for piece in split][1:] == [
        piece.start for split in splits.plan(logfiles.discover(tmp_path / "lying"), 128 * 1024) for piece in split][1:]
