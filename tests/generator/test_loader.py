"""Loading Kafka's definition format: comments, lenient scalars, nulls, strict keys and syntax.

The real-world proof is at the bottom: every definition kafka-python ships (Kafka 4.x files,
comments and all) loads, and what we read matches what kafka-python reads from the same files.
"""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from kwire.generator.definitions.errors import DefinitionError
from kwire.generator.definitions.loader import load_definitions, load_file, load_text
from kwire.generator.definitions.types import FieldType
from kwire.generator.definitions.versions import MAX_VERSION, NONE, Versions
from tests.conftest import kafka_python_definition_files, kafka_python_definitions
from tests.optional import need_module
from tests.paths import REPO

HEAD = '"name": "TestData", "type": "data", "validVersions": "0-3", "flexibleVersions": "2+"'


def wrap(fields: str, head: str = HEAD) -> str:
    return "{" + head + ', "fields": [' + fields + "]}"


def load_one_field(spec: dict[str, Any]):
    return load_text(wrap(json.dumps(spec))).fields[0]


def problems(text: str) -> list:
    with pytest.raises(DefinitionError) as info:
        load_text(text, "in.json")
    return info.value.problems


# --- comments -----------------------------------------------------------------------------

def test_line_and_block_comments_are_ignored() -> None:
    text = """// Licensed to the Apache Software Foundation (ASF) ...
    /* a block comment
       spanning lines */
    {
      "name": "TestData", // trailing comment
      "type": /* inline */ "data",
      "validVersions": "0-3",
      "flexibleVersions": "2+",
      "fields": [
        // Version 1 adds Name.
        { "name": "Id", "type": "int32", "versions": "0+" },
        { "name": "Name", "type": "string", "versions": "1+" } /* last */
      ]
    }
    // end"""
    message = load_text(text)
    assert [f.name for f in message.fields] == ["Id", "Name"]
    assert message.fields[1].versions == Versions(1, MAX_VERSION)


def test_comment_markers_inside_strings_are_text() -> None:
    # An escaped quote must not end the string early, nor an escaped backslash hide the real end.
    text = wrap(r'{"name": "Id", "type": "int32", "versions": "0+",'
                r' "about": "See http://kafka.apache.org // not \" a /* comment */ \\"} // real comment' "\n")
    assert load_text(text).fields[0].about == 'See http://kafka.apache.org // not " a /* comment */ \\'


def test_comments_keep_error_positions_true() -> None:
    text = '/* one\n two\n three */ {"name": "X",\n // note\n "type" "data"}'
    [problem] = problems(text)
    assert problem.path == "line 5 column 9"
    assert "Expecting ':' delimiter" in problem.message


def test_unterminated_block_comment() -> None:
    [problem] = problems('{\n  /* never closed\n}')
    assert (problem.path, problem.message) == ("line 2 column 3", "unterminated /* comment")


# --- strict syntax ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "position", "fragment"), [
    pytest.param('{"name": "X",\n"type": "data",,}', "line 2 column 16", "Expecting property name", id="double-comma"),
    pytest.param('{"name": "X"\n"type": "data"}', "line 2 column 1", "Expecting ',' delimiter", id="missing-comma"),
    pytest.param('{"name": "X",}', "line 1 column 14", "Expecting property name", id="trailing-comma"),
    pytest.param("{'name': 'X'}", "line 1 column 2", "Expecting property name", id="single-quotes"),
    pytest.param('{"name": "X"', "line 1 column 13", "Expecting ',' delimiter", id="unclosed-object"),
    pytest.param("", "line 1 column 1", "Expecting value", id="empty-file"),
    pytest.param('{"a": 1}\n\n  {"b": 2}', "line 3 column 3", "unexpected trailing tokens", id="trailing-object"),
    pytest.param('{"a": 1} x', "line 1 column 10", "unexpected trailing tokens", id="trailing-word"),
    pytest.param('{"a": 1}\n// fine\n]', "line 3 column 1", "unexpected trailing tokens", id="trailing-bracket"),
    pytest.param('{"a": 1,\n  "b": {"c": 1, "c": 2}}', "line 2 column 17", "duplicate key 'c'", id="duplicate-key"),
    pytest.param('{"a": [{"x": 1}, {"x": 2}],\n "a": 3}', "line 2 column 2", "duplicate key 'a'",
                 id="duplicate-key-after-nested"),
    pytest.param('{"about": "NaN", "x":\n  NaN}', "line 2 column 3", "NaN is not valid JSON", id="nan"),
    pytest.param('{"x": -Infinity}', "line 1 column 7", "-Infinity is not valid JSON", id="infinity"),
])
def test_syntax_errors_have_line_and_column(text: str, position: str, fragment: str) -> None:
    [problem] = problems(text)
    assert problem.file == "in.json"
    assert problem.path == position
    assert fragment in problem.message


