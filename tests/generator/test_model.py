"""The model's queries: fields present at a version, flexible versions, tagged fields in tag order.

A small hand-made definition pins each query down; then every kafka-python definition is
checked against kafka-python's own per-version field selection as an independent oracle.
"""
from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import pytest

from kwire.generator.definitions.loader import load_file, load_text
from kwire.generator.definitions.versions import MAX_VERSION, Versions
from tests.conftest import kafka_python_definition_files
from tests.optional import need_module

DEFINITION = """{
  "apiKey": 90, "type": "request", "name": "SampleRequest",
  "validVersions": "0-4", "flexibleVersions": "2+",
  "commonStructs": [
    {"name": "Label", "versions": "0+", "fields": [{"name": "Text", "type": "string", "versions": "0+"}]}
  ],
  "fields": [
    {"name": "GroupId", "type": "string", "versions": "0+", "entityType": "groupId"},
    {"name": "ClientTag", "type": "string", "versions": "0+", "flexibleVersions": "none"},
    {"name": "Later", "type": "int64", "versions": "3+", "default": "0x10"},
    {"name": "Gone", "type": "int16", "versions": "0-1", "ignorable": true},
    {"name": "Note", "type": "string", "versions": "2+", "taggedVersions": "2+", "tag": 1,
     "nullableVersions": "2+", "default": "null"},
    {"name": "Epoch", "type": "int32", "versions": "1+", "taggedVersions": "3+", "tag": 0, "default": -1},
    {"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
      {"name": "Name", "type": "string", "versions": "0+", "mapKey": true},
      {"name": "TopicId", "type": "uuid", "versions": "1+", "default": "AAAAAAAAAAAAAAAAAAAAAQ"},
      {"name": "Labels", "type": "[]Label", "versions": "0+"},
      {"name": "Weight", "type": "float64", "versions": "0+", "default": "0.5"}
    ]},
    {"name": "Class", "type": "bool", "versions": "0+"}
  ]
}"""


@pytest.fixture(scope="module")
def sample():
    return load_text(DEFINITION, "Sample.json")


def names(fields) -> list[str]:
    return [f.name for f in fields]


@pytest.mark.parametrize(("version", "present", "untagged", "tagged"), [
    (0, ["GroupId", "ClientTag", "Gone", "Topics", "Class"], ["GroupId", "ClientTag", "Gone", "Topics", "Class"], []),
    (1, ["GroupId", "ClientTag", "Gone", "Epoch", "Topics", "Class"],
     ["GroupId", "ClientTag", "Gone", "Epoch", "Topics", "Class"], []),
    (2, ["GroupId", "ClientTag", "Note", "Epoch", "Topics", "Class"],
     ["GroupId", "ClientTag", "Epoch", "Topics", "Class"], ["Note"]),
    # Epoch (tag 0) is declared after Note (tag 1) but goes first on the wire.
    (3, ["GroupId", "ClientTag", "Later", "Note", "Epoch", "Topics", "Class"],
     ["GroupId", "ClientTag", "Later", "Topics", "Class"], ["Epoch", "Note"]),
])
def test_fields_at_version(sample, version: int, present: list[str], untagged: list[str], tagged: list[str]) -> None:
    assert names(sample.fields_at(version)) == present
    assert names(sample.struct.untagged_fields_at(version)) == untagged
    assert names(sample.tagged_fields_at(version)) == tagged


def test_flexible_at(sample) -> None:
    assert [v for v in sample.versions() if sample.flexible_at(v)] == [2, 3, 4]
    assert list(sample.versions()) == [0, 1, 2, 3, 4]


def test_string_flexibility_follows_the_field_override(sample) -> None:
    group, client = sample.struct.field("GroupId"), sample.struct.field("ClientTag")
    assert [sample.string_flexible_at(group, v) for v in range(5)] == [False, False, True, True, True]
    assert [sample.string_flexible_at(client, v) for v in range(5)] == [False] * 5


def test_field_version_questions(sample) -> None:
    note = sample.struct.field("Note")
    epoch = sample.struct.field("Epoch")
    assert (note.present_in(1), note.present_in(2), note.nullable_in(2), note.tagged_in(2)) == (False, True, True, True)
    assert (epoch.present_in(1), epoch.tagged_in(1), epoch.tagged_in(3), epoch.nullable_in(3)) == (
        True, False, True, False)
    assert epoch.is_tagged and not sample.struct.field("GroupId").is_tagged


