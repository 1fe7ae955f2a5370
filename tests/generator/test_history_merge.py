"""Restoring the versions Kafka 4.0 removed: Kafka 4.2.1's definition merged with Kafka 3.8.0's,
and the proof that every version lays out its bytes as the release it came from did."""
from __future__ import annotations

import json

import pytest

from kwire.generator import jsonc
from kwire.generator.compat import wire_layout
from kwire.generator.errors import DefinitionError
from kwire.generator.history_merge import merge_and_prove
from kwire.generator.loader import load_text
from tests.paths import KAFKA_DEFINITIONS

NEWER = KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients"
OLDER = KAFKA_DEFINITIONS / "history"


def sides(name: str, older_text: str | None = None):
    newer_text = (NEWER / f"{name}.json").read_text()
    older_text = older_text or (OLDER / f"{name}@771b9576b00e.json").read_text()
    return (jsonc.loads(newer_text), load_text(newer_text, f"4.2.1:{name}"),
            jsonc.loads(older_text), load_text(older_text, f"3.8.0:{name}", old_format=True))


@pytest.mark.parametrize("name, versions", [("ProduceRequest", "0-13"), ("ProduceResponse", "0-13"),
                                            ("FetchRequest", "0-18"), ("FetchResponse", "0-18")])
def test_the_removed_versions_come_back_with_the_bytes_of_380(name, versions):
    newer_raw, newer, older_raw, older = sides(name)
    raw, merged = merge_and_prove(newer_raw, newer, older_raw, older, f"merged:{name}")
    assert raw["validVersions"] == versions
    low = newer.valid_versions.lowest
    assert low > 0 and merged.valid_versions.lowest == 0
    for version in merged.versions():
        origin = newer if version >= low else older
        assert wire_layout(merged, version) == wire_layout(origin, version)
    # the names are the newer release's: 4.2.1's classes keep their fields
    assert [f.name for f in merged.fields] == [f.name for f in newer.fields]


def test_a_field_whose_bytes_differ_in_a_restored_version_is_refused_by_name_and_version():
    older_text = (OLDER / "ProduceRequest@771b9576b00e.json").read_text()
    tampered = older_text.replace('"name": "Acks", "type": "int16"', '"name": "Acks", "type": "int32"')
    assert tampered != older_text
    with pytest.raises(DefinitionError) as refused:
        merge_and_prove(*sides("ProduceRequest", tampered), "merged:ProduceRequest")
    messages = [str(p) for p in refused.value.problems]
    assert [m for m in messages if m.startswith("merged:ProduceRequest: Acks: v0: 3.8.0:ProduceRequest has int32")]
    assert {m.split(": ")[2] for m in messages} == {"v0", "v1", "v2"}


def test_a_field_only_the_older_release_has_is_refused_not_dropped():
    newer_raw, newer, older_raw, older = sides("ProduceRequest")
    older_raw = json.loads(json.dumps(older_raw))
    older_raw["fields"].insert(1, {"name": "Legacy", "type": "int32", "versions": "0-1", "about": "x"})
    with pytest.raises(DefinitionError, match="Legacy: only the older release has this field in v0-2"):
        merge_and_prove(newer_raw, newer, older_raw, older, "merged:ProduceRequest")


def test_an_older_release_without_older_versions_is_refused():
    newer_raw, newer, _, _ = sides("ProduceRequest")
    with pytest.raises(DefinitionError, match="has no version below the newer one's"):
        merge_and_prove(newer_raw, newer, newer_raw, newer, "merged:ProduceRequest")


# --- the restored versions against kafka-python 3's hand-written codecs of the old versions ---------

def _sample(schema, seed: int = 1):
    """A value for each field of a kafka-python ``Schema`` (distinct, so a swap shows), and the leaves
    in wire order."""
    from kafka.protocol.old import types as kp

    item, leaves = [], []
    for i, field in enumerate(schema.fields):
        n = seed * 10 + i
        if isinstance(field, kp.Array):
            elements = [_sample(field.array_of, n * 10 + j) for j in range(2)]
            item.append([value for value, _ in elements])
            leaves.extend(leaf for _, element_leaves in elements for leaf in element_leaves)
            continue
        value = {kp.Int16: n % 30000, kp.Int32: -n, kp.Int64: n << 33}.get(field) if field in (kp.Int16, kp.Int32, kp.Int64) \
            else f"topic-{n}" if isinstance(field, kp.String) else bytes([n % 256, 1, 2]) if field is kp.Bytes else None
        assert value is not None, f"no sample for {field}"
        item.append(value)
        leaves.append(value)
    return tuple(item), leaves


def _leaves(plain):
    if isinstance(plain, dict):
        return [leaf for key, value in plain.items() if not key.startswith("_") for leaf in _leaves(value)]
    if isinstance(plain, list):
        return [leaf for element in plain for leaf in _leaves(element)]
    return [plain]


@pytest.mark.parametrize("name, kp_module, kp_class, versions", [
    ("ProduceRequest", "produce", "ProduceRequest", range(3)),
    ("ProduceResponse", "produce", "ProduceResponse", range(3)),
    ("FetchRequest", "fetch", "FetchRequest", range(4)),
    ("FetchResponse", "fetch", "FetchResponse", range(4)),
])
def test_restored_versions_read_and_write_kafka_pythons_bytes(name, kp_module, kp_class, versions):
    import importlib

    from tests.generator.reference_codec import reference_decode, reference_encode

    module = importlib.import_module(f"kafka.protocol.old.{kp_module}")
    _, merged = merge_and_prove(*sides(name), f"merged:{name}")
    for version in versions:
        schema = getattr(module, f"{kp_class}_v{version}").SCHEMA
        value, leaves = _sample(schema)
        data = schema.encode(value)  # kafka-python's bytes for the old version
        plain = reference_decode(merged, version, data)
        assert _leaves(plain) == leaves, (name, version)
        assert reference_encode(merged, version, plain) == data, (name, version)


@pytest.mark.parametrize("name", ["ProduceRequest", "ProduceResponse", "FetchRequest", "FetchResponse"])
def test_the_shipped_definition_is_proven_for_every_version(name):
    # message_defs/ keeps kwire's own comments and about texts; its bytes must be 4.2.1's from
    # 4.2.1's lowest version on and 3.8.0's below it
    from kwire.generator.history_merge import prove_merge
    from kwire.generator.loader import load_file
    from tests.paths import MESSAGE_DEFS

    _, newer, _, older = sides(name)
    shipped = load_file(MESSAGE_DEFS / f"{name}.json")
    assert shipped.valid_versions.lowest == older.valid_versions.lowest == 0
    assert shipped.valid_versions.highest == newer.valid_versions.highest
    assert prove_merge(shipped, newer, older) == []