def test_same_key_in_sibling_objects_is_fine() -> None:
    message = load_text(wrap('{"name": "A", "type": "int32", "versions": "0+"},'
                             '{"name": "B", "type": "int32", "versions": "0+"}'))
    assert [f.name for f in message.fields] == ["A", "B"]


def test_top_level_must_be_an_object() -> None:
    [problem] = problems("[]")
    assert problem.path == "$"
    assert "is not of type 'object'" in problem.message


def test_deep_nesting_is_a_definition_error() -> None:
    [problem] = problems("[" * 100_000)
    assert "nesting is too deep" in problem.message


def test_deeply_nested_fields_are_a_definition_error() -> None:
    spec = '{"name": "A", "type": "int32", "versions": "0+"}'
    for i in range(300):
        spec = f'{{"name": "S", "type": "S{i}", "versions": "0+", "fields": [{spec}]}}'
    [problem] = problems(wrap(spec))
    assert "nested too deeply" in problem.message


# --- unknown keys -------------------------------------------------------------------------

@pytest.mark.parametrize(("key", "hint"), [("requestScope", ""), ("description", ""), ("flexible", ""),
                                         ("validversions", " (did you mean 'validVersions'?)")])
def test_unknown_top_level_key(key: str, hint: str) -> None:
    [problem] = problems(wrap('{"name": "Id", "type": "int32", "versions": "0+"}', HEAD + f', "{key}": "x"'))
    assert problem.path == "$"
    assert problem.message == f"unknown key {key!r}{hint}"


@pytest.mark.parametrize(("key", "hint"), [("doc", ""), ("nullable", ""),
                                         ("Versions", " (did you mean 'versions'?)"), ("deprecatedVersions", "")])
def test_unknown_field_key(key: str, hint: str) -> None:
    [problem] = problems(wrap(f'{{"name": "Id", "type": "int32", "versions": "0+", "{key}": "x"}}'))
    assert problem.path == "$.fields[0] (Id)"
    assert problem.message == f"unknown key {key!r}{hint}"


def test_unknown_key_in_nested_field_and_common_struct() -> None:
    nested = ('{"name": "T", "type": "[]T", "versions": "0+", '
              '"fields": [{"name": "Id", "type": "int32", "versions": "0+", "x": 1}]}')
    common = ', "commonStructs": [{"name": "C", "versions": "0+", "about": "no", "fields": []}]'
    found = problems(wrap(nested, HEAD + common))
    assert [(p.path, p.message) for p in found] == [
        ("$.commonStructs[0]", "unknown key 'about'"),
        ("$.fields[0].fields[0] (Id)", "unknown key 'x'"),
    ]


def test_unknown_key_with_null_value_is_still_unknown() -> None:
    [problem] = problems(wrap('{"name": "Id", "type": "int32", "versions": "0+", "doc": null}'))
    assert problem.message == "unknown key 'doc'"


# --- lenient scalars, as Jackson coerces them ---------------------------------------------------

def test_tag_as_string() -> None:
    field = load_one_field({"name": "Id", "type": "int32", "taggedVersions": "2+", "tag": "0"})
    assert field.tag == 0 and isinstance(field.tag, int)
    assert field.versions == Versions(2, MAX_VERSION)  # versions default to taggedVersions


@pytest.mark.parametrize(("raw", "expected"), [
    ("false", False), ("true", True), ("True", True), ("FALSE", False), (True, True), (False, False),
])
def test_booleans_as_strings(raw: Any, expected: bool) -> None:
    field = load_one_field({"name": "Data", "type": "bytes", "versions": "0+", "ignorable": raw, "zeroCopy": raw})
    assert field.ignorable is expected
    assert field.zero_copy is expected


def test_apiKey_as_string_and_versions_as_number() -> None:
    message = load_text('{"name": "TestRequest", "type": "request", "apiKey": "42", "validVersions": 3,'
                        ' "flexibleVersions": "none", "fields": [{"name": "Id", "type": "int32", "versions": 3}]}')
    assert message.api_key == 42
    assert message.valid_versions == Versions(3, 3)
    assert message.fields[0].versions == Versions(3, 3)


