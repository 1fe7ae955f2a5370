"""``read_table``'s options and decoded columns that the arrow part's mutation sample left alive
(tests/README.md): ``decodeRecords`` takes the three values README.md lists, ``package`` is the
package ``recordType`` is looked up in, and a metadata record kwire has no class for keeps its body
in ``record_json`` under the names README.md gives.

The metadata records are laid out by hand from Kafka's framing (``AbstractApiMessageSerde``: frame
version 1, the apiKey and the version as unsigned varints, then the message) and Kafka 4.2.1's
FeatureLevelRecord.json (apiKey 12, validVersions "0": "the version of that record cannot advance
beyond 0"), and batched by kafka-python's ``DefaultRecordBatchBuilder``."""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.arrow is made of it: without it this module skips (fails under CI)

import base64
import json
import struct
from pathlib import Path

import pytest

from kwire.arrow.reader import read_table
from kwire.cli.main import main as kwire_main
from kwire.wire.errors import KwireError
from tests.conftest import kafka_python_definitions
from tests.packages import KpBuilder
from tests.paths import KAFKA_421_DEFINITIONS, KRAFT_361

T0 = 1_700_000_000_000
DECODED = {"record_type", "record_version", "record_json"}


@pytest.mark.parametrize(("given", "decoded"), [
    ("auto", True), ("true", True), ("false", False), ("FALSE", False), (False, False), (True, True)])
def test_decode_records_takes_auto_true_and_false(given, decoded) -> None:
    """README.md: ``decodeRecords`` (``auto``/``true``/``false``), as text in any case or a bool; a
    KRaft snapshot (Kafka 3.6.1's bootstrap.checkpoint) is decoded unless it is ``false``. Kills
    ``kwire.arrow.options.xǁScanOptionsǁparse__mutmut_29`` (``false`` refused)."""
    table = read_table(str(KRAFT_361 / "bootstrap.checkpoint"), decodeRecords=given)
    assert (DECODED <= set(table.column_names)) is decoded
    assert table.num_rows > 0


@pytest.mark.parametrize("given", ["no", "falsey", ""])
def test_decode_records_refuses_any_other_value(given) -> None:
    with pytest.raises(KwireError, match=f"decodeRecords must be true, false or auto, not {given.lower()!r}"):
        read_table(str(KRAFT_361 / "bootstrap.checkpoint"), decodeRecords=given)


def test_record_type_is_looked_up_in_the_package_given(kp_generated) -> None:
    """A package generated from kafka-python's definitions (client messages only: no
    FeatureLevelRecord.json among them) has no FeatureLevelRecord, so ``recordType`` refuses it there,
    while kwire's own package, named or by default, gives the column. Kills
    ``kwire.arrow.pieces.xǁReadOptionsǁtyped__mutmut_7`` (``package`` not passed on: kwire's own
    package always)."""
    assert not (kafka_python_definitions() / "FeatureLevelRecord.json").exists()
    checkpoint = str(KRAFT_361 / "bootstrap.checkpoint")
    refused = f"recordType 'FeatureLevelRecord' is not a message of {kp_generated.__name__}$"
    with pytest.raises(KwireError, match=refused):
        read_table(checkpoint, recordType="FeatureLevelRecord", package=kp_generated.__name__)
    named = read_table(checkpoint, recordType="FeatureLevelRecord", package="kwire.generated")
    assert named.equals(read_table(checkpoint, recordType="FeatureLevelRecord"))
    assert [row["record"]["name"] for row in named.to_pylist()] == ["metadata.version"]


def uvarint(n: int) -> bytes:
    out = b""
    while n >= 0x80:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n])


def compact_string(text: str) -> bytes:
    return uvarint(len(text) + 1) + text.encode()


FEATURE_LEVEL_BODY = compact_string("metadata.version") + struct.pack(">h", 7) + uvarint(0)  # no tagged field


def test_a_metadata_record_kwire_has_no_class_for_keeps_its_body(tmp_path: Path, capsys) -> None:
    """FeatureLevelRecord at version 0 decodes; at version 1, one past its valid versions, and under
    an apiKey no metadata record has (99), the record's JSON keeps the body, base64 as Kafka's JSON
    form writes bytes: ``{"apiKey", "body", "unknown"}`` (README.md), the reason as ``kwire dump``
    gives it. Kills ``kwire.arrow.decoders.x_metadata_decoder__mutmut_18`` (``body`` -> ``BODY``)."""
    definition = (KAFKA_421_DEFINITIONS / "metadata" / "FeatureLevelRecord.json").read_text()
    assert '"apiKey": 12' in definition and '"validVersions": "0"' in definition
    values = [bytes([1, 12, 0]) + FEATURE_LEVEL_BODY, bytes([1, 12, 1]) + FEATURE_LEVEL_BODY,
              bytes([1, 99, 0]) + b"\x01\x02\x03"]
    builder = KpBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    for offset, value in enumerate(values):
        builder.append(offset, T0, None, value, [])
    segment = tmp_path / "__cluster_metadata-0" / "00000000000000000000.log"
    segment.parent.mkdir()
    segment.write_bytes(bytes(builder.build()))
    rows = read_table(str(tmp_path)).to_pylist()
    assert [json.loads(row["record_json"]) for row in rows] == [
        {"name": "metadata.version", "featureLevel": 7},
        {"apiKey": 12, "body": base64.b64encode(FEATURE_LEVEL_BODY).decode(),
         "unknown": "FeatureLevelRecord has no version 1 (valid: 0..0)"},
        {"apiKey": 99, "body": base64.b64encode(b"\x01\x02\x03").decode(),
         "unknown": "unknown metadata record type 99"},
    ]
    assert kwire_main(["dump", "--json", str(segment)]) == 0
    dumped = [event for event in map(json.loads, capsys.readouterr().out.splitlines()) if event["event"] == "record"]
    assert [(event.get("unknown"), event.get("bodyHex")) for event in dumped] == [
        (None, None), ("FeatureLevelRecord has no version 1 (valid: 0..0)", FEATURE_LEVEL_BODY.hex()),
        ("unknown metadata record type 99", "010203")]
