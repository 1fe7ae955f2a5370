"""Real bytes written by other software: librdkafka and kafka-python produce batches captured on
the wire, and KRaft metadata logs and snapshots written by Apache Kafka 3.6.1 and 3.9.0.

Expectations come from the captures' index.json, the fixtures' READMEs (counted by an
independent tool) and what the producing clients were told to send.
"""
from __future__ import annotations

import json
import struct
from collections import Counter

import pytest

from kwire.records import (
    BatchReader,
    Codec,
    ControlRecordType,
    FileBatchReader,
    decode_batch,
    decode_control_key,
)
from tests.packages import KpBatch
from tests.paths import CAPTURES, KRAFT_361, KRAFT_390

KRAFT_36, KRAFT_39 = KRAFT_361, KRAFT_390


def capture_entries():
    for index in sorted(CAPTURES.glob("*/batches/index.json")):
        for entry in json.loads(index.read_text()):
            yield pytest.param(index.parent / entry["file"], entry, id=f"{index.parent.parent.name}/{entry['file']}")


@pytest.mark.parametrize("path, entry", list(capture_entries()))  # a list: mutmut collects twice in one process
def test_captured_batch_matches_index(path, entry):
    wire = path.read_bytes()
    assert len(wire) == entry["batch_bytes"]
    batch = decode_batch(wire)  # verifies the CRC-32C
    assert batch.crc_valid is entry["crc_ok"]
    assert batch.magic == entry["magic"]
    assert batch.compression == Codec[entry["compression"].upper()]
    assert batch.producer_id == entry["producer_id"]
    assert batch.record_count == len(batch.records) == entry["records"]
    assert [r.offset for r in batch.records] == list(range(entry["records"]))
    # An independent reader sees the same records, headers included.
    theirs = [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in KpBatch(wire)]
    ours = [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in batch.records]
    assert ours == theirs


@pytest.mark.parametrize(
    "path", sorted(CAPTURES.glob("*/batches/cap-*.batch")), ids=lambda p: f"{p.parent.parent.name}/{p.name}"
)
def test_librdkafka_records_carry_what_the_producer_sent(path):
    # The capture script produced key k<i>, value "value-<i>-" + 50 x; on the mock cluster every
    # tenth message also had header h=v.
    batch = decode_batch(path.read_bytes())
    with_headers = path.parent.parent.name == "librdkafka-mock"
    for i, record in enumerate(batch.records):
        assert record.key == b"k%d" % i
        assert record.value == b"value-%d-" % i + b"x" * 50
        expected_headers = [("h", b"v")] if with_headers and i % 10 == 0 else []
        assert record.headers == expected_headers
        assert batch.base_timestamp <= record.timestamp <= batch.max_timestamp


def test_kafka_python_batches_split_one_hundred_values_over_four_partitions():
    values = []
    for path in sorted(CAPTURES.glob("tansu/batches/kafka-python_*.batch")):
        batch = decode_batch(path.read_bytes())
        assert batch.compression == Codec.GZIP
        assert all(r.key is None for r in batch.records)
        values += [r.value for r in batch.records]
    assert sorted(values) == sorted(b"v%d" % i for i in range(100))


def test_kafka_python_idempotent_batch_values():
    batch = decode_batch((CAPTURES / "librdkafka-mock/batches/kafka-python_t-kp_p0_produce_v7.batch").read_bytes())
    assert batch.producer_epoch == 0 and batch.base_sequence == 0
    assert [(r.key, r.value) for r in batch.records] == [(b"k", b"v%d" % i) for i in range(100)]


# ------------------------------------------------------------------------------ KRaft logs


def metadata_record_kinds(value: bytes) -> tuple[int, int]:
    # frameVersion, apiKey, version: unsigned varints, each below 128 in these logs
    assert value[0] == 1, "frame version"
    assert value[1] < 0x80 and value[2] < 0x80
    return value[1], value[2]


