"""kwire.arrow over legacy message sets (magic 0 and 1), row by row against kafka-python's reader.

The inputs are written by kafka-python's ``LegacyRecordBatchBuilder`` (every codec, both magics,
log-append time, a damaged CRC) and by a real broker (the kafka-go FetchResponses' message sets,
mixing magic 1 and 2). The expected rows come from kafka-python's ``MemoryRecords``, which shares no
code with kwire; what legacy data lacks is filled with Kafka's own constants
(AbstractLegacyRecordBatch: NO_PARTITION_LEADER_EPOCH, NO_PRODUCER_ID, NO_PRODUCER_EPOCH,
NO_SEQUENCE = -1; magic 0: RecordBatch.NO_TIMESTAMP = -1, TimestampType.NO_TIMESTAMP_TYPE; a legacy
batch's baseOffset is its first record's offset). ``read_table``, ``kwire decode`` and
``decode_to_directory`` are each compared with those rows, and the decode summary's batch and record
counts with counts taken from kafka-python, also when a damaged range is skipped.
"""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.arrow is made of it: without it this module skips (fails under CI)

import struct
import zlib
from pathlib import Path

import pytest

from kwire.arrow import decode_files
from kwire.arrow.decode_files import decode_to_directory
from kwire.arrow.reader import read_table
from kwire.cli.main import main as kwire_main
from tests.packages import KpLegacyBatch, KpLegacyBuilder, KpMemoryRecords, pq
from tests.paths import KAFKA_GO

CODEC_NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
TIMESTAMP_TYPES = {None: "NO_TIMESTAMP_TYPE", 0: "CREATE_TIME", 1: "LOG_APPEND_TIME"}
NO_TIMESTAMP = -1  # Kafka's RecordBatch.NO_TIMESTAMP: what a magic 0 record's timestamp is
BASE_TS = 1_700_000_000_000
GZIP, SNAPPY, LZ4 = 1, 2, 3


# --- writing legacy segments with kafka-python -----------------------------------------------------

def _entries(magic: int, codec: int, records: list[tuple[int, int | None, bytes | None, bytes | None]]) -> bytearray:
    builder = KpLegacyBuilder(magic, codec, 1 << 20)
    for offset, timestamp, key, value in records:
        builder.append(offset, timestamp, key, value)
    return bytearray(builder.build())


def _wrapper(magic: int, codec: int, base: int, values: list[bytes | None], *, log_append_time: int | None = None,
             timestamp: int = BASE_TS) -> bytes:
    """A compressed wrapper as a broker stores it: magic 1 inner offsets relative (0..n-1), magic 0
    absolute; the wrapper's offset is the last inner offset's absolute value (kafka-python's builder
    leaves it 0, as a producer sends it)."""
    inner = [(i if magic == 1 else base + i, timestamp + i, b"k%d" % i, value) for i, value in enumerate(values)]
    data = _entries(magic, codec, inner)
    struct.pack_into(">q", data, 0, base + len(values) - 1)
    if log_append_time is not None:  # the broker's rewrite: attribute bit 3 and its own time, CRC again
        data[17] |= 0x08
        struct.pack_into(">q", data, 18, log_append_time)
        struct.pack_into(">I", data, 12, zlib.crc32(bytes(data[16:])))
    return bytes(data)


def legacy_segment() -> bytes:
    damaged = _entries(1, 0, [(16, BASE_TS + 16, b"k", b"value whose CRC no longer holds")])
    damaged[-1] ^= 0x01  # one bit of the value: the CRC stays as written, so it no longer matches
    return b"".join([
        bytes(_entries(0, 0, [(0, None, b"k0", b"v0"), (1, None, None, b"v1"), (2, None, b"", None)])),
        _wrapper(0, GZIP, 3, [b"g3", b"g4", b"g5"]),
        bytes(_entries(1, 0, [(6, BASE_TS + 6, b"k6", b"v6"), (7, BASE_TS - 7, None, None)])),
        _wrapper(1, SNAPPY, 8, [b"s8", b"", None]),
        _wrapper(1, LZ4, 11, [b"l11", b"l12"], log_append_time=BASE_TS + 999),
        _wrapper(0, SNAPPY, 13, [b"s13", b"s14"]),
        _wrapper(1, GZIP, 15, [b"x" * 300]),
        bytes(damaged),
    ])


def kafka_go_message_sets() -> dict[str, bytes]:
    """Each kafka-go fixture's message set (a real broker's bytes), by fixture name."""
    sets = {}
    for path in sorted(KAFKA_GO.glob("*.hex")):
        frame = bytes.fromhex(path.read_text().strip())
        (partition_start,) = _records_start(frame)
        size = struct.unpack_from(">i", frame, partition_start - 4)[0]
        sets[path.stem] = frame[partition_start:partition_start + size]
    return sets


