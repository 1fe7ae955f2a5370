"""KRaft metadata logs written by real Kafka 3.6.1 and 3.9.0 nodes decode completely and re-encode exactly.

The expected counts come from the fixtures' READMEs (counted when the files were collected), the
expected values from the files themselves (meta.properties, quorum-state, the bytes of
bootstrap.checkpoint): none of them was produced by kwire.
"""
from __future__ import annotations

import base64
import uuid
from collections import Counter
from pathlib import Path

import pytest

from kwire.logs.entries import ControlRecord
from kwire.logs.metadata_log import (
    MetadataLogDirectory,
    MetadataRecord,
    RawMetadataRecord,
    SnapshotId,
    decode_metadata_value,
    parse_quorum_state,
    parse_snapshot_file_name,
    read_metadata_log,
    read_quorum_state,
    read_snapshot,
)
from kwire.records import ControlRecordType
from kwire.wire.errors import DecodeError, KwireError
from tests.paths import KRAFT_361, KRAFT_390

KAFKA_361 = KRAFT_361
KAFKA_390 = KRAFT_390
SEGMENT = "__cluster_metadata-0/00000000000000000000.log"
SNAPSHOT_361 = KAFKA_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint"

# (record name, version) -> count, as listed in each fixture's README.
EXPECTED_361 = {
    ("LEADER_CHANGE", 0): 5, ("RegisterBrokerRecord", 2): 5, ("TopicRecord", 0): 2,
    ("PartitionRecord", 0): 51, ("ConfigRecord", 0): 3, ("PartitionChangeRecord", 0): 357,
    ("FeatureLevelRecord", 0): 1, ("ProducerIdsRecord", 0): 4, ("BrokerRegistrationChangeRecord", 0): 9,
    ("BrokerRegistrationChangeRecord", 1): 4, ("NoOpRecord", 0): 18122, ("ZkMigrationStateRecord", 0): 1,
    ("BeginTransactionRecord", 0): 1, ("EndTransactionRecord", 0): 1,
}
EXPECTED_390 = {
    ("LEADER_CHANGE", 0): 13, ("RegisterBrokerRecord", 3): 13, ("TopicRecord", 0): 3,
    ("PartitionRecord", 1): 52, ("ConfigRecord", 0): 3, ("PartitionChangeRecord", 1): 1173,
    ("RemoveTopicRecord", 0): 1, ("FeatureLevelRecord", 0): 1, ("ProducerIdsRecord", 0): 1,
    ("BrokerRegistrationChangeRecord", 0): 26, ("BrokerRegistrationChangeRecord", 1): 12,
    ("NoOpRecord", 0): 8487, ("ZkMigrationStateRecord", 0): 1, ("BeginTransactionRecord", 0): 1,
    ("EndTransactionRecord", 0): 1, ("RegisterControllerRecord", 0): 13,
}
EXPECTED_SNAPSHOT_361 = {
    ("SNAPSHOT_HEADER", 0): 1, ("RegisterBrokerRecord", 2): 1, ("TopicRecord", 0): 2, ("PartitionRecord", 0): 51,
    ("ConfigRecord", 0): 3, ("FeatureLevelRecord", 0): 1, ("ProducerIdsRecord", 0): 1,
    ("ZkMigrationStateRecord", 0): 1, ("SNAPSHOT_FOOTER", 0): 1,
}


def kind(record) -> tuple[str, int]:
    if isinstance(record, ControlRecord):
        return record.name, record.key_version
    assert isinstance(record, MetadataRecord), f"not decoded: {record!r}"
    return record.name, record.version


def check_log(path: Path, batches: int, records: int, offsets: range, expected: dict) -> list:
    """Decode the log, check counts and that every record value and batch re-encode exactly."""
    read = list(read_metadata_log(path))
    entries = [entry for batch in read for entry in batch.entries]
    assert (len(read), len(entries)) == (batches, records)
    assert [entry.offset for entry in entries] == list(offsets)
    assert Counter(kind(entry.record) for entry in entries) == expected
    for batch in read:
        for entry, original in zip(batch.entries, batch.source.records, strict=True):
            assert entry.record.encode_value() == original.value, f"offset {entry.offset}"
            assert entry.record.encode_key() == original.key, f"offset {entry.offset}"
        assert batch.encode() == bytes(batch.source.raw), f"batch at offset {batch.base_offset}"
    return read


