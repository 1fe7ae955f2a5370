"""kwire's JSON form (to_dict / from_dict) against the JSON Kafka's own generated converters wrote.

Every case in tests/data/kafka-json/messages.json was produced by Kafka's classes (its README says
which): the bytes by Kafka's writer, the JSON by ``<Name>DataJsonConverter.write`` on what Kafka's
reader made of those bytes. Kafka writes a ``records`` field as ``""`` (and reads base64 bytes);
kwire writes the bytes, so records are compared by their size and by what Kafka read.
"""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

import kwire.generated as generated
from tests.kafka_json import records_as_kafka_writes_them
from tests.paths import KAFKA_JSON

CASES = json.loads((KAFKA_JSON / "messages.json").read_text(encoding="utf-8"))


def case_id(case: dict[str, Any]) -> str:
    why = re.sub(r"[^A-Za-z0-9]+", "_", case["why"].split(";")[0]).strip("_")
    return f"{case['message']}-v{case['version']}-{why}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_to_dict_of_kafka_bytes_is_kafkas_json(case: dict[str, Any]) -> None:
    cls = getattr(generated, case["message"])
    version = case["version"]
    mine = json.loads(json.dumps(cls.decode(bytes.fromhex(case["hex"]), version).to_dict(version)))
    if "kafka_json_records_as_size" in case:
        mine = records_as_kafka_writes_them(mine, json.loads(case["kafka_json_records_as_size"]))
    assert mine == json.loads(case["kafka_json"])


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_from_dict_of_kafkas_json_is_kafkas_bytes(case: dict[str, Any]) -> None:
    cls = getattr(generated, case["message"])
    version = case["version"]
    # What Kafka's converter read (records as base64), else what it wrote (no records there).
    document = case.get("kafka_read_from") or json.loads(case["kafka_json"])
    assert cls.from_dict(document, version).encode(version).hex() == case["hex"]
    if "kafka_json_records_as_size" not in case:
        assert cls.from_dict(json.loads(case["kafka_json"]), version).encode(version).hex() == case["hex"]


def test_the_cases_cover_every_field_type_the_issue_names() -> None:
    text = json.dumps(CASES)
    whys = " ".join(case["why"] for case in CASES)
    for needed in ("records", "uuid", "nullable struct", "tagged", "float64", "bytes", "beyond 2^53", "NaN"):
        assert needed in whys, needed
    assert '"-_8AESIzRFVmd4iZqrvM_g"' in text  # a uuid whose Kafka form has both url-safe characters