@pytest.mark.parametrize(("ftype", "default_json", "text", "value"), [
    pytest.param("int32", "-1", "-1", -1, id="integer"),
    pytest.param("int64", "9223372036854775807", "9223372036854775807", 2**63 - 1, id="int64-max"),
    pytest.param("int16", '"0x7fff"', "0x7fff", 0x7FFF, id="hex-string"),
    pytest.param("bool", "true", "true", True, id="boolean"),
    pytest.param("bool", '"TRUE"', "TRUE", True, id="boolean-string"),
    pytest.param("float64", "1.50", "1.50", 1.5, id="float-keeps-its-text"),
    pytest.param("float64", "2e3", "2e3", 2000.0, id="float-exponent"),
    pytest.param("string", "7", "7", "7", id="number-for-string"),
    pytest.param("string", '"null"', "null", None, id="string-null-default"),
])
def test_numeric_and_boolean_defaults(ftype: str, default_json: str, text: str, value: Any) -> None:
    nullable = ', "nullableVersions": "0+"' if ftype == "string" else ""
    spec = f'{{"name": "F", "type": "{ftype}", "versions": "0+", "default": {default_json}{nullable}}}'
    field = load_text(wrap(spec)).fields[0]
    assert field.default == text  # Kafka's default string, exactly as Jackson hands it over
    assert field.default_value() == value


def test_integer_valued_float_is_not_an_integer_default() -> None:
    """Jackson passes 1.0 through as the text "1.0", which Kafka's Integer.valueOf refuses."""
    [problem] = problems(wrap('{"name": "F", "type": "int32", "versions": "0+", "default": 1.0}'))
    assert "invalid default for int32: '1.0' is not an integer" in problem.message


# --- null means "not given" -------------------------------------------------------------------

@pytest.mark.parametrize(("ftype", "value"), [
    ("int32", 0), ("bool", False), ("string", ""), ("uuid", uuid.UUID(int=0)), ("float64", 0.0), ("[]int32", []),
])
def test_null_default_means_no_default(ftype: str, value: Any) -> None:
    field = load_one_field({"name": "F", "type": ftype, "versions": "0+", "default": None})
    assert field.default == ""
    assert field.has_null_default is False
    assert field.default_value() == value


def test_null_default_on_nullable_struct_is_the_empty_struct() -> None:
    spec = {"name": "Inner", "type": "Inner", "versions": "0+", "nullableVersions": "0+", "default": None,
            "fields": [{"name": "Id", "type": "int32", "versions": "0+"}]}
    assert load_one_field(spec).has_null_default is False
    spec["default"] = "null"  # the string "null", by contrast, is a null default
    assert load_one_field(spec).has_null_default is True


def test_null_default_on_nullable_string_is_the_empty_string() -> None:
    field = load_one_field({"name": "S", "type": "string", "versions": "0+", "nullableVersions": "0+", "default": None})
    assert field.has_null_default is False
    assert field.default_value() == ""


@pytest.mark.parametrize("key", ["nullableVersions", "taggedVersions", "tag", "ignorable", "mapKey", "entityType",
                                 "zeroCopy", "flexibleVersions", "about", "fields"])
def test_null_field_key_is_absent(key: str) -> None:
    plain = load_one_field({"name": "F", "type": "int32", "versions": "0+"})
    with_null = load_one_field({"name": "F", "type": "int32", "versions": "0+", key: None})
    names = ["versions", "nullable_versions", "tagged_versions", "tag", "ignorable", "default", "map_key",
             "entity_type", "zero_copy", "flexible_versions", "about", "struct"]
    assert [getattr(with_null, n) for n in names] == [getattr(plain, n) for n in names]


def test_null_top_level_keys_are_absent() -> None:
    message = load_text(wrap('{"name": "F", "type": "int32", "versions": "0+"}',
                             HEAD + ', "apiKey": null, "deprecatedVersions": null, "listeners": null,'
                                    ' "latestVersionUnstable": null, "commonStructs": null'))
    assert (message.api_key, message.deprecated_versions, message.listeners) == (None, NONE, ())
    assert message.latest_version_unstable is False and message.common_structs == ()


