"""Logs and snapshots kwire writes read back equal: every metadata record type at every version,
snapshots laid out as Kafka lays them out, and ``__consumer_offsets`` / ``__transaction_state``
records checked against byte layouts worked out by hand from Kafka's record formats."""
from __future__ import annotations

from itertools import groupby
from pathlib import Path

import pytest

from kwire.fuzz.values import case_instance
from kwire.generated import MESSAGES
from kwire.logs.coordinator_log import (
    OFFSETS_TOPIC,
    TRANSACTIONS_TOPIC,
    CoordinatorLogWriter,
    CoordinatorRecord,
    RawCoordinatorRecord,
    decode_coordinator_record,
    read_coordinator_log,
)
from kwire.logs.entries import ControlRecord
from kwire.logs.metadata_log import (
    MetadataLogWriter,
    MetadataRecord,
    RawMetadataRecord,
    SnapshotId,
    build_snapshot,
    read_metadata_log,
    read_snapshot,
)
from kwire.records import Codec, ControlRecordType, EndTransactionMarker
from kwire.wire.errors import DecodeError, EncodeError, UnsupportedVersionError
from kwire.wire.index import load
from tests.paths import KRAFT_361, KRAFT_390


def struct_of(message: str, attr: str):
    """The generated class of a struct field, found by the field's name."""
    return next(f.struct for f in MESSAGES[message].FIELDS if f.attr == attr)


KAFKA_361_SNAPSHOT = (KRAFT_361 / "__cluster_metadata-0"
                      / "00000000000000007111-0000000001.checkpoint")
KAFKA_390_LOG = (KRAFT_390 / "__cluster_metadata-0"
                 / "00000000000000000000.log")
SEED = 20240611
RANDOM_PER_VERSION = 3
T0 = 1_700_000_000_000


def metadata_record_classes(*, remote_log: bool = False) -> dict:
    """apiKey -> class of every KRaft metadata record (or tiered storage's), from kwire's index."""
    index = load()
    table = index.remote_log_metadata_records if remote_log else index.metadata_records
    return {api_key: index.message_class(name) for api_key, name in table.items()}


def every_metadata_record() -> list[MetadataRecord]:
    """A default instance and a few seeded random ones of every metadata class at every version."""
    records = []
    for _api_key, cls in sorted(metadata_record_classes().items()):
        low, high = cls.VALID_VERSIONS
        for version in range(low, high + 1):
            records.append(MetadataRecord(cls(), version))
            records += [MetadataRecord(case_instance(cls, version, SEED, i), version)
                        for i in range(RANDOM_PER_VERSION)]
    return records


def test_the_registry_has_every_metadata_record_kind() -> None:
    classes = metadata_record_classes()
    metadata_types = [cls for cls in MESSAGES.values() if cls.MESSAGE_TYPE == "metadata"]
    # the KRaft records, and tiered storage's four of its own apiKey space
    assert len(classes) == len(metadata_types) - len(metadata_record_classes(remote_log=True)) == 27
    assert sorted(metadata_record_classes(remote_log=True)) == [0, 1, 2, 3]
    assert classes[0].NAME == "RegisterBrokerRecord" and classes[29].NAME == "UnregisterControllerRecord"


@pytest.mark.parametrize("codec", [Codec.NONE, Codec.ZSTD])
def test_metadata_log_with_every_record_type_and_version_reads_back_equal(tmp_path: Path, codec: Codec) -> None:
    records = every_metadata_record()
    writer = MetadataLogWriter(base_offset=1000, codec=codec)
    writer.append_control([MESSAGES["LeaderChangeMessage"](version=0, leader_id=3)], timestamp=T0, leader_epoch=4)
    for epoch, (_, group) in enumerate(groupby(records, key=lambda record: record.api_key), start=5):
        writer.append(group, timestamp=T0 + epoch, leader_epoch=epoch)  # one batch per record type
    writer.append([RawMetadataRecord(99, 3, b"\x01\x02\x03")], timestamp=T0, leader_epoch=40)
    path = writer.write_segment(tmp_path)
    assert path.name == "00000000000000001000.log"

    read = list(read_metadata_log(path))
    assert read == writer.batches
    decoded = [entry.record for batch in read for entry in batch.entries if not batch.is_control]
    assert decoded[:-1] == records and len(decoded) - 1 == len(records)
    assert decoded[-1] == RawMetadataRecord(99, 3, b"\x01\x02\x03")
    assert decoded[-1].reason == "unknown metadata record type 99"
    offsets = [entry.offset for batch in read for entry in batch.entries]
    assert offsets == list(range(1000, 1000 + len(offsets)))
    assert {(batch.codec, batch.is_control) for batch in read} == {(codec, False), (Codec.NONE, True)}


