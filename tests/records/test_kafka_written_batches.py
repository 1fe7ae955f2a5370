"""Record batches written by Kafka's own MemoryRecordsBuilder, delete horizon included.

tests/data/kafka-json/record-batches.json holds three magic 2 batches Kafka's builder wrote (one
with a delete horizon, one with a delete horizon and the transactional bit, one with neither) and
what Kafka's DefaultRecordBatch reads from them. kwire must read the same facts from those bytes
and, given the same records, write the same bytes.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from kwire.records.batch import decode_batch
from kwire.records.builder import RecordBatchBuilder
from tests.paths import KAFKA_JSON

BATCHES = json.loads((KAFKA_JSON / "record-batches.json").read_text(encoding="utf-8"))
NO_TIMESTAMP = -1


def by_name(name: str) -> dict[str, Any]:
    return next(batch for batch in BATCHES if batch["name"] == name)


def text(value: str | None) -> bytes | None:
    return None if value is None else value.encode()


@pytest.mark.parametrize("written", BATCHES, ids=lambda batch: batch["name"])
def test_kwire_reads_what_kafka_reads(written: dict[str, Any]) -> None:
    kafka = written["kafka_reads"]
    batch = decode_batch(bytes.fromhex(written["hex"]))
    assert batch.attributes == kafka["attributes"]
    assert batch.crc == kafka["checksum"]
    assert batch.delete_horizon_ms == kafka["deleteHorizonMs"]
    assert batch.has_delete_horizon == (kafka["deleteHorizonMs"] is not None)
    assert batch.base_timestamp == kafka["baseTimestamp"]
    assert batch.max_timestamp == kafka["maxTimestamp"]
    assert batch.is_transactional == kafka["isTransactional"]
    assert [(r.offset, r.timestamp) for r in batch.records] == [
        (r["offset"], r["timestamp"]) for r in kafka["records"]
    ]
    assert [(r.key, r.value) for r in batch.records] == [
        (text(r["key"]), text(r["value"])) for r in written["appended"]
    ]


@pytest.mark.parametrize("written", BATCHES, ids=lambda batch: batch["name"])
def test_kwire_writes_kafkas_bytes(written: dict[str, Any]) -> None:
    kafka = written["kafka_reads"]
    horizon = written["builder_delete_horizon_ms"]
    builder = RecordBatchBuilder(
        base_offset=100,
        partition_leader_epoch=5,
        producer_id=4242,
        producer_epoch=3,
        base_sequence=7,
        is_transactional=kafka["isTransactional"],
        delete_horizon_ms=None if horizon == NO_TIMESTAMP else horizon,
    )
    for i, record in enumerate(written["appended"]):
        headers = [("h", b"v")] if record["headers"] == "h=v" else []
        builder.append(record["timestamp"], text(record["key"]), text(record["value"]), headers)
        assert (record["headers"] == "h=v") == (i == 0)
    assert builder.build().hex() == written["hex"]


def test_the_delete_horizon_is_attribute_bit_6_in_kafkas_bytes() -> None:
    with_horizon = by_name("delete-horizon")["kafka_reads"]
    without = by_name("no-delete-horizon")["kafka_reads"]
    assert with_horizon["attributes"] == 0x40 and without["attributes"] == 0
    assert with_horizon["deleteHorizonMs"] == with_horizon["baseTimestamp"] == 1_700_086_400_000
