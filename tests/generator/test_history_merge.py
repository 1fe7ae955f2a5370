"""Restoring the versions Kafka 4.0 removed: Kafka 4.2.1's definition merged with Kafka 3.8.0's,
and the proof that every version lays out its bytes as the release it came from did."""
from __future__ import annotations

import json

import pytest

from kwire.generator.definitions import jsonc
from kwire.generator.definitions.errors import DefinitionError
from kwire.generator.definitions.loader import load_text
from kwire.generator.evolution import history_merge
from kwire.generator.evolution.compat import wire_layout
from kwire.generator.evolution.history_merge import fields_only_older, merge_and_prove, prove_merge
from tests.paths import KAFKA_DEFINITIONS, MESSAGE_DEFS

NEWER = KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients"
OLDER = KAFKA_DEFINITIONS / "history"

#: Every definition whose versions Kafka 4.0 removed (KIP-896) and kwire restores from Kafka 3.8.0:
#: name -> validVersions of the merge. RequestHeader v0 is ControlledShutdown v0's header.
RESTORED = {
    "ProduceRequest": "0-13", "ProduceResponse": "0-13", "FetchRequest": "0-18", "FetchResponse": "0-18",
    "AlterReplicaLogDirsRequest": "0-2", "AlterReplicaLogDirsResponse": "0-2",
    "CreateAclsRequest": "0-3", "CreateAclsResponse": "0-3",
    "CreateTopicsRequest": "0-7", "CreateTopicsResponse": "0-7",
    "DeleteAclsRequest": "0-3", "DeleteAclsResponse": "0-3",
    "DeleteTopicsRequest": "0-6", "DeleteTopicsResponse": "0-6",
    "DescribeAclsRequest": "0-3", "DescribeAclsResponse": "0-3",
    "DescribeConfigsRequest": "0-4", "DescribeConfigsResponse": "0-4",
    "DescribeLogDirsRequest": "0-4", "DescribeLogDirsResponse": "0-4",
    "ListOffsetsRequest": "0-11", "ListOffsetsResponse": "0-11",
    "OffsetCommitRequest": "0-10", "OffsetCommitResponse": "0-10",
    "OffsetFetchRequest": "0-10", "OffsetFetchResponse": "0-10",
    "OffsetForLeaderEpochRequest": "0-4", "OffsetForLeaderEpochResponse": "0-4",
    "RenewDelegationTokenRequest": "0-2", "RenewDelegationTokenResponse": "0-2",
    "WriteTxnMarkersRequest": "0-2", "WriteTxnMarkersResponse": "0-2",
    "RequestHeader": "0-2",
}

#: Fields Kafka 4.0 removed together with the versions that had them: only 3.8.0 has them.
ONLY_IN_380 = {
    "DescribeConfigsResponse": [("Results.Configs.IsDefault", "0")],
    "ListOffsetsRequest": [("Topics.Partitions.MaxNumOffsets", "0")],
    "ListOffsetsResponse": [("Topics.Partitions.OldStyleOffsets", "0")],
    "OffsetCommitRequest": [("Topics.Partitions.CommitTimestamp", "1")],
}


def sides(name: str, older_text: str | None = None):
    newer_text = (NEWER / f"{name}.json").read_text()
    older_text = older_text or (OLDER / f"{name}@771b9576b00e.json").read_text()
    return (jsonc.loads(newer_text), load_text(newer_text, f"4.2.1:{name}"),
            jsonc.loads(older_text), load_text(older_text, f"3.8.0:{name}", old_format=True))


@pytest.mark.parametrize("name, versions", sorted(RESTORED.items()))
def test_the_removed_versions_come_back_with_the_bytes_of_380(name, versions):
    newer_raw, newer, older_raw, older = sides(name)
    raw, merged = merge_and_prove(newer_raw, newer, older_raw, older, f"merged:{name}")
    assert raw["validVersions"] == versions
    low = newer.valid_versions.lowest
    assert low > 0 and merged.valid_versions.lowest == 0
    for version in merged.versions():
        origin = newer if version >= low else older
        assert wire_layout(merged, version) == wire_layout(origin, version)
    # the names are the newer release's: 4.2.1's classes keep their fields, and gain only the
    # fields 4.0 removed with the old versions, at those versions alone
    only_older = fields_only_older(raw, newer_raw)
    assert only_older == ONLY_IN_380.get(name, [])
    assert [f.name for f in merged.fields if f.name not in {p for p, _ in only_older}] == [f.name for f in newer.fields]


