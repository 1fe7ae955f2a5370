"""The versions Kafka 4.0 removed, which kwire restores (issue 26), against Kafka 3.8.0's own code.

tests/data/kafka-vectors/3.8.0/vectors.json was written by Kafka 3.8.0's generated message classes
(its README says how): each vector is a message in Kafka's JSON form, the bytes Kafka's writer made
of it at that version, and the JSON Kafka's converter wrote back from those bytes. kwire must make
the same bytes from the same JSON and read the same JSON back from the bytes.

Which pairs must have vectors is read from kwire itself: every version a kwire message has below
the oldest its Kafka 4.2.1 definition has (all of them where 4.2.1 has "none"), so a version
restored later is checked the day it lands. Vectors of pairs kwire does not have yet wait for the
restoration issue 26 names, and only those may wait.

The same bytes are then read with kafka-python 3's hand-written codecs of the old versions, where
it has them.
"""
from __future__ import annotations

import base64
import importlib
import io
import json
import pkgutil
import re
import sys
from collections import defaultdict
from typing import Any

import pytest

import kwire.generated as generated
from kwire.cli.main import main
from kwire.generator.definitions import jsonc
from tests.kafka_json import records_as_kafka_writes_them
from tests.optional import need_module
from tests.paths import KAFKA_421_DEFINITIONS, KAFKA_VECTORS

VECTORS: list[dict[str, Any]] = json.loads((KAFKA_VECTORS / "3.8.0" / "vectors.json").read_text(encoding="utf-8"))
KAFKA_380 = "Kafka 3.8.0 generated message classes, commit 771b9576b00ecf5b64ab6e8bedf04156fbdb5cd6"

BY_PAIR: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
for _vector in VECTORS:
    BY_PAIR[(_vector["message"], _vector["version"])].append(_vector)

# Issue 26's list of removed versions still to be restored (branch restore-rest): vectors of these
# may be ahead of kwire, no others.
_PENDING_V0 = ("AlterReplicaLogDirs", "CreateAcls", "DeleteAcls", "DeleteTopics", "DescribeAcls",
               "DescribeConfigs", "DescribeLogDirs", "ListOffsets", "OffsetFetch",
               "RenewDelegationToken", "WriteTxnMarkers")
ISSUE_26_PENDING = (
    {(f"{api}{side}", 0) for api in _PENDING_V0 for side in ("Request", "Response")}
    | {(f"{api}{side}", v) for api in ("CreateTopics", "OffsetCommit", "OffsetForLeaderEpoch")
       for side in ("Request", "Response") for v in (0, 1)}
    | {("RequestHeader", 0)}
)


def kwire_has(name: str, version: int) -> bool:
    cls = generated.MESSAGES.get(name)
    return cls is not None and cls.VALID_VERSIONS[0] <= version <= cls.VALID_VERSIONS[1]


def restored_pairs() -> set[tuple[str, int]]:
    """Every (message, version) kwire has that Kafka 4.2.1 no longer speaks."""
    oldest = {}
    for path in KAFKA_421_DEFINITIONS.rglob("*.json"):
        valid = jsonc.loads(path.read_text(encoding="utf-8"))["validVersions"]
        oldest[path.stem] = None if valid == "none" else int(valid.split("-")[0].rstrip("+"))
    pairs = set()
    for name, cls in generated.MESSAGES.items():
        if name not in oldest:
            continue  # not a Kafka 4.2.1 message name: nothing there was removed
        low, high = cls.VALID_VERSIONS
        below = high + 1 if oldest[name] is None else oldest[name]
        pairs |= {(name, version) for version in range(low, min(below, high + 1))}
    return pairs


CHECKED = sorted(pair for pair in BY_PAIR if kwire_has(*pair))


# --- the vectors themselves ---------------------------------------------------------------------

def test_every_restored_pair_has_kafka_vectors() -> None:
    restored = restored_pairs()
    # Produce v0-2, Fetch v0-3 and the ZooKeeper-era APIs at least, whatever else has landed
    assert {("ProduceRequest", 0), ("FetchResponse", 3), ("LeaderAndIsrRequest", 7)} <= restored
    missing = sorted(pair for pair in restored if len(BY_PAIR.get(pair, [])) < 3)
    assert not missing, f"restored pairs without Kafka 3.8.0 vectors (three cases each): {missing}"


