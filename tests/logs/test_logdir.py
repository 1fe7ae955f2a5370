"""Index files and producer-state snapshots, checked against byte layouts worked out by hand from
Kafka's storage module (OffsetIndex, TimeIndex, TransactionIndex, ProducerStateManager)."""
from __future__ import annotations

import struct

import pytest
from crc32c import crc32c

from kwire.logs.logdir import (
    AbortedTransaction,
    OffsetIndexEntry,
    ProducerSnapshotEntry,
    TimeIndexEntry,
    encode_offset_index,
    encode_producer_snapshot,
    encode_time_index,
    encode_transaction_index,
    parse_numbered_file_name,
    parse_partition_dir_name,
    parse_segment_file_name,
    read_offset_index,
    read_producer_snapshot,
    read_time_index,
    read_transaction_index,
    segment_file_name,
)
from kwire.wire.errors import CorruptRecordError, DecodeError, EncodeError

# Segment base offset 100: entries for offsets 100 at byte 0 and 105 at byte 4096, then the zeros
# an unclean shutdown leaves in the preallocated file.
OFFSET_INDEX = bytes.fromhex("00000000" "00000000" "00000005" "00001000") + bytes(8 * 3)
TIME_INDEX = bytes.fromhex("0000018bcfe56800" "00000000" "0000018bcfe57b88" "00000005") + bytes(12 * 2)
TXN_INDEX = bytes.fromhex("0000" "000000000000004d" "0000000000000064" "0000000000000069" "000000000000006a")
# One producer: id 77, epoch 1, last sequence 9, last offset 105, offset delta 4, timestamp
# 1_700_000_000_000, coordinator epoch 3, no open transaction (-1).
PRODUCER_ENTRY = bytes.fromhex(
    "000000000000004d" "0001" "00000009" "0000000000000069" "00000004" "0000018bcfe56800" "00000003"
    "ffffffffffffffff")
PRODUCER_BODY = bytes.fromhex("00000001") + PRODUCER_ENTRY
PRODUCER_SNAPSHOT = bytes.fromhex("0001") + struct.pack(">I", crc32c(PRODUCER_BODY)) + PRODUCER_BODY


def test_offset_index_stops_at_preallocated_zeros() -> None:
    expected = [OffsetIndexEntry(100, 0), OffsetIndexEntry(105, 4096)]
    assert read_offset_index(OFFSET_INDEX, base_offset=100) == expected
    assert encode_offset_index(expected, 100) == OFFSET_INDEX[:16]


def test_index_base_offset_comes_from_the_file_name(tmp_path) -> None:
    path = tmp_path / segment_file_name(100, ".index")
    path.write_bytes(OFFSET_INDEX)
    assert path.name == "00000000000000000100.index"
    assert read_offset_index(path)[1] == OffsetIndexEntry(105, 4096)


def test_time_index() -> None:
    expected = [TimeIndexEntry(1_700_000_000_000, 100), TimeIndexEntry(1_700_000_005_000, 105)]
    assert read_time_index(TIME_INDEX, base_offset=100) == expected
    assert encode_time_index(expected, 100) == TIME_INDEX[:24]


def test_transaction_index() -> None:
    expected = [AbortedTransaction(producer_id=77, first_offset=100, last_offset=105, last_stable_offset=106)]
    assert read_transaction_index(TXN_INDEX) == expected
    assert encode_transaction_index(expected) == TXN_INDEX
    with pytest.raises(CorruptRecordError, match="version 1"):
        read_transaction_index(b"\x00\x01" + TXN_INDEX[2:])


@pytest.mark.parametrize(("reader", "data", "size"), [
    (read_offset_index, OFFSET_INDEX[:-3], 8), (read_time_index, TIME_INDEX[:-1], 12),
    (read_transaction_index, TXN_INDEX[:-2], 34),
])
def test_partial_index_entries_are_corrupt(reader, data: bytes, size: int) -> None:
    with pytest.raises(CorruptRecordError, match=f"{size}-byte entries"):
        reader(data)


def test_index_offsets_must_fit_relative_to_the_base() -> None:
    with pytest.raises(EncodeError):
        encode_offset_index([OffsetIndexEntry(99, 0)], 100)
    with pytest.raises(EncodeError):
        encode_time_index([TimeIndexEntry(0, 100 + 2**31)], 100)


def test_producer_snapshot() -> None:
    [entry] = read_producer_snapshot(PRODUCER_SNAPSHOT)
    assert entry == ProducerSnapshotEntry(77, 1, 9, 105, 4, 1_700_000_000_000, 3, -1)
    assert entry.first_sequence == 5
    assert encode_producer_snapshot([entry]) == PRODUCER_SNAPSHOT


def test_first_sequence_wraps_like_kafka() -> None:
    entry = ProducerSnapshotEntry(1, 0, 2, 10, 4, 0, 0, -1)  # sequences 2147483646, 2147483647, 0, 1, 2
    assert entry.first_sequence == 2**31 - 2


@pytest.mark.parametrize(("data", "error", "reason"), [
    (PRODUCER_SNAPSHOT[:9], DecodeError, "header"),
    (b"\x00\x02" + PRODUCER_SNAPSHOT[2:], DecodeError, "unknown version 2"),
    (PRODUCER_SNAPSHOT[:-1] + b"\x00", CorruptRecordError, "CRC-32C mismatch"),
])
def test_bad_producer_snapshots(data: bytes, error: type, reason: str) -> None:
    with pytest.raises(error, match=reason):
        read_producer_snapshot(data)


def test_producer_snapshot_count_must_match_its_entries() -> None:
    body = bytes.fromhex("00000002") + PRODUCER_ENTRY  # claims two entries, has one
    data = bytes.fromhex("0001") + struct.pack(">I", crc32c(body)) + body
    with pytest.raises(DecodeError, match="claims 2 entries"):
        read_producer_snapshot(data)


def test_file_and_directory_names() -> None:
    assert segment_file_name(42) == "00000000000000000042.log"
    assert parse_segment_file_name("00000000000000000042.log") == 42
    assert parse_segment_file_name("00000000000000000042.index") is None
    assert parse_numbered_file_name("00000000000000000042.timeindex") == (42, ".timeindex")
    assert parse_numbered_file_name("server.log") is None
    assert parse_partition_dir_name("__consumer_offsets-17") == ("__consumer_offsets", 17)
    assert parse_partition_dir_name("my-topic-0") == ("my-topic", 0)
    assert parse_partition_dir_name("logs") is None