def test_null_required_key_is_missing() -> None:
    [problem] = problems('{"name": null, "type": "data", "validVersions": "0", "flexibleVersions": "none"}')
    assert (problem.path, problem.message) == ("$", "'name' is a required property")


def test_blank_version_strings_mean_not_given() -> None:
    """Kafka's Versions.parse returns the default for a blank string."""
    field = load_one_field({"name": "F", "type": "string", "versions": "0+", "nullableVersions": " ",
                            "flexibleVersions": ""})
    assert field.nullable_versions == NONE
    assert field.flexible_versions is None  # no override
    message = load_text(wrap('{"name": "F", "type": "int32", "versions": "0+"}',
                             '"name": "T", "type": "data", "validVersions": "0-1", "flexibleVersions": ""'))
    assert message.flexible_versions == NONE


def test_fields_may_be_absent() -> None:
    message = load_text('{"name": "EmptyRequest", "type": "request", "apiKey": 7, "validVersions": "0",'
                        ' "flexibleVersions": "0+"}')
    assert message.fields == ()


# --- every key Kafka reads is accepted ------------------------------------------------------

def test_every_top_level_key() -> None:
    text = """{
      "apiKey": 68, "type": "request", "name": "ConsumerGroupHeartbeatRequest",
      "validVersions": "0-1", "flexibleVersions": "0+", "latestVersionUnstable": true,
      "listeners": ["broker", "zkBroker"], "deprecatedVersions": "0",
      "commonStructs": [{"name": "TopicPartitions", "versions": "0+", "deprecatedVersions": "none",
                         "fields": [{"name": "TopicId", "type": "uuid", "versions": "0+"}]}],
      "fields": [{"name": "Owned", "type": "[]TopicPartitions", "versions": "0+"}]
    }"""
    message = load_text(text)
    assert message.api_key == 68
    assert message.type == "request"
    assert message.name == "ConsumerGroupHeartbeatRequest"
    assert message.valid_versions == Versions(0, 1)
    assert message.flexible_versions == Versions(0, MAX_VERSION)
    assert message.latest_version_unstable is True
    assert message.listeners == ("broker", "zkBroker")
    assert message.deprecated_versions == Versions(0, 0)
    [common] = message.common_structs
    assert (common.name, common.is_common, [f.name for f in common.fields]) == ("TopicPartitions", True, ["TopicId"])
    assert message.fields[0].struct is common


@pytest.mark.parametrize("mtype", ["request", "response", "header", "metadata", "data", "coordinator-key",
                                   "coordinator-value"])
def test_every_message_type(mtype: str) -> None:
    name = {"request": "XRequest", "response": "XResponse"}.get(mtype, "X")
    head = f'"name": "{name}", "type": "{mtype}", "apiKey": 3, "validVersions": "0", "flexibleVersions": "none"'
    assert load_text(wrap('{"name": "F", "type": "int32", "versions": "0+"}', head)).type == mtype


def test_every_field_key() -> None:
    text = wrap("""
      {"name": "Name", "type": "string", "versions": "1+", "nullableVersions": "2+", "ignorable": true,
       "default": "none", "entityType": "topicName", "flexibleVersions": "3+", "about": "The name."},
      {"name": "Epoch", "type": "int32", "taggedVersions": "2+", "tag": 0, "default": "-1"},
      {"name": "Data", "type": "bytes", "versions": "0+", "zeroCopy": true},
      {"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
        {"name": "TopicName", "type": "string", "versions": "0+", "mapKey": true}]}
    """)
    name, epoch, data, topics = load_text(text).fields
    assert name.versions == Versions(1, MAX_VERSION)
    assert name.nullable_versions == Versions(2, MAX_VERSION)
    assert name.ignorable is True
    assert name.default == "none"
    assert name.entity_type == "topicName"
    assert name.flexible_versions == Versions(3, MAX_VERSION)
    assert name.about == "The name."
    assert (epoch.tag, epoch.tagged_versions, epoch.default_value()) == (0, Versions(2, MAX_VERSION), -1)
    assert data.zero_copy is True
    assert topics.type == FieldType("array", FieldType("Topic"))
    assert topics.struct.fields[0].map_key is True


# --- files ----------------------------------------------------------------------------------

def test_load_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "Broken.json"
    path.write_text('{"name": "X"')
    with pytest.raises(DefinitionError) as info:
        load_file(path)
    assert info.value.problems[0].file == str(path)
    assert str(info.value).startswith(f"{path}: line 1 column 13: ")