def test_kafka_361_metadata_log_decodes_completely_and_reencodes_exactly() -> None:
    batches = check_log(KAFKA_361 / SEGMENT, 18149, 18566, range(0, 18566), EXPECTED_361)
    epochs = [batch.partition_leader_epoch for batch in batches]
    assert epochs == sorted(epochs) and (epochs[0], epochs[-1]) == (1, 5)  # README: epochs 1..5
    records = [entry.record for batch in batches for entry in batch.entries]
    topics = [r.message.name for r in records if isinstance(r, MetadataRecord) and r.name == "TopicRecord"]
    assert sorted(topics) == ["__consumer_offsets", "belajarkafka"]
    configs = {r.message.name for r in records if isinstance(r, MetadataRecord) and r.name == "ConfigRecord"}
    assert configs == {"compression.type", "cleanup.policy", "segment.bytes"}


def test_kafka_390_metadata_log_decodes_completely_and_reencodes_exactly() -> None:
    batches = check_log(KAFKA_390 / SEGMENT, 8568, 9801, range(0, 9801), EXPECTED_390)
    records = [entry.record for batch in batches for entry in batch.entries]
    # Every PartitionRecord v1 names the log directory whose id meta.properties records.
    properties = dict(line.split("=", 1) for line in (KAFKA_390 / "meta.properties").read_text().splitlines()
                      if "=" in line and not line.startswith("#"))
    directory = uuid.UUID(bytes=base64.urlsafe_b64decode(properties["directory.id"] + "=="))
    partitions = [r.message for r in records if isinstance(r, MetadataRecord) and r.name == "PartitionRecord"]
    assert {tuple(p.directories) for p in partitions} == {(directory,)}
    controllers = [r.message for r in records if isinstance(r, MetadataRecord) and r.name == "RegisterControllerRecord"]
    assert {c.controller_id for c in controllers} == {int(properties["node.id"])}


def test_kafka_361_snapshot_decodes_and_reencodes_to_the_same_file() -> None:
    snapshot = read_snapshot(SNAPSHOT_361)
    assert snapshot.snapshot_id == SnapshotId(7111, 1)
    assert len(snapshot.batches) == 3 and len(snapshot.entries) == 60
    assert all(batch.partition_leader_epoch == 1 for batch in snapshot.batches)
    every = [entry.record for batch in snapshot.batches for entry in batch.entries]
    assert Counter(kind(record) for record in every) == EXPECTED_SNAPSHOT_361
    assert snapshot.header.version == 0 and snapshot.header.last_contained_log_timestamp > 0
    assert snapshot.footer.version == 0
    assert snapshot.kraft_version is None and snapshot.voters is None  # kraft.version 0 in 3.6
    levels = [r.message.feature_level for r in snapshot.records if r.name == "FeatureLevelRecord"]
    assert levels == [14]  # README: metadata.version 14 in log and snapshot
    assert snapshot.encode() == SNAPSHOT_361.read_bytes()


@pytest.mark.parametrize(("root", "level"), [(KAFKA_361, 14), (KAFKA_390, 21)])
def test_bootstrap_checkpoint_holds_metadata_version(root: Path, level: int) -> None:
    path = root / "bootstrap.checkpoint"
    bootstrap = read_snapshot(path)
    assert bootstrap.snapshot_id is None
    assert [(r.name, r.message.name, r.message.feature_level) for r in bootstrap.records] == [
        ("FeatureLevelRecord", "metadata.version", level)]
    assert [batch.base_offset for batch in bootstrap.batches] == [0, 1, 2]
    assert bootstrap.encode() == path.read_bytes()


@pytest.mark.parametrize(("root", "epoch"), [(KAFKA_361, 5), (KAFKA_390, 13)])
def test_quorum_state_reads_and_writes_back_the_same_text(root: Path, epoch: int) -> None:
    path = root / "__cluster_metadata-0" / "quorum-state"
    state = read_quorum_state(path)
    assert state.data_version == 0
    assert (state.data.leader_id, state.data.leader_epoch, state.data.voted_id) == (1, epoch, -1)
    assert [voter.voter_id for voter in state.data.current_voters] == [1]
    assert state.to_json() == path.read_text()


def test_metadata_log_directory_finds_every_file() -> None:
    directory = MetadataLogDirectory.open(KAFKA_361 / "__cluster_metadata-0")
    assert [p.name for p in directory.segments] == ["00000000000000000000.log"]
    assert directory.snapshots == [(SnapshotId(7111, 1), SNAPSHOT_361)]
    assert directory.quorum_state.name == "quorum-state"
    assert directory.bootstrap == KAFKA_361 / "bootstrap.checkpoint"
    assert directory.latest_snapshot().snapshot_id == SnapshotId(7111, 1)
    assert directory.read_quorum_state().data.leader_epoch == 5