def test_a_field_whose_bytes_differ_in_a_restored_version_is_refused_by_name_and_version():
    older_text = (OLDER / "ProduceRequest@771b9576b00e.json").read_text()
    tampered = older_text.replace('"name": "Acks", "type": "int16"', '"name": "Acks", "type": "int32"')
    assert tampered != older_text
    with pytest.raises(DefinitionError) as refused:
        merge_and_prove(*sides("ProduceRequest", tampered), "merged:ProduceRequest")
    messages = [str(p) for p in refused.value.problems]
    assert [m for m in messages if m.startswith("merged:ProduceRequest: Acks: v0: 3.8.0:ProduceRequest has int32")]
    assert {m.split(": ")[2] for m in messages} == {"v0", "v1", "v2"}


def test_a_field_only_the_older_release_has_comes_back_at_its_place_and_old_versions_only():
    newer_raw, newer, older_raw, older = sides("ProduceRequest")
    older_raw = json.loads(json.dumps(older_raw))
    older_raw["fields"].insert(1, {"name": "Legacy", "type": "int32", "versions": "0+", "about": "x"})
    older = load_text(json.dumps(older_raw), "3.8.0:ProduceRequest", old_format=True)
    raw, merged = merge_and_prove(newer_raw, newer, older_raw, older, "merged:ProduceRequest")
    assert [f["name"] for f in raw["fields"]][:3] == ["TransactionalId", "Legacy", "Acks"]
    assert fields_only_older(raw, newer_raw) == [("Legacy", "0-2")]  # capped: 4.2.1's v3+ has no Legacy
    assert [p for p, _ in wire_layout(merged, 2)][:2] == ["Legacy", "Acks"]
    assert "Legacy" not in [p for p, _ in wire_layout(merged, 3)]


def test_a_field_only_the_older_release_has_is_proven_like_the_rest():
    # a removed field put where 3.8.0 does not have it would move bytes: the proof refuses it
    newer_raw, newer, older_raw, older = sides("ListOffsetsRequest")
    moved = json.loads(json.dumps(older_raw))
    partitions = moved["fields"][2]["fields"][1]["fields"]
    partitions.insert(0, partitions.pop())  # MaxNumOffsets first in the 3.8.0 text the merge reads
    with pytest.raises(DefinitionError) as refused:
        merge_and_prove(newer_raw, newer, moved, older, "merged:ListOffsetsRequest")
    # merged v0: MaxNumOffsets, PartitionIndex, Timestamp; 3.8.0's: PartitionIndex, Timestamp, MaxNumOffsets
    assert [str(p) for p in refused.value.problems] == [
        "merged:ListOffsetsRequest: Topics.Partitions.PartitionIndex: v0: 3.8.0:ListOffsetsRequest has int64 "
        "(Topics.Partitions.Timestamp), the merge has int32 (Topics.Partitions.PartitionIndex)"]


def test_a_tagged_field_only_the_older_release_has_is_refused():
    newer_raw, newer, older_raw, older = sides("FetchRequest")
    older_raw = json.loads(json.dumps(older_raw))
    older_raw["fields"].append({"name": "Legacy", "type": "int32", "versions": "0+", "taggedVersions": "0+",
                                "tag": 9, "about": "x"})
    with pytest.raises(DefinitionError, match="Legacy: only the older release has this tagged field"):
        merge_and_prove(newer_raw, newer, older_raw, older, "merged:FetchRequest")


def test_an_older_release_without_older_versions_is_refused():
    newer_raw, newer, _, _ = sides("ProduceRequest")
    with pytest.raises(DefinitionError, match="has no version below the newer one's"):
        merge_and_prove(newer_raw, newer, newer_raw, newer, "merged:ProduceRequest")


# --- the restored versions against kafka-python 3's hand-written codecs of the old versions ---------

def _sample(schema, seed: int = 1):
    """A value for each field of a kafka-python ``Schema`` (distinct, so a swap shows), and the leaves
    in wire order."""
    item, leaves = [], []
    for i, field in enumerate(schema.fields):
        value, field_leaves = _sample_value(field, seed * 10 + i)
        item.append(value)
        leaves.extend(field_leaves)
    return tuple(item), leaves