def test_load_file_skips_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "Bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + wrap('{"name": "F", "type": "int32", "versions": "0+"}').encode())
    assert load_file(path).name == "TestData"


def test_unreadable_file_is_a_definition_error(tmp_path: Path) -> None:
    path = tmp_path / "Latin1.json"
    path.write_bytes(b'{"about": "caf\xe9"}')
    with pytest.raises(DefinitionError) as info:
        load_file(path)
    assert "cannot read" in info.value.problems[0].message
    with pytest.raises(DefinitionError):
        load_file(tmp_path / "missing.json")


def test_load_definitions_reports_every_file(tmp_path: Path) -> None:
    (tmp_path / "A.json").write_text("{")
    (tmp_path / "B.json").write_text(wrap('{"name": "F", "type": "int32", "versions": "0+"}'))
    (tmp_path / "C.json").write_text("[]")
    (tmp_path / "notes.txt").write_text("not a definition")
    with pytest.raises(DefinitionError) as info:
        load_definitions([tmp_path])
    assert [Path(p.file).name for p in info.value.problems] == ["A.json", "C.json"]


# --- real definitions -------------------------------------------------------------------------

def test_every_kafka_python_definition_loads() -> None:
    files = sorted(kafka_python_definitions().glob("*.json"))
    assert len(files) > 100
    messages = load_definitions([kafka_python_definitions()])
    assert sorted(m.source for m in messages) == sorted(map(str, files))


def test_message_defs_load() -> None:
    """Everything in message_defs/ loads, its storage/ subfolder included (an apiKey space of its own)."""
    defs = REPO / "message_defs"
    messages = load_definitions([defs])
    assert len(messages) == len(list(defs.rglob("*.json"))) > len(list(defs.glob("*.json"))) > 0


def _their_tree(fields: list[dict[str, Any]]) -> list[tuple]:
    """kafka-python's raw reading of a field list: what each key said, recursively."""
    return [(f["name"], f["type"].strip(), f.get("versions", f.get("taggedVersions")), f.get("tag"),
             f.get("about", ""), _their_tree(f.get("fields", []))) for f in fields]


def _our_tree(fields) -> list[tuple]:
    return [(f.name, str(f.type), str(f.versions), f.tag, f.about,
             _our_tree(f.struct.fields) if f.struct is not None else []) for f in fields]


@pytest.mark.parametrize("path", kafka_python_definition_files(), ids=lambda p: p.stem)
def test_we_read_what_kafka_python_reads(path: Path) -> None:
    """kafka-python parses the same file with its own comment stripper and json.loads; both
    readings must agree on every field (common structs resolved into their uses)."""
    theirs = need_module("kafka.protocol.schemas").load_json(path.stem)
    ours = load_file(path)
    assert ours.name == theirs["name"]
    assert ours.api_key == (int(theirs["apiKey"]) if "apiKey" in theirs else None)
    assert str(ours.valid_versions) == str(Versions.parse(theirs["validVersions"]))

    def normalise(tree: list[tuple]) -> list[tuple]:
        return [(n, t, str(Versions.parse(str(v))), None if tag is None else int(tag), about, normalise(sub))
                for n, t, v, tag, about, sub in tree]

    assert _our_tree(ours.fields) == normalise(_their_tree(theirs.get("fields", [])))


# --- typos -------------------------------------------------------------------------------------

def test_a_misspelt_key_is_said_once_with_its_near_match(tmp_path: Path) -> None:
    field = {"name": "Id", "type": "int32", "verisons": "0+"}
    raw = {"name": "TestData", "type": "data", "validVersions": "0", "flexibleVersions": "none", "fields": [field]}
    with pytest.raises(DefinitionError) as info:
        load_text(json.dumps(raw), "t.json")
    assert [str(p) for p in info.value.problems] == [
        "t.json: $.fields[0] (Id): unknown key 'verisons' (did you mean 'versions'?)"]


def test_a_misspelt_primitive_type_gets_its_near_match() -> None:
    raw = {"name": "TestData", "type": "data", "validVersions": "0", "flexibleVersions": "none",
           "fields": [{"name": "Id", "type": "uuidd", "versions": "0+"}]}
    with pytest.raises(DefinitionError) as info:
        load_text(json.dumps(raw), "t.json")
    assert [p.message for p in info.value.problems] == ["unknown type 'uuidd' (did you mean 'uuid'?)"]