def test_snapshot_file_names() -> None:
    assert parse_snapshot_file_name("00000000000000007111-0000000001.checkpoint") == SnapshotId(7111, 1)
    assert SnapshotId(7111, 1).file_name() == "00000000000000007111-0000000001.checkpoint"
    for name in ("bootstrap.checkpoint", "7111-1.checkpoint", "00000000000000007111-0000000001.log"):
        assert parse_snapshot_file_name(name) is None


# --- framing of one value, worked by hand ---------------------------------------------------------

# FeatureLevelRecord v0 as in bootstrap.checkpoint: frame 1, apiKey 12, version 0, compact string
# "metadata.version" (length 16 + 1), int16 featureLevel 14, empty tagged section.
FEATURE_LEVEL_VALUE = bytes.fromhex("010c00") + b"\x11metadata.version" + bytes.fromhex("000e00")


def test_hand_worked_value_decodes_and_encodes() -> None:
    assert FEATURE_LEVEL_VALUE in (KAFKA_361 / "bootstrap.checkpoint").read_bytes()
    record = decode_metadata_value(FEATURE_LEVEL_VALUE)
    assert (record.name, record.api_key, record.version) == ("FeatureLevelRecord", 12, 0)
    assert (record.message.name, record.message.feature_level) == ("metadata.version", 14)
    assert record.to_dict() == {"name": "metadata.version", "featureLevel": 14}
    assert record.encode_value() == FEATURE_LEVEL_VALUE


def test_unknown_type_and_version_are_kept_raw_or_refused_when_strict() -> None:
    unknown_type = bytes.fromhex("016300aabb")  # apiKey 99
    raw = decode_metadata_value(unknown_type)
    assert raw == RawMetadataRecord(99, 0, b"\xaa\xbb") and raw.reason == "unknown metadata record type 99"
    assert raw.encode_value() == unknown_type
    unknown_version = bytes.fromhex("010c09") + FEATURE_LEVEL_VALUE[3:]  # FeatureLevelRecord v9
    raw = decode_metadata_value(unknown_version)
    assert isinstance(raw, RawMetadataRecord) and raw.version == 9 and "no version 9" in raw.reason
    assert raw.encode_value() == unknown_version
    for value, reason in ((unknown_type, "unknown metadata record type 99"), (unknown_version, "no version 9")):
        with pytest.raises(DecodeError, match=reason) as raised:
            decode_metadata_value(value, strict=True)
        assert raised.value.offset == 0  # the record's frame, where its type and version are


@pytest.mark.parametrize(("value", "reason"), [
    (b"\x00" + FEATURE_LEVEL_VALUE[1:], "frame version 0"),
    (b"\x02" + FEATURE_LEVEL_VALUE[1:], "frame version 2"),
    (FEATURE_LEVEL_VALUE + b"\x00", "1 bytes left after FeatureLevelRecord"),
    (bytes.fromhex("0180800200"), "larger than an int16"),  # apiKey 32768
    (None, "null value"),
])
def test_bad_frames_are_errors(value: bytes | None, reason: str) -> None:
    with pytest.raises(DecodeError, match=reason):
        decode_metadata_value(value)


def test_every_truncation_of_a_real_value_raises_decode_error() -> None:
    snapshot = read_snapshot(SNAPSHOT_361)
    value = max((r.encode_value() for r in snapshot.records), key=len)  # RegisterBrokerRecord
    # RegisterBrokerRecord v2 as Kafka's RegisterBrokerRecord.json lays it out: frame version,
    # apiKey and version (one byte each), BrokerId int32 at 3, IsMigratingZkBroker bool at 7,
    # IncarnationId uuid at 8, BrokerEpoch int64 at 24, then the EndPoints array
    assert value[:3] == b"\x01\x00\x02"
    where = {}
    for end in range(len(value)):
        with pytest.raises(DecodeError) as raised:
            decode_metadata_value(value[:end])
        error = raised.value
        assert error.offset is not None and error.offset <= end, (end, error)
        if end >= 3:
            assert error.path.startswith("RegisterBrokerRecord."), (end, error)
        where[end] = (error.path, error.offset)
    assert [where[end] for end in range(3)] == [("", 0), ("", 1), ("", 2)]  # the frame's three varints
    assert all(where[end] == ("RegisterBrokerRecord.incarnation_id", 8) for end in range(8, 24))
    assert all(where[end] == ("RegisterBrokerRecord.broker_epoch", 24) for end in range(24, 32))


