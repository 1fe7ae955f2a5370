"""``kwire dump``'s control records carry the version Kafka wrote, read by kafka-python.

A snapshot a real Kafka node wrote (tests/data/kraft-renoagilsaputra-kafka) starts and ends with
control records (SnapshotHeader, type 3; SnapshotFooter, type 4) whose value opens with its int16
version; kafka-python's batch reader (not kwire's) gives the key and value bytes. Kills
``kwire.logs.dump.x__control_fields__mutmut_27`` (the version left out of the event)."""
from __future__ import annotations

import struct

from kwire.logs.dump import dump_file
from tests.optional import need_module
from tests.paths import REPO

SNAPSHOT = (REPO / "tests" / "data" / "kraft-renoagilsaputra-kafka" / "__cluster_metadata-0"
            / "00000000000000007111-0000000001.checkpoint")


def kafka_python_control_records(data: bytes) -> dict[int, tuple[int, int]]:
    """offset -> (control type, value version), as kafka-python reads the file's control batches."""
    records = need_module("kafka.record.default_records")
    found, pos = {}, 0
    while pos < len(data):
        _base, length = struct.unpack_from(">qi", data, pos)
        batch = records.DefaultRecordBatch(data[pos:pos + 12 + length])
        if batch.is_control_batch:
            for record in batch:
                _key_version, control_type = struct.unpack(">hh", record.key)
                found[record.offset] = (control_type, struct.unpack(">h", record.value[:2])[0])
        pos += 12 + length
    return found


def test_control_records_carry_the_type_and_version_kafka_wrote() -> None:
    expected = kafka_python_control_records(SNAPSHOT.read_bytes())
    assert sorted(t for t, _v in expected.values()) == [3, 4]
    names = {3: "SNAPSHOT_HEADER", 4: "SNAPSHOT_FOOTER"}
    controls = {e["offset"]: (e["control"], e["version"]) for e in dump_file(SNAPSHOT) if e.get("control")}
    assert controls == {offset: (names[t], v) for offset, (t, v) in expected.items()}