def test_snapshot_reads_back_equal_and_has_kafkas_layout(tmp_path: Path) -> None:
    records = every_metadata_record()
    voters = case_instance(MESSAGES["VotersRecord"], 0, SEED, 0)
    snapshot = build_snapshot(records, snapshot_id=SnapshotId(5000, 7), timestamp=T0,
                              last_contained_log_timestamp=T0 - 1, kraft_version=1, voters=voters,
                              max_records_per_batch=50)
    path = snapshot.write(tmp_path)
    assert path.name == "00000000000000005000-0000000007.checkpoint"
    read = read_snapshot(path)
    assert read == snapshot
    assert read.records == records
    header = read.batches[0]
    assert [entry.record.type for entry in header.entries] == [
        ControlRecordType.SNAPSHOT_HEADER, ControlRecordType.KRAFT_VERSION, ControlRecordType.KRAFT_VOTERS]
    assert read.header.last_contained_log_timestamp == T0 - 1
    assert read.kraft_version.kraft_version == 1 and read.voters == voters
    # offsets run on from the header batch's three records
    assert [batch.base_offset for batch in read.batches[1:-1]] == list(range(3, len(records) + 3, 50))
    assert read.batches[-1].base_offset == len(records) + 3 and read.batches[-1].is_control
    assert {batch.partition_leader_epoch for batch in read.batches} == {7}


def test_built_snapshot_matches_the_layout_of_a_real_kafka_snapshot() -> None:
    real = read_snapshot(KAFKA_361_SNAPSHOT)
    built = build_snapshot(real.records, snapshot_id=real.snapshot_id, timestamp=T0,
                           last_contained_log_timestamp=real.header.last_contained_log_timestamp)

    def layout(snapshot):
        return [(b.base_offset, b.partition_leader_epoch, b.is_control, b.codec,
                 [(e.offset, e.record.encode_key(), e.record.encode_value()) for e in b.entries])
                for b in snapshot.batches]

    assert layout(built) == layout(real)  # only the timestamps (the moment of writing) differ


def test_bootstrap_snapshot_without_kraft_version_or_voters() -> None:
    level = MetadataRecord(MESSAGES["FeatureLevelRecord"](name="metadata.version", feature_level=21), 0)
    bootstrap = build_snapshot([level], timestamp=T0)
    assert bootstrap.snapshot_id is None and bootstrap.kraft_version is None and bootstrap.voters is None
    assert [b.partition_leader_epoch for b in bootstrap.batches] == [0, 0, 0]
    assert read_snapshot(bootstrap.encode()) == bootstrap
    with pytest.raises(EncodeError, match="kraft.version"):
        build_snapshot([level], timestamp=T0, voters=MESSAGES["VotersRecord"]())


def test_a_snapshot_can_be_rewritten_at_a_lower_version() -> None:
    """What a metadata.version downgrade does: PartitionRecord v1 (Kafka 3.9) rewritten at v0."""
    partitions = [entry.record for batch in read_metadata_log(KAFKA_390_LOG) for entry in batch.entries
                  if isinstance(entry.record, MetadataRecord) and entry.record.name == "PartitionRecord"]
    assert partitions and {record.version for record in partitions} == {1}
    with pytest.raises(UnsupportedVersionError, match="directories"):  # v0 cannot carry the directory ids
        build_snapshot([MetadataRecord(partitions[0].message, 0)], timestamp=T0).encode()
    for record in partitions:
        record.message.directories = []
    lowered = build_snapshot([MetadataRecord(r.message, 0) for r in partitions], timestamp=T0)
    read = read_snapshot(lowered.encode())
    assert {record.version for record in read.records} == {0}
    assert [r.message for r in read.records] == [r.message for r in partitions]