@pytest.mark.parametrize(
    "folder, batches, records, control_count, kinds",
    [
        (
            KRAFT_36,
            18_149,
            18_566,
            5,
            {(0, 2): 5, (2, 0): 2, (3, 0): 51, (4, 0): 3, (5, 0): 357, (12, 0): 1, (15, 0): 4,
             (17, 0): 9, (17, 1): 4, (20, 0): 18_122, (21, 0): 1, (23, 0): 1, (24, 0): 1},
        ),
        (
            KRAFT_39,
            8_568,
            9_801,
            13,
            {(0, 3): 13, (2, 0): 3, (3, 1): 52, (4, 0): 3, (5, 1): 1_173, (9, 0): 1, (12, 0): 1,
             (15, 0): 1, (17, 0): 26, (17, 1): 12, (20, 0): 8_487, (21, 0): 1, (23, 0): 1,
             (24, 0): 1, (27, 0): 13},
        ),
    ],
    ids=["kafka-3.6.1", "kafka-3.9.0"],
)
def test_kraft_metadata_log_decodes_completely(folder, batches, records, control_count, kinds):
    reader = FileBatchReader(folder / "__cluster_metadata-0" / "00000000000000000000.log")
    seen_batches = 0
    next_offset = 0
    control_types = Counter()
    seen_kinds = Counter()
    for batch in reader:
        seen_batches += 1
        assert batch.magic == 2 and batch.compression == Codec.NONE
        assert batch.base_offset == next_offset
        assert batch.producer_id == -1 and batch.producer_epoch == -1 and batch.base_sequence == -1
        for record in batch.records:
            assert record.offset == next_offset
            next_offset += 1
            if batch.is_control:
                control_types[decode_control_key(record.key).type] += 1
            else:
                assert record.key is None
                seen_kinds[metadata_record_kinds(record.value)] += 1
        assert batch.next_offset == next_offset
    assert reader.truncated_at is None
    assert seen_batches == batches
    assert next_offset == records
    assert control_types == {ControlRecordType.LEADER_CHANGE: control_count}
    assert seen_kinds == kinds


def test_leader_change_values_name_node_one():
    # LeaderChangeMessage v0 body: Version int16 (0), LeaderId int32; both logs come from node 1.
    for folder in (KRAFT_36, KRAFT_39):
        for batch in FileBatchReader(folder / "__cluster_metadata-0" / "00000000000000000000.log"):
            if batch.is_control:
                (record,) = batch.records
                assert struct.unpack_from(">hi", record.value) == (0, 1)


def test_snapshot_is_framed_by_header_and_footer():
    path = KRAFT_36 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint"
    batches = list(FileBatchReader(path))
    assert len(batches) == 3
    records = [r for b in batches for r in b.records]
    assert len(records) == 62
    assert [r.offset for r in records] == list(range(62))
    header, footer = batches[0], batches[-1]
    assert header.is_control and footer.is_control
    assert decode_control_key(header.records[0].key).type == ControlRecordType.SNAPSHOT_HEADER
    assert decode_control_key(footer.records[0].key).type == ControlRecordType.SNAPSHOT_FOOTER
    # SnapshotHeaderRecord v0: Version int16, LastContainedLogTimestamp int64, empty tag section;
    # the log's timestamps run from 2025-08-06 09:01:48Z to 2025-08-07 04:15:18Z.
    version, last_contained = struct.unpack_from(">hq", header.records[0].value)
    assert version == 0 and 1_754_470_908_000 <= last_contained <= 1_754_540_118_000
    assert header.records[0].value[10:] == b"\x00"
    assert footer.records[0].value == b"\x00\x00\x00"  # Version 0, empty tag section
    assert not any(b.is_control for b in batches[1:-1])


@pytest.mark.parametrize("folder, level", [(KRAFT_36, 14), (KRAFT_39, 21)], ids=["3.6.1", "3.9.0"])
def test_bootstrap_checkpoint_holds_metadata_version(folder, level):
    data = (folder / "bootstrap.checkpoint").read_bytes()
    reader = BatchReader(data)
    batches = list(reader)
    assert reader.truncated_at is None and reader.position == len(data) == 249
    assert [b.is_control for b in batches] == [True, False, True]
    (feature,) = batches[1].records
    # FeatureLevelRecord v0: frame 1, api key 12, version 0, compact string name, int16 level
    assert feature.value[:3] == b"\x01\x0c\x00"
    name_length = feature.value[3] - 1
    assert feature.value[4:4 + name_length] == b"metadata.version"
    (feature_level,) = struct.unpack_from(">h", feature.value, 4 + name_length)
    assert feature_level == level