def test_vectors_ahead_of_kwire_are_only_issue_26s_pending_ones() -> None:
    ahead = {pair for pair in BY_PAIR if not kwire_has(*pair)}
    assert ahead <= ISSUE_26_PENDING, sorted(ahead - ISSUE_26_PENDING)
    assert len(CHECKED) + len(ahead) == len(BY_PAIR)
    assert len(CHECKED) >= 76  # the pairs kwire had when the vectors were written


CASES = ("every field set", "extremes", "nulls and empties")
CARRY_RECORDS = {("ProduceRequest", v) for v in range(3)} | {("FetchResponse", v) for v in range(4)}


def test_vectors_say_where_they_came_from() -> None:
    for pair, vectors in BY_PAIR.items():
        expected = CASES + (("real message sets",) if pair in CARRY_RECORDS else ())
        assert tuple(vector["why"].split(":")[0] for vector in vectors) == expected, pair
    assert {vector["source"] for vector in VECTORS} == {KAFKA_380}
    for vector in VECTORS:
        # Kafka's reader of Kafka's bytes gave back the JSON the writer was given (records aside)
        if "kafka_json_records_as_size" not in vector:
            assert vector["kafka_json"] == vector["kafka_read_from"], (vector["message"], vector["version"])


def test_vectors_are_the_committed_cases_as_kafka_read_them() -> None:
    # driver/cases.json is what KafkaVectors.java was given; "@records magic=M" placeholders became
    # message sets written by Kafka's MemoryRecords, everything else is read as given
    cases = json.loads((KAFKA_VECTORS / "driver" / "cases.json").read_text(encoding="utf-8"))
    assert len(cases) == len(VECTORS)

    def same(case: Any, read: Any) -> bool:
        if isinstance(case, str) and case.startswith("@records magic="):
            return isinstance(read, str) and len(base64.b64decode(read)) > 0
        if isinstance(case, dict):
            return isinstance(read, dict) and case.keys() == read.keys() and all(same(case[k], read[k]) for k in case)
        if isinstance(case, list):
            return isinstance(read, list) and len(case) == len(read) and all(map(same, case, read))
        return bool(case == read)

    for case, vector in zip(cases, VECTORS, strict=True):
        assert (case["message"], case["version"], case["why"]) == (vector["message"], vector["version"], vector["why"])
        assert same(case["json"], vector["kafka_read_from"]), (case["message"], case["version"], case["why"])


# --- kwire against them ---------------------------------------------------------------------------

@pytest.mark.parametrize("pair", CHECKED, ids=[f"{name}-v{version}" for name, version in CHECKED])
def test_kwire_writes_and_reads_kafka_380s_bytes(pair: tuple[str, int]) -> None:
    name, version = pair
    cls = generated.MESSAGES[name]
    for vector in BY_PAIR[pair]:
        why = vector["why"].split(":")[0]
        assert cls.from_dict(vector["kafka_read_from"], version).encode(version).hex() == vector["hex"], why
        mine = json.loads(json.dumps(cls.decode(bytes.fromhex(vector["hex"]), version).to_dict(version)))
        assert mine == vector["kafka_read_from"], why  # records as the base64 bytes Kafka read
        if "kafka_json_records_as_size" in vector:
            mine = records_as_kafka_writes_them(mine, vector["kafka_json_records_as_size"])
        assert mine == vector["kafka_json"], why


def test_kwire_reads_the_message_sets_kafka_wrote_into_old_produce_and_fetch() -> None:
    from kwire.records.reader import iter_batches

    checked = 0
    for pair in sorted(CARRY_RECORDS):
        name, version = pair
        if not kwire_has(name, version):
            continue
        vector = BY_PAIR[pair][-1]
        message = generated.MESSAGES[name].decode(bytes.fromhex(vector["hex"]), version)
        partition = (message.topic_data[0].partition_data if name == "ProduceRequest"
                     else message.responses[0].partitions)[0]
        batches = list(iter_batches(bytes(partition.records)))
        magic = 0 if version < 2 else 1  # KIP-32: timestamps came with Produce/Fetch v2
        assert [batch.magic for batch in batches] == [magic, magic]
        timestamps = [1700000000000, 1700000000001] if magic else [-1, -1]
        assert [(r.offset, r.timestamp, r.key, r.value) for r in iter_batches(bytes(partition.records)).records()] \
            == [(0, timestamps[0], b"key-1", b"value-1"), (1, timestamps[1], None, b"value-2")]
        checked += 1
    assert checked == len(CARRY_RECORDS)