def test_writer_refuses_empty_batches_and_non_metadata_messages() -> None:
    writer = MetadataLogWriter()
    with pytest.raises(EncodeError):
        writer.append([], timestamp=T0, leader_epoch=1)
    with pytest.raises(EncodeError, match="not a KRaft metadata record"):
        MetadataRecord(MESSAGES["OffsetCommitKey"](), 0).encode_value()


# --- coordinator logs: layouts worked out by hand ---------------------------------------------------

TS = "0000018bcfe56800"  # 1_700_000_000_000 as int64
OFFSET_KEY = CoordinatorRecord(1, MESSAGES["OffsetCommitKey"](group="grp", topic="tp", partition=7))
OFFSET_KEY_HEX = "0001" "0003677270" "00027470" "00000007"  # type 1 | group | topic | partition

COORDINATOR_VECTORS = [
    # (topic, key hex, value hex or None, expected record)
    pytest.param(OFFSETS_TOPIC, OFFSET_KEY_HEX,
                 "0000" "0000000000000064" "00016d" + TS,  # v0: offset | metadata | commitTimestamp
                 CoordinatorRecord(1, OFFSET_KEY.key, MESSAGES["OffsetCommitValue"](
                     offset=100, metadata="m", commit_timestamp=1_700_000_000_000), 0), id="offset-commit-v0"),
    pytest.param(OFFSETS_TOPIC, OFFSET_KEY_HEX,
                 "0001" "0000000000000064" "00016d" + TS + "0000018bcfe57b88",  # v1 adds expireTimestamp
                 CoordinatorRecord(1, OFFSET_KEY.key, MESSAGES["OffsetCommitValue"](
                     offset=100, metadata="m", commit_timestamp=1_700_000_000_000,
                     expire_timestamp=1_700_000_005_000), 1), id="offset-commit-v1"),
    pytest.param(OFFSETS_TOPIC, OFFSET_KEY_HEX,
                 "0003" "0000000000000064" "00000005" "0000" + TS,  # v3: offset | leaderEpoch | "" | ts
                 CoordinatorRecord(1, OFFSET_KEY.key, MESSAGES["OffsetCommitValue"](
                     offset=100, leader_epoch=5, metadata="", commit_timestamp=1_700_000_000_000), 3),
                 id="offset-commit-v3"),
    pytest.param(OFFSETS_TOPIC, OFFSET_KEY_HEX,
                 "0004" "0000000000000064" "00000005" "026d" + TS + "00",  # v4: compact string, tags
                 CoordinatorRecord(1, OFFSET_KEY.key, MESSAGES["OffsetCommitValue"](
                     offset=100, leader_epoch=5, metadata="m", commit_timestamp=1_700_000_000_000), 4),
                 id="offset-commit-v4"),
    pytest.param(OFFSETS_TOPIC, OFFSET_KEY_HEX, None, CoordinatorRecord(1, OFFSET_KEY.key), id="offset-tombstone"),
    pytest.param(OFFSETS_TOPIC, "0000" "0003677270" "00027470" "00000007",
                 "0000" "0000000000000064" "00016d" + TS,
                 CoordinatorRecord(0, MESSAGES["LegacyOffsetCommitKey"](group="grp", topic="tp", partition=7),
                                   MESSAGES["LegacyOffsetCommitValue"](
                                       offset=100, metadata="m", commit_timestamp=1_700_000_000_000), 0),
                 id="legacy-offset-commit"),
    pytest.param(OFFSETS_TOPIC, "0002" "0003677270",
                 "0003" "0008" + b"consumer".hex() + "00000001" "000572616e6765" "00026d31" + TS
                 + "00000001"  # one member:
                 "00026d31" "ffff" "000163" "00022f68" "0000ea60" "00002710" "000000020102" "00000000",
                 CoordinatorRecord(2, MESSAGES["GroupMetadataKey"](group="grp"), MESSAGES["GroupMetadataValue"](
                     protocol_type="consumer", generation=1, protocol="range", leader="m1",
                     current_state_timestamp=1_700_000_000_000, members=[
                         struct_of("GroupMetadataValue", "members")(
                             member_id="m1", group_instance_id=None, client_id="c", client_host="/h",
                             rebalance_timeout=60000, session_timeout=10000, subscription=b"\x01\x02",
                             assignment=b"")]), 3),
                 id="group-metadata-v3"),
    pytest.param(TRANSACTIONS_TOPIC, "0000" "000474786e31",
                 "0000" "00000000000003e8" "0002" "0000ea60" "01"  # producer id/epoch, timeout, status
                 "00000001" "000174" "00000002" "00000000" "00000001" + TS + TS,  # partitions, two times
                 CoordinatorRecord(0, MESSAGES["TransactionLogKey"](transactional_id="txn1"),
                                   MESSAGES["TransactionLogValue"](
                                       producer_id=1000, producer_epoch=2, transaction_timeout_ms=60000,
                                       transaction_status=1, transaction_partitions=[
                                           struct_of("TransactionLogValue", "transaction_partitions")(
                                               topic="t", partition_ids=[0, 1])],
                                       transaction_last_update_timestamp_ms=1_700_000_000_000,
                                       transaction_start_timestamp_ms=1_700_000_000_000), 0),
                 id="transaction-v0"),
    pytest.param(TRANSACTIONS_TOPIC, "0000" "000474786e31",
                 "0001" "00000000000003e8" "0002" "0000ea60" "01"
                 "02" "0274" "03" "00000000" "00000001" "00" + TS + TS  # compact array, element tags
                 + "02" "0008" "00000000000003e7" "0202" "0002",  # tags 0 (previous id) and 2 (client version)
                 CoordinatorRecord(0, MESSAGES["TransactionLogKey"](transactional_id="txn1"),
                                   MESSAGES["TransactionLogValue"](
                                       producer_id=1000, previous_producer_id=999, producer_epoch=2,
                                       transaction_timeout_ms=60000, transaction_status=1, transaction_partitions=[
                                           struct_of("TransactionLogValue", "transaction_partitions")(
                                               topic="t", partition_ids=[0, 1])],
                                       transaction_last_update_timestamp_ms=1_700_000_000_000,
                                       transaction_start_timestamp_ms=1_700_000_000_000,
                                       client_transaction_version=2), 1),
                 id="transaction-v1"),
    pytest.param(TRANSACTIONS_TOPIC, "0000" "000474786e31", None,
                 CoordinatorRecord(0, MESSAGES["TransactionLogKey"](transactional_id="txn1")),
                 id="transaction-tombstone"),
]