def _sample_value(kind, n: int):
    from kafka.protocol.old import types as kp

    if isinstance(kind, kp.Schema):
        return _sample(kind, n)
    if isinstance(kind, kp.Array):
        elements = [_sample_value(kind.array_of, n * 10 + j) for j in range(2)]
        return [value for value, _ in elements], [leaf for _, element_leaves in elements for leaf in element_leaves]
    numbers = {kp.Int8: n % 100, kp.Int16: n % 30000, kp.Int32: -n, kp.Int64: n << 33}
    value = numbers.get(kind) if kind in numbers else n % 2 == 1 if kind is kp.Boolean \
        else f"topic-{n}" if isinstance(kind, kp.String) else bytes([n % 256, 1, 2]) if kind is kp.Bytes else None
    assert value is not None, f"no sample for {kind}"
    return value, [value]


def _leaves(plain):
    if isinstance(plain, dict):
        return [leaf for key, value in plain.items() if not key.startswith("_") for leaf in _leaves(value)]
    if isinstance(plain, list):
        return [leaf for element in plain for leaf in _leaves(element)]
    return [plain]


#: The restored versions kafka-python 3 has hand-written codecs of (``kafka.protocol.old.<module>``):
#: name -> (module, versions). It has none of AlterReplicaLogDirs, RenewDelegationToken,
#: WriteTxnMarkers or RequestHeader v0 (those are checked against Kafka 3.8.0's Java classes).
KAFKA_PYTHON_OLD = {
    "ProduceRequest": ("produce", range(3)), "ProduceResponse": ("produce", range(3)),
    "FetchRequest": ("fetch", range(4)), "FetchResponse": ("fetch", range(4)),
    **{f"{api}{kind}": ("admin", range(1)) for api in ("CreateAcls", "DeleteAcls", "DeleteTopics", "DescribeAcls",
                                                        "DescribeConfigs")
       for kind in ("Request", "Response")},
    "DescribeLogDirsResponse": ("admin", range(1)),
    "CreateTopicsRequest": ("admin", range(2)), "CreateTopicsResponse": ("admin", range(2)),
    "ListOffsetsRequest": ("list_offsets", range(1)), "ListOffsetsResponse": ("list_offsets", range(1)),
    "OffsetCommitRequest": ("commit", range(2)), "OffsetCommitResponse": ("commit", range(2)),
    "OffsetFetchRequest": ("commit", range(1)), "OffsetFetchResponse": ("commit", range(1)),
    "OffsetForLeaderEpochRequest": ("offset_for_leader_epoch", range(2)),
    "OffsetForLeaderEpochResponse": ("offset_for_leader_epoch", range(2)),
}


def kafka_python_schema(name: str, version: int, module: str | None = None):
    import importlib

    module = importlib.import_module(f"kafka.protocol.old.{module or KAFKA_PYTHON_OLD[name][0]}")
    return getattr(module, f"{name}_v{version}").SCHEMA


#: kafka-python codecs of restored versions that are not Kafka's, so cannot check them.
KAFKA_PYTHON_NOT_KAFKA = {("DescribeLogDirsRequest", 0)}


def test_kafka_pythons_describe_log_dirs_request_v0_is_not_kafkas():
    # kafka-python 3 writes Topics[].Partitions as one int32; Kafka 3.8.0 (and 1.1, which added the
    # API) as an array of int32: its bytes would prove nothing
    from kafka.protocol.old import types as kp

    _, _, _, older = sides("DescribeLogDirsRequest")
    topics = kafka_python_schema("DescribeLogDirsRequest", 0, "admin").fields[0]
    assert topics.array_of.fields[1] is kp.Int32
    assert [kind for _, kind in wire_layout(older, 0)] == [
        ("array", "nullable", (("string", ""), ("array", "", ("int32",))))]


def test_kafka_python_covers_every_restored_version_it_has():
    # every restored version of RESTORED that kafka-python has a codec of is in KAFKA_PYTHON_OLD
    import importlib

    for name in RESTORED:
        newer = load_text((NEWER / f"{name}.json").read_text(), name)
        missed = []
        for module in ("produce", "fetch", "admin", "list_offsets", "commit", "offset_for_leader_epoch", "metadata"):
            module = importlib.import_module(f"kafka.protocol.old.{module}")
            missed += [v for v in range(newer.valid_versions.lowest) if hasattr(module, f"{name}_v{v}")
                       and v not in KAFKA_PYTHON_OLD.get(name, ("", range(0)))[1]
                       and (name, v) not in KAFKA_PYTHON_NOT_KAFKA]
        assert missed == [], name