def test_kwire_generated_from_kafka_380s_own_definitions_writes_and_reads_every_vector(tmp_path, monkeypatch) -> None:
    """kwire's generator on the 49 definition files the vectors were written from (3.8.0's, copied
    unmodified beside them): all 340 vectors, the pairs message_defs/ does not restore yet included,
    so a disagreement after a restoration lands is the restored definition's, not the codec's."""
    definitions = KAFKA_VECTORS / "3.8.0" / "definitions"
    assert sorted(p.stem for p in definitions.glob("*.json")) == sorted({name for name, _ in BY_PAIR})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["-q", "generate", "--defs", str(definitions), "--out", str(tmp_path / "kafka380")]) == 0
    try:
        module = importlib.import_module("kafka380")
        checked = 0
        for vector in VECTORS:
            cls, version = module.MESSAGES[vector["message"]], vector["version"]
            assert cls.from_dict(vector["kafka_read_from"], version).encode(version).hex() == vector["hex"], \
                (vector["message"], version, vector["why"])
            assert json.loads(json.dumps(cls.decode(bytes.fromhex(vector["hex"]), version).to_dict(version))) \
                == vector["kafka_read_from"], (vector["message"], version, vector["why"])
            checked += 1
        assert checked == len(VECTORS) == 340
    finally:
        for name in list(sys.modules):
            if name == "kafka380" or name.startswith("kafka380."):
                del sys.modules[name]


# --- kafka-python 3's codecs of the old versions against the same bytes ---------------------------

def kafka_python_classes() -> dict[tuple[str, int], Any]:
    old = need_module("kafka.protocol.old")

    classes = {}
    for module_info in pkgutil.iter_modules(old.__path__):
        module = importlib.import_module(f"kafka.protocol.old.{module_info.name}")
        for attr in dir(module):
            match = re.fullmatch(r"(\w+?)_v(\d+)", attr)
            if match and hasattr(getattr(module, attr), "SCHEMA"):
                classes[(match.group(1), int(match.group(2)))] = getattr(module, attr)
    return classes


# kafka-python 3.0.12 reads DescribeLogDirsRequest v0's Partitions as one int32; Kafka writes an
# array of int32 (3.8.0's definition: "[]int32"). It agrees with Kafka only when Topics is null.
KAFKA_PYTHON_DISAGREES = {("DescribeLogDirsRequest", 0)}


def json_leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in json_leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in json_leaves(item)]
    return [value]


def kafka_python_leaves(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in kafka_python_leaves(item)]
    return [value]


def kafka_python_reads(cls: Any, data: bytes) -> tuple[Any, bytes]:
    buffer = io.BytesIO(data)
    value = cls.SCHEMA.decode(buffer)
    return value, buffer.read()


def test_kafka_python_reads_kafka_380s_bytes() -> None:
    classes = kafka_python_classes()
    covered = sorted(pair for pair in BY_PAIR if pair in classes)
    assert len(covered) >= 30  # Produce, Fetch, ListOffsets, OffsetCommit/Fetch, admin APIs
    for pair in covered:
        if pair in KAFKA_PYTHON_DISAGREES:
            continue
        for vector in BY_PAIR[pair]:
            data = bytes.fromhex(vector["hex"])
            value, left = kafka_python_reads(classes[pair], data)
            assert left == b"", (pair, vector["why"])
            assert classes[pair].SCHEMA.encode(value) == data, (pair, vector["why"])
            theirs = kafka_python_leaves(value)
            ours = json_leaves(vector["kafka_read_from"])
            assert len(theirs) == len(ours), (pair, vector["why"])
            for their, our in zip(theirs, ours, strict=True):
                expected = base64.b64decode(our) if isinstance(their, bytes) else our
                assert their == expected, (pair, vector["why"])


def test_kafka_python_disagrees_with_kafka_on_describe_log_dirs_v0_partitions() -> None:
    cls = kafka_python_classes()[("DescribeLogDirsRequest", 0)]
    by_case = {vector["why"].split(":")[0]: bytes.fromhex(vector["hex"])
               for vector in BY_PAIR[("DescribeLogDirsRequest", 0)]}
    value, left = kafka_python_reads(cls, by_case["nulls and empties"])  # Topics null: agrees
    assert left == b"" and value == (None,)
    with pytest.raises(ValueError, match="underrun"):
        kafka_python_reads(cls, by_case["extremes"])  # three partitions read as one int32