@pytest.mark.parametrize(("topic", "key_hex", "value_hex", "expected"), COORDINATOR_VECTORS)
def test_coordinator_record_layouts(topic: str, key_hex: str, value_hex: str | None, expected) -> None:
    key = bytes.fromhex(key_hex)
    value = None if value_hex is None else bytes.fromhex(value_hex)
    decoded = decode_coordinator_record(topic, key, value)
    assert decoded == expected
    assert decoded.is_tombstone == (value is None)
    assert (expected.encode_key(), expected.encode_value()) == (key, value)


def test_unknown_coordinator_types_and_versions_are_kept_raw() -> None:
    key = bytes.fromhex("0018" "0003677270")  # type 24: none of Kafka's group records (yet)
    raw = decode_coordinator_record(OFFSETS_TOPIC, key, b"\x00\x00\x01")
    assert raw == RawCoordinatorRecord(24, key, b"\x00\x00\x01")
    assert raw.reason == "unknown __consumer_offsets record type 24"
    assert (raw.encode_key(), raw.encode_value()) == (key, b"\x00\x00\x01")
    newer = bytes.fromhex("0007" "0000000000000064")  # OffsetCommitValue v7 does not exist (yet)
    raw = decode_coordinator_record(OFFSETS_TOPIC, bytes.fromhex(OFFSET_KEY_HEX), newer)
    assert isinstance(raw, RawCoordinatorRecord) and "no version 7" in raw.reason and raw.value == newer
    for value in (b"\x00\x00\x01", newer):
        with pytest.raises(DecodeError):
            decode_coordinator_record(OFFSETS_TOPIC, key if value != newer else bytes.fromhex(OFFSET_KEY_HEX),
                                      value, strict=True)