def _records_start(frame: bytes) -> tuple[int]:
    """Where the records of the one partition of a FetchResponse v7 frame start (Kafka's
    FetchResponse.json, v7: throttle, error, session id, then one topic with one partition)."""
    pos = 4 + 4 + 4 + 2 + 4  # size, correlation id, throttle_time_ms, error_code, session_id
    assert struct.unpack_from(">i", frame, pos)[0] == 1  # one topic
    name_length = struct.unpack_from(">h", frame, pos + 4)[0]
    pos += 4 + 2 + name_length
    assert struct.unpack_from(">i", frame, pos)[0] == 1  # one partition
    pos += 4 + 4 + 2 + 8 + 8 + 8  # count, index, error_code, high watermark, last stable, log start
    aborted = struct.unpack_from(">i", frame, pos)[0]
    pos += 4 + 16 * max(aborted, 0) + 4  # aborted transactions, then the records' size
    return (pos,)


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory) -> Path:
    need_module("kafka")
    root = tmp_path_factory.mktemp("legacy")
    (root / "legacy-0").mkdir()
    (root / "legacy-0" / "00000000000000000000.log").write_bytes(legacy_segment())
    for name, data in kafka_go_message_sets().items():
        (root / f"go.{name}-0").mkdir()
        (root / f"go.{name}-0" / "00000000000000000000.log").write_bytes(data)
    return root


# --- what kafka-python reads --------------------------------------------------------------------

def kafka_python_batches(data: bytes) -> list[tuple[object, bool, list]]:
    """(batch, its CRC verdict, its records); the CRC first, as kafka-python's batches require."""
    records = KpMemoryRecords(data)
    batches = []
    while (batch := records.next_batch()) is not None:
        batches.append((batch, batch.validate_crc(), list(batch)))
    return batches


def independent_rows(root: Path) -> list[dict]:
    rows = []
    for path in sorted(root.rglob("*.log"), key=str):
        topic, _, partition = path.parent.name.rpartition("-")
        for batch, crc_valid, records in kafka_python_batches(path.read_bytes()):
            legacy = isinstance(batch, KpLegacyBatch)
            if not records:
                continue
            rows += [{
                "topic": topic, "partition": int(partition), "file": str(path),
                "base_offset": records[0].offset if legacy else batch.base_offset,
                "partition_leader_epoch": -1 if legacy else batch.leader_epoch,
                "producer_id": -1 if legacy else batch.producer_id,
                "producer_epoch": -1 if legacy else batch.producer_epoch,
                "base_sequence": -1 if legacy else batch.base_sequence,
                "is_transactional": False if legacy else batch.is_transactional,
                "is_control": False if legacy else batch.is_control_batch,
                "compression": CODEC_NAMES[batch.compression_type], "crc_valid": crc_valid,
                "offset": record.offset,
                "timestamp": NO_TIMESTAMP if record.timestamp is None else record.timestamp,
                "timestamp_type": TIMESTAMP_TYPES[batch.timestamp_type],
                "key": record.key, "value": record.value,
                "headers": [{"key": k, "value": v} for k, v in record.headers],
            } for record in records]
    return rows


@pytest.fixture(scope="module")
def expected_rows(log_dir) -> list[dict]:
    return independent_rows(log_dir)


def batch_and_record_counts(rows: list[dict]) -> tuple[int, int]:
    """Batches as the decode summary counts them (distinct file and base offset), and records."""
    return len({(r["file"], r["base_offset"]) for r in rows}), len(rows)


def parquet_rows(out: Path) -> list[dict]:
    return [row for part in sorted(out.glob("part-*.parquet")) for row in pq.read_table(part).to_pylist()]


def test_the_fixture_holds_what_it_was_built_to_hold(expected_rows):
    legacy = [r for r in expected_rows if r["topic"] == "legacy"]
    assert [r["offset"] for r in legacy] == list(range(17))
    assert {r["compression"] for r in legacy} == {"none", "gzip", "snappy", "lz4"}
    assert {r["timestamp_type"] for r in legacy} == {"NO_TIMESTAMP_TYPE", "CREATE_TIME", "LOG_APPEND_TIME"}
    assert [r["offset"] for r in legacy if not r["crc_valid"]] == [16]
    assert [r["timestamp"] for r in legacy if r["timestamp_type"] == "LOG_APPEND_TIME"] == [BASE_TS + 999] * 2
    go = [r for r in expected_rows if r["topic"] != "legacy"]
    assert len({r["topic"] for r in go}) == 11 and {r["partition_leader_epoch"] for r in go} - {-1}  # v2 too


def test_read_table_reads_legacy_sets_as_kafka_python_does(log_dir, expected_rows):
    assert read_table(str(log_dir)).to_pylist() == expected_rows


