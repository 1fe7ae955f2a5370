"""``kwire dump`` on records of a type kwire does not know: one readable line, and in ``--json`` the
names README.md's dump section gives them (``type`` ``UNKNOWN``, ``unknown`` the reason, the bytes in hex).

The records' bytes are laid out by hand from Kafka's framing, and the batches built by kafka-python's
``DefaultRecordBatchBuilder`` (not kwire):

- a metadata record value is Kafka's ``AbstractApiMessageSerde`` frame: frame version 1, the apiKey
  and the version as unsigned varints, then the message (``MetadataRecordSerde``);
- a coordinator record key starts with its record type as an int16 (``CoordinatorRecordSerde``: the
  key's version is the type), a value with its version as an int16.

Kills ``kwire.logs.dump.x__metadata_fields__mutmut_13`` (``UNKNOWN`` -> ``unknown``) and
``x__coordinator_fields__mutmut_6``, ``_7`` (the ``unknown`` and ``keyHex`` names: the text printer
reads them, so the mutants crash it)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kwire.cli.main import main
from tests.optional import need_module

T0 = 1_700_000_000_000  # 2023-11-14T22:13:20.000Z
T0_TEXT = "2023-11-14T22:13:20.000Z"
SEGMENT = "00000000000000000000.log"


def kafka_python_segment(partition: Path, key: bytes | None, value: bytes) -> Path:
    records = need_module("kafka.record.default_records")
    builder = records.DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=0, producer_id=-1,
                                                producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
    builder.append(0, timestamp=T0, key=key, value=value, headers=[])
    partition.mkdir()
    segment = partition / SEGMENT
    segment.write_bytes(bytes(builder.build()))
    return segment


def dump(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["dump", *args])
    out, err = capsys.readouterr()
    assert err == ""
    return code, out.splitlines()


def test_an_unknown_metadata_record_type_is_named_unknown(tmp_path: Path, capsys) -> None:
    frame = bytes([1, 99, 3])  # frame version 1, apiKey 99 (no such MetadataRecordType), version 3
    segment = kafka_python_segment(tmp_path / "__cluster_metadata-0", None, frame + b"\x01\x02\x03")
    code, out = dump(capsys, str(segment))
    assert code == 0
    assert f"| offset: 0 time: {T0_TEXT} UNKNOWN metadata record apiKey 99 v3: unknown metadata record type 99; " \
           "body: 0x010203 (3 bytes)" in out
    code, out = dump(capsys, "--json", str(segment))
    [record] = [event for event in map(json.loads, out) if event["event"] == "record"]
    assert {key: record[key] for key in ("type", "apiKey", "version", "unknown", "bodyHex")} == {
        "type": "UNKNOWN", "apiKey": 99, "version": 3, "unknown": "unknown metadata record type 99",
        "bodyHex": "010203"}


def test_an_unknown_coordinator_record_type_keeps_its_bytes(tmp_path: Path, capsys) -> None:
    key = b"\x00\x63" + b"grp"  # record type 99 (none in __consumer_offsets), then the key's body
    value = b"\x00\x00\xff"  # value version 0, then its body
    segment = kafka_python_segment(tmp_path / "__consumer_offsets-0", key, value)
    code, out = dump(capsys, str(segment))
    assert code == 0
    assert (f"| offset: 0 time: {T0_TEXT} UNKNOWN record type 99: unknown __consumer_offsets record type 99; "
            "key: 0x0063677270 (5 bytes) value: 0x0000ff (3 bytes)") in out
    code, out = dump(capsys, "--json", str(segment))
    [record] = [event for event in map(json.loads, out) if event["event"] == "record"]
    assert {name: record[name] for name in ("recordType", "unknown", "keyHex", "valueHex")} == {
        "recordType": 99, "unknown": "unknown __consumer_offsets record type 99",
        "keyHex": key.hex(), "valueHex": value.hex()}