def test_nested_and_common_structs(sample) -> None:
    topics = sample.struct.field("Topics")
    topic = topics.struct
    assert topic.name == "Topic" and topic.versions == Versions(0, MAX_VERSION) and not topic.is_common
    assert names(topic.fields_at(0)) == ["Name", "Labels", "Weight"]
    assert names(topic.map_key_fields) == ["Name"]
    label = topic.field("Labels").struct
    assert label.is_common and label is sample.common_structs[0] and sample.structs["Label"] is label
    # dependencies come before the structs that use them
    assert [s.name for s in sample.all_structs()] == ["Label", "Topic"]
    with pytest.raises(KeyError):
        topic.field("Missing")


def test_names(sample) -> None:
    assert [f.attr_name for f in sample.fields] == [
        "group_id", "client_tag", "later", "gone", "note", "epoch", "topics", "class_"]  # keyword gets "_"
    assert [f.json_name for f in sample.fields][:3] == ["groupId", "clientTag", "later"]


def test_default_values(sample) -> None:
    fields = {f.name: f for f in sample.fields}
    topic = fields["Topics"].struct
    assert fields["Later"].default_value() == 16  # "0x10"
    assert fields["Epoch"].default_value() == -1
    assert fields["Note"].has_null_default and fields["Note"].default_value() is None
    assert fields["GroupId"].default_value() == ""
    assert fields["Class"].default_value() is False
    assert fields["Topics"].default_value() == []
    assert topic.field("TopicId").default_value() == uuid.UUID(int=1)  # base64url of 15 zero bytes and 0x01
    assert topic.field("Weight").default_value() == 0.5


def test_model_is_immutable(sample) -> None:
    for obj, attribute in [(sample, "name"), (sample.struct, "fields"), (sample.fields[0], "versions")]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attribute, None)
    assert isinstance(sample.fields, tuple) and isinstance(sample.struct.fields[6].struct.fields, tuple)


def test_message_attributes(sample) -> None:
    assert (sample.name, sample.type, sample.api_key, sample.source) == ("SampleRequest", "request", 90, "Sample.json")
    assert sample.valid_versions == Versions(0, 4) and sample.flexible_versions == Versions(2, MAX_VERSION)
    assert sample.fields[0].entity_type == "groupId" and sample.fields[3].ignorable


# --- every kafka-python definition against kafka-python's own field selection ------------------

KAFKA_PYTHON_FILES = kafka_python_definition_files()


def _compare(struct, their_fields, versions: range, where: str) -> None:
    """Compare one struct at every version against kafka-python's BaseField predicates."""
    for v in versions:
        present = [f for f in their_fields if f.for_version_q(v)]
        untagged = [f._name for f in present if not f.tagged_field_q(v)]
        tagged = [f._name for f in sorted((f for f in present if f.tagged_field_q(v)), key=lambda f: int(f.tag))]
        assert names(struct.untagged_fields_at(v)) == untagged, (where, v)
        assert names(struct.tagged_fields_at(v)) == tagged, (where, v)
        assert names(struct.fields_at(v)) == [f._name for f in present], (where, v)
    for ours, theirs in zip(struct.fields, their_fields, strict=True):
        if ours.struct is not None:
            _compare(ours.struct, theirs.fields if isinstance(theirs.fields, tuple) else tuple(theirs.fields.values()),
                     versions, f"{where}.{ours.name}")


@pytest.mark.parametrize("path", KAFKA_PYTHON_FILES, ids=lambda p: p.stem)
def test_queries_agree_with_kafka_python(path: Path) -> None:
    schemas = need_module("kafka.protocol.schemas")
    raw = schemas.load_json(path.stem)
    theirs = [schemas.BaseField.parse_json(f) for f in raw.get("fields", [])]
    ours = load_file(path)
    versions = ours.versions()
    _compare(ours.struct, theirs, versions, ours.name)
    flexible = schemas.BaseField.parse_versions(raw["flexibleVersions"])
    assert [ours.flexible_at(v) for v in versions] == [flexible[0] <= v <= flexible[1] for v in versions]
