"""Control records: transaction markers (checked with kafka-python's and aiokafka's parsers) and
the KRaft control types of real Kafka logs."""
from __future__ import annotations

import struct

import pytest

from kwire.generated import MESSAGES
from kwire.records import (
    ControlKey,
    ControlRecordType,
    EndTransactionMarker,
    FileBatchReader,
    RecordBatchBuilder,
    build_end_transaction_batch,
    control_records,
    decode_batch,
    decode_control_key,
    decode_control_value,
    decode_end_transaction_marker,
    encode_control_key,
    encode_end_transaction_marker,
)
from kwire.wire.errors import CorruptRecordError, DecodeError, KwireError
from tests.optional import later
from tests.packages import KpBatch, aiokafka_c
from tests.paths import KRAFT_361

control_record = later("aiokafka.record.control_record")  # its ABORT_MARKER and COMMIT_MARKER
AioControlRecord = later("aiokafka.record.control_record", "ControlRecord")

KRAFT_36 = KRAFT_361


@pytest.mark.parametrize("committed", [True, False], ids=["commit", "abort"])
def test_end_transaction_batch_reads_as_a_marker_elsewhere(committed):
    wire = build_end_transaction_batch(
        committed=committed, producer_id=31, producer_epoch=2, coordinator_epoch=9, timestamp=1234, base_offset=50
    )
    theirs = KpBatch(wire)
    assert theirs.is_control_batch and theirs.is_transactional
    (marker,) = list(theirs)
    assert (marker.version, marker.commit, marker.abort) == (0, committed, not committed)
    assert marker.offset == 50
    aio = aiokafka_c.DefaultRecordBatch(wire)
    assert aio.is_control_batch
    (aio_record,) = list(aio)
    marker = control_record.COMMIT_MARKER if committed else control_record.ABORT_MARKER
    assert AioControlRecord.parse(aio_record.key) == marker
    assert struct.unpack(">hi", aio_record.value) == (0, 9)

    ours = decode_batch(wire)
    assert ours.is_control and ours.is_transactional
    assert (ours.producer_id, ours.producer_epoch) == (31, 2)
    assert control_records(ours) == [
        (ControlKey(0, ControlRecordType.COMMIT if committed else ControlRecordType.ABORT),
         EndTransactionMarker(committed, 9, 0))
    ]


def test_control_key_layout():
    assert encode_control_key(ControlRecordType.COMMIT) == b"\x00\x00\x00\x01"
    assert decode_control_key(b"\x00\x00\x00\x06") == ControlKey(0, ControlRecordType.KRAFT_VOTERS)
    # a newer key version is read as version 0, an unknown type keeps its number
    assert decode_control_key(b"\x00\x03\x00\x63") == ControlKey(3, 99)
    for bad in (None, b"\x00\x00\x01", b"\xff\xff\x00\x00"):
        with pytest.raises(CorruptRecordError):
            decode_control_key(bad)


def test_end_transaction_marker_value():
    assert encode_end_transaction_marker(70000) == b"\x00\x00\x00\x01\x11\x70"
    assert decode_end_transaction_marker(ControlRecordType.ABORT, b"\x00\x00\x00\x01\x11\x70") == (
        EndTransactionMarker(False, 70000, 0)
    )
    # Kafka reads newer versions as version 0 and ignores what follows
    assert decode_end_transaction_marker(1, b"\x00\x01\x00\x00\x00\x05extra") == EndTransactionMarker(True, 5, 1)
    for bad in (None, b"\x00\x00\x00\x00\x00", b"\x80\x00\x00\x00\x00\x00"):
        with pytest.raises(CorruptRecordError):
            decode_end_transaction_marker(ControlRecordType.COMMIT, bad)
    with pytest.raises(DecodeError, match="^control record type 3 is not an end-transaction marker$"):
        decode_end_transaction_marker(ControlRecordType.SNAPSHOT_HEADER, b"\x00" * 6)


def test_unknown_control_type_and_non_control_batch():
    with pytest.raises(DecodeError, match="unknown control record type 42"):
        decode_control_value(42, b"")
    builder = RecordBatchBuilder()
    builder.append(0, b"k", b"v")
    with pytest.raises(DecodeError, match="not a control batch"):
        control_records(decode_batch(builder.build()))


def test_kraft_control_types_need_the_generated_classes():
    # kwire.records sits below the generated package, so the classes come from the caller.
    leader_change = MESSAGES["LeaderChangeMessage"](leader_id=1).encode(0)
    with pytest.raises(KwireError, match="LeaderChangeMessage control record needs its generated class"):
        decode_control_value(ControlRecordType.LEADER_CHANGE, leader_change)
    assert decode_control_value(ControlRecordType.LEADER_CHANGE, leader_change, MESSAGES).leader_id == 1


def kraft_control_records():
    log = KRAFT_36 / "__cluster_metadata-0"
    for path in (log / "00000000000000000000.log", log / "00000000000000007111-0000000001.checkpoint"):
        for batch in FileBatchReader(path):
            if batch.is_control:
                yield from batch.records


def test_kraft_control_keys_are_version_0_of_known_types():
    keys = [decode_control_key(r.key) for r in kraft_control_records()]
    assert {k.version for k in keys} == {0}
    assert sorted(k.type for k in keys) == [ControlRecordType.LEADER_CHANGE] * 5 + [
        ControlRecordType.SNAPSHOT_HEADER,
        ControlRecordType.SNAPSHOT_FOOTER,
    ]


def test_kraft_control_values_decode_into_generated_classes():
    decoded = {}
    for record in kraft_control_records():
        key = decode_control_key(record.key)
        decoded.setdefault(key.type, []).append(decode_control_value(key.type, record.value, MESSAGES))
    assert {t: type(v[0]).__name__ for t, v in decoded.items()} == {
        ControlRecordType.LEADER_CHANGE: "LeaderChangeMessage",
        ControlRecordType.SNAPSHOT_HEADER: "SnapshotHeaderRecord",
        ControlRecordType.SNAPSHOT_FOOTER: "SnapshotFooterRecord",
    }
    # single-node cluster: node 1 leads every epoch
    assert all(m.leader_id == 1 and m.version == 0 for m in decoded[ControlRecordType.LEADER_CHANGE])
    assert decoded[ControlRecordType.SNAPSHOT_HEADER][0].last_contained_log_timestamp > 1_754_000_000_000


@pytest.mark.parametrize(
    "record_type, value, expected",
    [
        # KRaftVersionRecord v0: Version int16 0, KRaftVersion int16 1, no tags
        (ControlRecordType.KRAFT_VERSION, b"\x00\x00\x00\x01\x00", {"version": 0, "kraft_version": 1}),
        # VotersRecord v0: Version int16 0, Voters compact array (length + 1 = 1: empty), no tags
        (ControlRecordType.KRAFT_VOTERS, b"\x00\x00\x01\x00", {"version": 0, "voters": []}),
        # SnapshotFooterRecord v0: Version int16 0, no tags
        (ControlRecordType.SNAPSHOT_FOOTER, b"\x00\x00\x00", {"version": 0}),
    ],
    ids=["kraft-version", "voters", "snapshot-footer"],
)
def test_hand_written_kraft_control_values(record_type, value, expected):
    message = decode_control_value(record_type, value, MESSAGES)
    assert {name: getattr(message, name) for name in expected} == expected
    with pytest.raises(DecodeError, match=r"^1 bytes left after \w+Record v0") as raised:
        decode_control_value(record_type, value + b"\x00", MESSAGES)  # trailing bytes are an error
    assert raised.value.offset == len(value)  # where the extra byte is