@pytest.mark.parametrize(("key", "value", "reason"), [
    (None, None, "null key"),
    (b"\x00", None, "no int16 prefix"),
    (bytes.fromhex(OFFSET_KEY_HEX)[:-1], None, "key.OffsetCommitKey"),
    (bytes.fromhex(OFFSET_KEY_HEX) + b"\x00", None, "1 bytes left"),
    (bytes.fromhex(OFFSET_KEY_HEX), b"\x00", "no int16 prefix"),
    (bytes.fromhex(OFFSET_KEY_HEX), bytes.fromhex("0003" "00"), "value.OffsetCommitValue"),
])
def test_broken_coordinator_records_are_decode_errors(key, value, reason: str) -> None:
    with pytest.raises(DecodeError, match=reason):
        decode_coordinator_record(OFFSETS_TOPIC, key, value)


def test_offsets_log_with_transactional_commits_reads_back_equal(tmp_path: Path) -> None:
    records = [param.values[3] for param in COORDINATOR_VECTORS if param.values[0] == OFFSETS_TOPIC]
    writer = CoordinatorLogWriter(base_offset=42)
    writer.append(records[:3], timestamp=T0, leader_epoch=2)
    writer.append(records[3:], timestamp=T0 + 1, leader_epoch=2, codec=Codec.LZ4)
    writer.append([OFFSET_KEY], timestamp=T0 + 2, producer_id=77, producer_epoch=1, base_sequence=0,
                  is_transactional=True)
    writer.append([ControlRecord.of(EndTransactionMarker(True, 5))], timestamp=T0 + 3, producer_id=77,
                  producer_epoch=1, is_transactional=True, is_control=True)
    partition = tmp_path / "__consumer_offsets-0"
    partition.mkdir()
    path = writer.write_segment(partition)
    read = list(read_coordinator_log(path, OFFSETS_TOPIC))
    assert read == writer.batches
    marker = read[-1].entries[0].record
    assert marker.type == ControlRecordType.COMMIT and marker.message.coordinator_epoch == 5
    assert [entry.offset for batch in read for entry in batch.entries] == list(range(42, 42 + len(records) + 2))


def test_transaction_log_with_every_value_version_reads_back_equal() -> None:
    key = MESSAGES["TransactionLogKey"](transactional_id="app-1")
    cls = MESSAGES["TransactionLogValue"]
    records = [CoordinatorRecord(0, key, case_instance(cls, version, SEED, i), version)
               for version in range(cls.VALID_VERSIONS[0], cls.VALID_VERSIONS[1] + 1) for i in range(4)]
    records.append(CoordinatorRecord(0, key))
    writer = CoordinatorLogWriter()
    writer.append(records, timestamp=T0)
    assert list(read_coordinator_log(writer.encode(), TRANSACTIONS_TOPIC)) == writer.batches


def test_every_coordinator_value_version_reads_back_equal() -> None:
    keys = {0: MESSAGES["LegacyOffsetCommitKey"](group="g", topic="t", partition=1),
            1: MESSAGES["OffsetCommitKey"](group="g", topic="t", partition=1),
            2: MESSAGES["GroupMetadataKey"](group="g")}
    values = {0: MESSAGES["LegacyOffsetCommitValue"], 1: MESSAGES["OffsetCommitValue"],
              2: MESSAGES["GroupMetadataValue"]}
    records = [CoordinatorRecord(kind, keys[kind], case_instance(cls, version, SEED, i), version)
               for kind, cls in values.items()
               for version in range(cls.VALID_VERSIONS[0], cls.VALID_VERSIONS[1] + 1) for i in range(3)]
    writer = CoordinatorLogWriter()
    writer.append(records, timestamp=T0)
    read = list(read_coordinator_log(writer.encode(), OFFSETS_TOPIC))
    assert [entry.record for entry in read[0].entries] == records


def test_garbage_coordinator_records_raise_only_kwire_errors() -> None:
    import random

    from kwire.wire.errors import KwireError

    rng = random.Random(11)
    for _ in range(3000):
        topic = rng.choice((OFFSETS_TOPIC, TRANSACTIONS_TOPIC))
        key = bytes([0, rng.randrange(4)]) + rng.randbytes(rng.randrange(30))
        value = None if rng.random() < 0.1 else bytes([0, rng.randrange(6)]) + rng.randbytes(rng.randrange(60))
        try:
            decoded = decode_coordinator_record(topic, key, value)
        except KwireError:
            continue
        assert decode_coordinator_record(topic, decoded.encode_key(), decoded.encode_value()) == decoded