@pytest.mark.parametrize("name", sorted(KAFKA_PYTHON_OLD))
def test_restored_versions_read_and_write_kafka_pythons_bytes(name):
    from tests.generator.reference_codec import reference_decode, reference_encode

    _, merged = merge_and_prove(*sides(name), f"merged:{name}")
    for version in KAFKA_PYTHON_OLD[name][1]:
        schema = kafka_python_schema(name, version)
        value, leaves = _sample(schema)
        data = schema.encode(value)  # kafka-python's bytes for the old version
        plain = reference_decode(merged, version, data)
        assert _leaves(plain) == leaves, (name, version)
        assert reference_encode(merged, version, plain) == data, (name, version)


#: Versions of the shipped files newer than Kafka 4.2.1 (read from newer upstream text; the facts
#: test and the kio differential test check them), so in neither release the proof compares with.
NEWER_THAN_421 = {"DescribeLogDirsRequest": [5], "DescribeLogDirsResponse": [5]}


@pytest.mark.parametrize("name", sorted(RESTORED))
def test_the_shipped_definition_is_proven_for_every_version(name):
    # message_defs/ keeps kwire's own comments and about texts; its bytes must be 4.2.1's from
    # 4.2.1's lowest version on and 3.8.0's below it
    from kwire.generator.definitions.loader import load_file
    from kwire.generator.evolution.history_merge import prove_merge
    from tests.paths import MESSAGE_DEFS

    _, newer, _, older = sides(name)
    shipped = load_file(MESSAGE_DEFS / f"{name}.json")
    assert shipped.valid_versions.lowest == older.valid_versions.lowest == 0
    assert str(shipped.valid_versions.lowest) + "-" + str(newer.valid_versions.highest) == RESTORED[name]
    beyond = list(range(newer.valid_versions.highest + 1, shipped.valid_versions.highest + 1))
    assert beyond == NEWER_THAN_421.get(name, [])
    assert [str(p) for p in prove_merge(shipped, newer, older)] == [
        f"{shipped.source}: validVersions: v{v} is in neither release" for v in beyond]


# --- the proof covers the newer release's versions too -------------------------------------------

def test_merge_versions_refuses_a_merge_that_changes_one_of_the_newer_releases_versions(tmp_path, monkeypatch,
                                                                                       capsys):
    # A merge step that goes wrong: a field only 3.8.0 has is not capped to the restored versions,
    # so it lands in 4.2.1's versions (v3..v13) too. The restored v0..v2 are as 3.8.0 has them; the
    # proof must refuse the merge for each newer version, naming 4.2.1 as the release it came from.
    from kwire.cli.main import main

    older_raw = jsonc.loads((OLDER / "ProduceRequest@771b9576b00e.json").read_text())
    older_raw["fields"].insert(1, {"name": "Legacy", "type": "int32", "versions": "0+", "about": "x"})
    older_file = tmp_path / "ProduceRequest-3.8.0.json"
    older_file.write_text(json.dumps(older_raw))
    newer_file = NEWER / "ProduceRequest.json"
    monkeypatch.setattr(history_merge, "_capped", lambda field, *_: dict(field))
    out = tmp_path / "merged.json"
    assert main(["merge-versions", str(newer_file), str(older_file), "--out", str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{out}: Legacy: v{v}: {newer_file} has int16 (Acks), the merge has int32 (Legacy)" for v in range(3, 14)]
    assert not out.exists()


def test_the_proof_refuses_a_definition_changed_only_in_a_newer_releases_version():
    # message_defs/ProduceRequest.json with flexible versions from v10 instead of v9: only v9, one
    # of 4.2.1's versions, changes its bytes (TransactionalId and every string after it stop being compact)
    _, newer, _, older = sides("ProduceRequest")
    text = (MESSAGE_DEFS / "ProduceRequest.json").read_text()
    changed = text.replace('"flexibleVersions": "9+"', '"flexibleVersions": "10+"')
    assert changed != text and prove_merge(load_text(text, "shipped"), newer, older) == []
    assert [str(p) for p in prove_merge(load_text(changed, "shipped"), newer, older)] == [
        ("shipped: TransactionalId: v9: 4.2.1:ProduceRequest has compact string nullable (TransactionalId), "
         "the merge has string nullable (TransactionalId)")]