def test_incomplete_last_batch_is_an_error_unless_allowed() -> None:
    data = (KAFKA_361 / "bootstrap.checkpoint").read_bytes()
    with pytest.raises(DecodeError, match="incomplete") as info:
        list(read_metadata_log(data[:-5]))
    assert info.value.offset == 174  # the footer batch starts there
    assert len(list(read_metadata_log(data[:-5], allow_truncated=True))) == 2


def test_corrupt_batch_raises_kwire_error_naming_the_offset() -> None:
    data = bytearray((KAFKA_361 / "bootstrap.checkpoint").read_bytes())
    data[83 + 70] ^= 0xFF  # inside the record of the FeatureLevelRecord batch (base offset 1)
    with pytest.raises(KwireError, match="base offset 1"):
        list(read_metadata_log(bytes(data)))


def test_quorum_state_errors() -> None:
    good = '{"leaderId":1,"leaderEpoch":2,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}'
    state = parse_quorum_state(good)
    assert (state.data_version, state.data.leader_epoch) == (1, 2)
    assert state.to_json() == good
    for text, reason in [("{", "not JSON"), ("[]", "not a JSON object"), ('{"leaderId":1}', "data_version"),
                         ('{"data_version":7}', "unknown"), ('{"data_version":1,"leaderId":1}', "needs field")]:
        with pytest.raises(DecodeError, match=reason):
            parse_quorum_state(text)


def test_control_records_of_the_log_are_leader_changes() -> None:
    changes = [entry.record for batch in read_metadata_log(KAFKA_361 / SEGMENT) if batch.is_control
               for entry in batch.entries]
    assert {record.type for record in changes} == {ControlRecordType.LEADER_CHANGE}
    assert [record.message.leader_id for record in changes] == [1] * 5


def test_random_and_mutated_values_raise_only_kwire_errors() -> None:
    """Garbage after a valid-looking frame, and real values with one byte changed: a record or an error."""
    import random

    rng = random.Random(6)
    values = [r.encode_value() for r in read_snapshot(SNAPSHOT_361).records]
    for _ in range(3000):
        if rng.random() < 0.5:
            value = bytes([1, rng.randrange(32), rng.randrange(4)]) + rng.randbytes(rng.randrange(40))
        else:
            value = bytearray(rng.choice(values))
            value[rng.randrange(len(value))] = rng.randrange(256)
            value = bytes(value)
        try:
            decoded = decode_metadata_value(value)
        except KwireError:
            continue
        if isinstance(decoded, RawMetadataRecord):  # kept raw: writing it again gives the same record
            assert decode_metadata_value(decoded.encode_value()) == decoded


def test_mutated_records_past_the_crc_raise_only_kwire_errors() -> None:
    # Damage inside one batch's CRC-covered part (attributes to its end), then write the CRC the
    # damaged bytes have: the header, decompression, record and metadata-value decoders see it,
    # not the CRC check (which stops almost every mutation in the test below).
    import random
    import struct

    from crc32c import crc32c

    rng = random.Random(7)
    original = SNAPSHOT_361.read_bytes()
    spans, pos = [], 0
    while pos < len(original):
        (length,) = struct.unpack_from(">i", original, pos + 8)
        spans.append((pos, pos + 12 + length))
        pos += 12 + length
    assert len(spans) == 3 and spans[-1][1] == len(original)
    outcomes: Counter[str] = Counter()
    for _ in range(300):
        data = bytearray(original)
        start, end = rng.choice(spans)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(start + 21, end)] = rng.randrange(256)
        struct.pack_into(">I", data, start + 17, crc32c(bytes(data[start + 21:end])))
        try:
            list(read_metadata_log(bytes(data), allow_truncated=True))
            outcomes["decoded"] += 1
        except KwireError as err:
            assert "crc" not in str(err).lower(), err
            outcomes["refused"] += 1
    # both paths are taken: damaged values that still parse, and damage the decoders refuse
    assert outcomes["decoded"] > 50 and outcomes["refused"] > 50, outcomes


def test_mutated_log_files_raise_only_kwire_errors() -> None:
    import random

    rng = random.Random(7)
    original = SNAPSHOT_361.read_bytes()
    for _ in range(300):
        data = bytearray(original)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            list(read_metadata_log(bytes(data), allow_truncated=True))
        except KwireError:
            pass