def test_kwire_decode_writes_the_rows_kafka_python_reads_and_counts_them(log_dir, expected_rows, tmp_path, capsys):
    out = tmp_path / "out"
    # the log holds one message whose CRC kafka-python also finds wrong: decode stops there, as every
    # command does, unless asked to go on; then it counts it and exits 1 (a finding)
    assert kwire_main(["decode", str(log_dir), "--out", str(tmp_path / "strict")]) == 2
    capsys.readouterr()
    assert kwire_main(["decode", str(log_dir), "--out", str(out), "--skip-undecodable"]) == 1
    got = parquet_rows(out)  # with --skip-undecodable every row has the skipped-range columns: none set here
    assert all(row.pop("skipped_position") is None and row.pop("skipped_bytes") is None for row in got)
    assert got == expected_rows
    batches, records = batch_and_record_counts(expected_rows)
    files = len(list(log_dir.rglob("*.log")))
    crc_failures = sum(1 for row in expected_rows if not row["crc_valid"])
    assert files > 1 and crc_failures == 1
    assert capsys.readouterr().out.endswith(f"{files} files, {batches} batches, {records} records; "
                                            "0 bytes not decoded, in 0 skipped ranges (rows with skipped_bytes set); "
                                            "1 batch failing its CRC (rows with crc_valid false)\n")


def test_decode_to_directory_in_worker_processes_matches_kafka_python(log_dir, expected_rows, tmp_path, monkeypatch):
    monkeypatch.setattr(decode_files, "IN_PROCESS_BYTES", 0)  # worker processes even for this small input
    out = tmp_path / "out"
    summary = decode_to_directory(str(log_dir), out, jobs=2, options={"max_split_bytes": 4096})
    assert parquet_rows(out) == expected_rows
    batches, records = batch_and_record_counts(expected_rows)
    assert (summary.files, summary.batches, summary.records) == (len(list(log_dir.rglob("*.log"))), batches, records)
    assert (summary.skipped_ranges, summary.skipped_bytes) == (0, 0)


@pytest.mark.parametrize("damaged_index", [0, 2], ids=["magic0-gzip-wrapper", "magic1-lz4-log-append"])
def test_skipped_ranges_leave_counts_that_kafka_python_agrees_with(tmp_path, capsys, damaged_index):
    """One legacy entry made unreadable (its size below any message's); the summary must count the
    rest exactly, and the skipped bytes must be that entry's, as kafka-python measures it."""
    need_module("kafka")
    data = bytearray(legacy_segment())
    batches = kafka_python_batches(bytes(data))
    wrappers = [i for i, (_, _, records) in enumerate(batches) if len(records) > 1]  # compressed entries
    target = wrappers[damaged_index]
    start = sum(batch.size_in_bytes for batch, _, _ in batches[:target])
    length = batches[target][0].size_in_bytes
    struct.pack_into(">i", data, start + 8, 5)  # size 5: below the 14 bytes of any legacy message
    root = tmp_path / "in"
    (root / "legacy-0").mkdir(parents=True)
    (root / "legacy-0" / "00000000000000000000.log").write_bytes(bytes(data))

    kept = [records for i, (_, _, records) in enumerate(batches) if i != target]
    expected_batches = sum(1 for records in kept if records)
    expected_records = sum(len(records) for records in kept)
    crc_failures = sum(1 for i, (_, crc_valid, _) in enumerate(batches) if i != target and not crc_valid)
    assert crc_failures == 1  # the message legacy_segment() writes with a wrong CRC, as kafka-python finds it
    assert kwire_main(["decode", str(root), "--out", str(tmp_path / "strict")]) != 0
    capsys.readouterr()
    assert kwire_main(["decode", str(root), "--out", str(tmp_path / "out"), "--skip-undecodable"]) == 1  # a finding
    assert capsys.readouterr().out.endswith(f"1 file, {expected_batches} batches, {expected_records} records; "
                                            f"{length} bytes not decoded, in 1 skipped range "
                                            "(rows with skipped_bytes set); "
                                            "1 batch failing its CRC (rows with crc_valid false)\n")
    summary = decode_to_directory(str(root), tmp_path / "again", options={"skip_undecodable": True})
    assert (summary.batches, summary.records, summary.skipped_ranges, summary.skipped_bytes) == \
        (expected_batches, expected_records, 1, length)
    rows = parquet_rows(tmp_path / "again")
    [skipped] = [r for r in rows if r["skipped_bytes"] is not None]
    assert (skipped["skipped_position"], skipped["skipped_bytes"]) == (start, length)
    assert [r["offset"] for r in rows if r["skipped_bytes"] is None] == \
        [record.offset for records in kept for record in records]
