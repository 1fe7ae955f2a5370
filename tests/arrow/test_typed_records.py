"""The typed ``record`` column (``recordType``) of ``read_table``, without Spark: a coordinator
record type as ``struct<key, value>``, values of every version in the union layout, and structs
nested in arrays keeping their tagged-field section as Kafka's flexible versions give every struct
one. The records are laid out by hand from Kafka's definitions (OffsetCommitKey/Value,
TransactionLogKey/Value: tests/data/kafka-definitions) and batched by kafka-python's builder.

Kills ``kwire.arrow.typed.x__key_class_of__mutmut_6``, ``x__coordinator_value__mutmut_10`` (the key
read at version 1, which a coordinator key does not have), ``kwire.arrow.schemas.x__value_converter__mutmut_10``
(an array's element type lost) and ``x__field_type__mutmut_7`` (an array's structs without their
tagged fields); tests/arrow reached none of them before (only the Spark tests did)."""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.arrow is made of it: without it this module skips (fails under CI)

import struct
from pathlib import Path

from kwire.arrow.reader import read_table

T0 = 1_700_000_000_000
SEGMENT = "00000000000000000000.log"


def kafka_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">h", len(data)) + data


def write_log(partition: Path, records: list[tuple[bytes, bytes | None]]) -> None:
    builder = need_module("kafka.record.default_records").DefaultRecordBatchBuilder(
        2, 0, False, -1, -1, -1, 1 << 20)
    for offset, (key, value) in enumerate(records):
        builder.append(offset, T0, key, value, [])
    partition.mkdir()
    (partition / SEGMENT).write_bytes(bytes(builder.build()))


def test_offset_commits_of_two_versions_and_a_tombstone(tmp_path: Path) -> None:
    key = struct.pack(">h", 1) + kafka_string("grp") + kafka_string("orders") + struct.pack(">i", 3)  # type 1
    value_v1 = struct.pack(">hq", 1, 41) + kafka_string("") + struct.pack(">qq", T0 - 1, T0 + 1)
    value_v3 = struct.pack(">hqi", 3, 42, 7) + kafka_string("meta") + struct.pack(">q", T0)
    write_log(tmp_path / "__consumer_offsets-0", [(key, value_v1), (key, value_v3), (key, None)])
    rows = read_table(str(tmp_path), recordType="OffsetCommitValue").to_pylist()
    commit_key = {"group": "grp", "topic": "orders", "partition": 3}
    union = {"offset": None, "leader_epoch": None, "metadata": None, "commit_timestamp": None,
             "expire_timestamp": None, "topic_id": None, "unknown_tagged_fields": []}  # v4 is flexible
    assert [row["record"] for row in rows] == [
        {"key": commit_key, "value": {**union, "offset": 41, "metadata": "", "commit_timestamp": T0 - 1,
                                      "expire_timestamp": T0 + 1}},
        {"key": commit_key, "value": {**union, "offset": 42, "leader_epoch": 7, "metadata": "meta",
                                      "commit_timestamp": T0}},
        {"key": commit_key, "value": None},
    ]


def test_a_transaction_state_keeps_the_tagged_section_of_the_structs_in_its_array(tmp_path: Path) -> None:
    key = struct.pack(">h", 0) + kafka_string("tx-1")  # type 0: TransactionLogKey
    value_v0 = (struct.pack(">hqhib", 0, 1000, 2, 60000, 1) + struct.pack(">i", 1) + kafka_string("orders")
                + struct.pack(">ii", 1, 3) + struct.pack(">qq", T0 + 5, T0))
    write_log(tmp_path / "__transaction_state-0", [(key, value_v0)])
    [row] = read_table(str(tmp_path), recordType="TransactionLogValue").to_pylist()
    assert row["record"] == {"key": {"transactional_id": "tx-1"}, "value": {
        "producer_id": 1000, "previous_producer_id": None, "next_producer_id": None, "producer_epoch": 2,
        "next_producer_epoch": None, "transaction_timeout_ms": 60000, "transaction_status": 1,
        "transaction_partitions": [{"topic": "orders", "partition_ids": [3], "unknown_tagged_fields": []}],
        "transaction_last_update_timestamp_ms": T0 + 5, "transaction_start_timestamp_ms": T0,
        "client_transaction_version": None, "unknown_tagged_fields": []}}
