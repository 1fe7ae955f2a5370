"""One minimal bad definition per validation rule, each checked for its one-line, located error.

Every case starts from a small valid definition (``test_base_definition_is_valid`` proves it
loads) and breaks exactly one rule, so each case must produce exactly one problem, at the JSON
path of the culprit, naming the file. The rules come from Kafka's generator (MessageSpec,
StructSpec, FieldSpec, FieldType, StructRegistry, EntityType, MessageDataGenerator, the type
class generators and the metadata schema checker), plus the JSON Schema of the format.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kwire.generator.definitions.errors import DefinitionError
from kwire.generator.definitions.loader import load_definitions, load_text

SOURCE = "rules/TestData.json"
DROP = object()  # marks a top-level key to leave out


def field(name: str, ftype: str, versions: str | None = "0+", **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name, "type": ftype}
    if versions is not None:
        spec["versions"] = versions
    spec.update(extra)
    return spec


ID = field("Id", "int32")


def definition(*fields: dict[str, Any], **top: Any) -> dict[str, Any]:
    """A valid "data" definition (versions 0-3, flexible from 2) with the given changes."""
    raw: dict[str, Any] = {
        "name": "TestData",
        "type": "data",
        "validVersions": "0-3",
        "flexibleVersions": "2+",
        "fields": list(fields) if fields else [copy.deepcopy(ID)],
    }
    raw.update(top)
    return {k: v for k, v in raw.items() if v is not DROP}


def request(*fields: dict[str, Any], **top: Any) -> dict[str, Any]:
    return definition(*fields, **{"name": "TestRequest", "type": "request", "apiKey": 1000, **top})


def items(*element_fields: dict[str, Any], versions: str = "0+") -> dict[str, Any]:
    """A struct-array field whose element struct is Item."""
    return field("Items", "[]Item", versions, fields=list(element_fields))


THING = {"name": "Thing", "versions": "0+", "fields": [field("Value", "int32")]}


def problems_of(raw: dict[str, Any]) -> list:
    with pytest.raises(DefinitionError) as info:
        load_text(json.dumps(raw), SOURCE)
    return info.value.problems


def test_base_definition_is_valid() -> None:
    message = load_text(json.dumps(definition()), SOURCE)
    assert message.name == "TestData"
    assert load_text(json.dumps(request()), SOURCE).api_key == 1000


# (id, bad definition, JSON path of the problem, fragment of its message)
RULES = [
    # --- JSON Schema layer: the shape of the format ---------------------------------------
    ("missing-name", definition(name=DROP), "$", "'name' is a required property"),
    ("missing-type", definition(type=DROP), "$", "'type' is a required property"),
    ("unknown-message-type", definition(type="event"), "$.type", "'event' is not one of"),
    ("missing-validVersions", definition(validVersions=DROP), "$", "'validVersions' is a required property"),
    ("bad-version-syntax", definition(validVersions="1..3"), "$.validVersions",
     "'1..3' is not a version range"),
    ("field-name-not-identifier", definition(field("Bad Name", "int32")), "$.fields[0].name (Bad Name)",
     "'Bad Name' is not a name of letters and digits"),
    ("field-without-type", definition({"name": "Id", "versions": "0+"}), "$.fields[0] (Id)",
     "'type' is a required property"),
    ("field-without-versions", definition(field("Id", "int32", None)), "$.fields[0] (Id)",
     "a field needs versions or taggedVersions"),
    ("unknown-entityType", definition(field("Id", "int32", entityType="clusterId")), "$.fields[0].entityType (Id)",
     "'clusterId' is not one of"),
    ("unknown-listener", request(listeners=["client"]), "$.listeners[0]", "'client' is not one of"),
    ("flag-not-boolean", definition(field("Id", "int32", ignorable="yes")), "$.fields[0].ignorable (Id)",
     "'yes' is not a boolean"),
    ("tag-not-integer", definition(field("Id", "int32", None, taggedVersions="2+", tag="zero")),
     "$.fields[0].tag (Id)", "'zero' is not an integer"),
    # --- message ----------------------------------------------------------------------------
    ("validVersions-open-ended", definition(validVersions="0+"), "$.validVersions", "has no highest version"),
    ("version-range-reversed", definition(validVersions="3-1"), "$.validVersions", "lowest is above highest"),
    ("version-beyond-int16", definition(validVersions="0-40000"), "$.validVersions", "versions are int16"),
    ("apiKey-beyond-int16", request(apiKey=40000), "$.apiKey", "apiKey 40000 is not a non-negative int16"),
    ("apiKey-missing", definition(type="metadata", name="TestRecord"), "$",
     "a message of type 'metadata' needs an apiKey"),
    ("request-name-suffix", request(name="TestCall"), "$.name", "must have a name ending in 'Request'"),
    ("response-name-suffix", request(type="response"), "$.name", "must have a name ending in 'Response'"),
    ("flexibleVersions-missing", definition(flexibleVersions=DROP), "$", "flexibleVersions is required"),
    ("flexibleVersions-bounded", definition(flexibleVersions="1-2"), "$.flexibleVersions",
     "must be 'none' or open-ended"),
    ("deprecatedVersions-outside-validVersions", definition(deprecatedVersions="0-5"), "$.deprecatedVersions",
     "deprecatedVersions 0-5 lie outside validVersions 0-3"),
    ("latestVersionUnstable-not-request", definition(latestVersionUnstable=True), "$.latestVersionUnstable",
     "only valid for requests"),
    ("listeners-not-request", definition(listeners=["broker"]), "$.listeners", "only valid for requests"),
    ("coordinator-key-versions", definition(type="coordinator-key", apiKey=1, validVersions="0-1",
                                            flexibleVersions="none"),
     "$.validVersions", "a coordinator-key must have validVersions \"0\""),
    ("coordinator-key-flexible", definition(type="coordinator-key", apiKey=1, validVersions="0"),
     "$.flexibleVersions", "a coordinator-key cannot be flexible"),
    # --- structs ----------------------------------------------------------------------------
    ("common-struct-lowercase", definition(commonStructs=[{**THING, "name": "thing"}]), "$.commonStructs[0].name",
     "common struct name 'thing' must start with a capital letter"),
    ("common-struct-twice", definition(commonStructs=[THING, THING]), "$.commonStructs[1]",
     "common struct Thing is defined twice"),
    ("common-struct-outside-validVersions", definition(commonStructs=[{**THING, "versions": "5+"}]),
     "$.commonStructs[0].versions", "never overlap validVersions 0-3"),
    ("inline-struct-respecifies-common", definition(ID, field("Thing", "Thing", fields=[field("Value", "int32")]),
                                                    commonStructs=[THING]),
     "$.fields[1] (Thing)", "re-specifies the common struct Thing inline"),
    ("inline-struct-twice", definition(items(ID), field("Others", "[]Item", fields=[ID])), "$.fields[1] (Others)",
     "struct Item is defined twice (first at $.fields[0])"),
    ("inline-struct-shared", definition(items(ID), field("Others", "[]Item")), "$.fields[1] (Others)",
     "defined inline at $.fields[0]; only commonStructs can be shared"),
    ("struct-named-like-message", definition(field("Inner", "TestData", fields=[ID])), "$.name",
     "a struct is named TestData, like the message itself"),
    ("struct-undefined", definition(field("Thing", "Thing")), "$.fields[0] (Thing)",
     "struct Thing is not defined here or in commonStructs"),
    ("struct-contains-itself", definition(commonStructs=[{"name": "Node", "versions": "0+",
                                                          "fields": [field("Child", "Node")]}]),
     "$.commonStructs[0].fields[0] (Child)", "struct Node contains itself"),
    ("field-outside-enclosing-versions",
     definition(field("Inner", "Inner", "0-1", fields=[field("Late", "int32", "2+")])),
     "$.fields[0].fields[0] (Late)", "versions 2+ never overlap the enclosing versions 0-1"),
    ("metadata-field-outside-validVersions",
     definition(items(field("Late", "int32", "2+")), type="metadata", name="TestRecord", apiKey=1,
                validVersions="0-1", flexibleVersions="0+"),
     "$.fields[0].fields[0] (Late)", "versions 2+ never overlap validVersions 0-1"),
    ("field-name-twice", definition(ID, field("Id", "int64")), "$.fields[1] (Id)",
     "in TestData, field name Id is used twice"),
    ("field-attribute-clash", definition(field("ThrottleTimeMs", "int32"), field("throttleTimeMs", "int32")),
     "$.fields[1] (throttleTimeMs)", "map to the same attribute throttle_time_ms"),
    # --- types ------------------------------------------------------------------------------
    ("unknown-type", definition(field("Id", "varint")), "$.fields[0] (Id)", "unknown type 'varint'"),
    ("array-of-arrays", definition(field("Ids", "[][]int32")), "$.fields[0] (Ids)",
     "arrays of arrays are not supported"),
    ("nullable-int", definition(field("Id", "int32", nullableVersions="0+")), "$.fields[0] (Id)",
     "type int32 cannot be nullable"),
    ("nullable-uuid", definition(field("Id", "uuid", nullableVersions="0+")), "$.fields[0] (Id)",
     "type uuid cannot be nullable"),
    ("fields-on-primitive", definition(field("Id", "int32", fields=[ID])), "$.fields[0] (Id)",
     "only struct and struct-array fields can have 'fields', not int32"),
    ("flexibleVersions-override-not-string", definition(field("Id", "int32", flexibleVersions="none")),
     "$.fields[0] (Id)", "only string and bytes fields can override flexibleVersions"),
    ("zeroCopy-not-bytes", definition(field("Name", "string", zeroCopy=True)), "$.fields[0] (Name)",
     "zeroCopy is only valid on bytes fields"),
    ("entityType-mismatch", definition(field("Id", "int32", entityType="topicName")), "$.fields[0] (Id)",
     "entityType topicName needs type string (or an array of it), not int32"),
    ("entityType-array-mismatch", definition(field("Ids", "[]int64", entityType="brokerId")), "$.fields[0] (Ids)",
     "entityType brokerId needs type int32"),
    # --- tagged fields ----------------------------------------------------------------------
    ("tag-without-taggedVersions", definition(field("Id", "int32", "2+", tag=0)), "$.fields[0] (Id)",
     "tag 0 is given but no taggedVersions"),
    ("taggedVersions-without-tag", definition(field("Id", "int32", None, taggedVersions="2+")), "$.fields[0] (Id)",
     "taggedVersions 2+ are given but no tag"),
    ("tag-negative", definition(field("Id", "int32", None, taggedVersions="2+", tag=-1)), "$.fields[0] (Id)",
     "tag -1 must be between 0 and 2147483647"),
    ("tag-beyond-int32", definition(field("Id", "int32", None, taggedVersions="2+", tag=2**31)), "$.fields[0] (Id)",
     "tag 2147483648 must be between 0 and 2147483647"),
    ("tag-twice", definition(field("A", "int32", None, taggedVersions="2+", tag=0),
                             field("B", "int32", None, taggedVersions="2+", tag=0)),
     "$.fields[1] (B)", "in TestData, tag 0 is used by both A and B"),
    ("tags-not-contiguous", definition(field("A", "int32", None, taggedVersions="2+", tag=1)), "$",
     "in TestData, tags are not contiguous from 0: tag 0 is unused"),
    ("tagged-mapKey", definition(items(field("Key", "string", None, taggedVersions="2+", tag=0, mapKey=True))),
     "$.fields[0].fields[0] (Key)", "a tagged field cannot be a mapKey"),
    ("tagged-records", definition(field("Records", "records", None, taggedVersions="2+", tag=0)),
     "$.fields[0] (Records)", "a records field cannot be tagged"),
    ("taggedVersions-bounded", definition(field("Id", "int32", None, taggedVersions="2-3", tag=0)),
     "$.fields[0] (Id)", "taggedVersions 2-3 must be open-ended"),
    ("taggedVersions-outside-versions", definition(field("Id", "int32", "0-2", taggedVersions="2+", tag=0)),
     "$.fields[0] (Id)", "taggedVersions 2+ must lie inside versions 0-2"),
    ("taggedVersions-outside-flexibleVersions", definition(field("Id", "int32", None, taggedVersions="1+", tag=0)),
     "$.fields[0] (Id)", "taggedVersions 1+ must lie inside the flexibleVersions 2+"),
    ("taggedVersions-outside-field-flexibleVersions",
     definition(field("Name", "string", None, taggedVersions="2+", tag=0, flexibleVersions="3+")),
     "$.fields[0] (Name)", "taggedVersions 2+ must lie inside the flexibleVersions 3+"),
    ("tagged-partly-nullable", definition(field("Name", "string", None, taggedVersions="2+", tag=0,
                                                nullableVersions="3+")),
     "$.fields[0] (Name)", "nullableVersions 3+ cover only part of taggedVersions 2+"),
    # --- ranges that never apply --------------------------------------------------------------
    ("nullableVersions-never-apply", definition(field("Name", "string", "0-1", nullableVersions="2+")),
     "$.fields[0] (Name)", "nullableVersions 2+ never apply: the field only occurs in versions 0-1"),
    ("taggedVersions-never-apply", definition(field("Id", "int32", "0+", taggedVersions="5+", tag=0)),
     "$.fields[0] (Id)", "taggedVersions 5+ never apply: the field only occurs in versions 0-3"),
    ("flexibleVersions-override-never-applies", definition(field("Name", "string", "0-1", flexibleVersions="2+")),
     "$.fields[0] (Name)", "flexibleVersions 2+ never apply"),
    # --- mapKey -----------------------------------------------------------------------------
    ("mapKey-top-level", definition(field("Id", "int32", mapKey=True)), "$.fields[0] (Id)",
     "mapKey cannot be set on a top-level field"),
    # --- defaults ---------------------------------------------------------------------------
    ("default-int-not-a-number", definition(field("Id", "int32", default="many")), "$.fields[0] (Id)",
     "invalid default for int32: 'many' is not an integer"),
    ("default-int-python-only-syntax", definition(field("Id", "int32", default="1_000")), "$.fields[0] (Id)",
     "invalid default for int32: '1_000' is not an integer"),
    ("default-int-out-of-range", definition(field("Id", "int8", default="200")), "$.fields[0] (Id)",
     "invalid default for int8: 200 is out of range -128..127"),
    ("default-hex-out-of-range", definition(field("Id", "uint16", default="0x10000")), "$.fields[0] (Id)",
     "invalid default for uint16: 0x10000 is out of range 0..65535"),
    ("default-bool-invalid", definition(field("On", "bool", default="yes")), "$.fields[0] (On)",
     "invalid default for bool: 'yes'"),
    ("default-float-invalid", definition(field("Rate", "float64", default="fast")), "$.fields[0] (Rate)",
     "invalid default for float64: 'fast'"),
    ("default-uuid-not-base64url", definition(field("Id", "uuid", default="AAAA+AAAAAAAAAAAAAAAAA")),
     "$.fields[0] (Id)", "is not base64url"),
    ("default-uuid-wrong-length", definition(field("Id", "uuid", default="AAAA")), "$.fields[0] (Id)",
     "does not decode to 16 bytes"),
    ("default-bytes-not-empty", definition(field("Data", "bytes", default="abc")), "$.fields[0] (Data)",
     "invalid default for bytes: only empty or null are allowed"),
    ("default-array-not-empty", definition(field("Ids", "[]int32", default="[1]")), "$.fields[0] (Ids)",
     "invalid default for an array: only empty or null are allowed"),
    ("default-struct-not-empty", definition(field("Inner", "Inner", default="{}", fields=[ID])),
     "$.fields[0] (Inner)", "invalid default for a struct: only the empty struct or null are allowed"),
    ("default-null-on-int", definition(field("Id", "int32", default="null")), "$.fields[0] (Id)",
     "default null is not valid for type int32"),
    ("default-null-not-always-nullable", definition(field("Name", "string", default="null", nullableVersions="1+")),
     "$.fields[0] (Name)", "default is null but the field is not nullable in all its versions"),
]


@pytest.mark.parametrize(("raw", "path", "fragment"), [pytest.param(*case[1:], id=case[0]) for case in RULES])
def test_rule(raw: dict[str, Any], path: str, fragment: str) -> None:
    problems = problems_of(raw)
    assert len(problems) == 1, [str(p) for p in problems]
    problem = problems[0]
    assert problem.file == SOURCE
    assert problem.path == path
    assert fragment in problem.message
    assert "\n" not in str(problem)
    assert str(problem) == f"{SOURCE}: {path}: {problem.message}"


def test_rule_ids_are_unique() -> None:
    ids = [case[0] for case in RULES]
    assert len(ids) == len(set(ids))


# --- rules across files ---------------------------------------------------------------------

def metadata_record(name: str, api_key: int) -> dict[str, Any]:
    return definition(name=name, type="metadata", apiKey=api_key)


def api_message(name: str, mtype: str, api_key: int) -> dict[str, Any]:
    return definition(name=name, type=mtype, apiKey=api_key)


# (id, definitions in file order, index of the file the problem names, path, fragment)
CROSS_FILE_RULES = [
    ("message-name-twice", [definition(), definition(fields=[field("Other", "int8")])], 1, "$.name",
     "message TestData is also defined in"),
    ("metadata-apiKey-twice", [metadata_record("TopicRecord", 2), metadata_record("PartitionRecord", 2)], 1,
     "$.apiKey", "apiKey 2 of metadata PartitionRecord is already used by TopicRecord"),
    ("request-apiKey-twice", [api_message("FetchRequest", "request", 1), api_message("FetchV2Request", "request", 1)],
     1, "$.apiKey", "apiKey 1 of request FetchV2Request is already used by FetchRequest"),
    ("response-apiKey-twice", [api_message("FetchResponse", "response", 1),
                               api_message("FetchV2Response", "response", 1)],
     1, "$.apiKey", "apiKey 1 of response FetchV2Response is already used by FetchResponse"),
    ("request-response-names-differ", [api_message("FetchRequest", "request", 1),
                                       api_message("PollResponse", "response", 1)],
     1, "$.name", "name it FetchResponse"),
]


def write_definitions(directory: Path, raws: list[dict[str, Any]]) -> list[Path]:
    paths = []
    for i, raw in enumerate(raws):
        path = directory / f"{i:02d}_{raw['name']}.json"
        path.write_text(json.dumps(raw, indent=2))
        paths.append(path)
    return paths


@pytest.mark.parametrize(("raws", "culprit", "path", "fragment"),
                         [pytest.param(*case[1:], id=case[0]) for case in CROSS_FILE_RULES])
def test_cross_file_rule(tmp_path: Path, raws: list[dict[str, Any]], culprit: int, path: str, fragment: str) -> None:
    files = write_definitions(tmp_path, raws)
    for file in files:  # each file is valid on its own
        load_definitions([file])
    with pytest.raises(DefinitionError) as info:
        load_definitions([tmp_path])
    problems = info.value.problems
    assert len(problems) == 1, [str(p) for p in problems]
    assert problems[0].file == str(files[culprit])
    assert problems[0].path == path
    assert fragment in problems[0].message


def test_shared_apiKey_across_kinds_is_fine(tmp_path: Path) -> None:
    """A request, its response, a metadata record and coordinator records may share a number;
    coordinator records are numbered per coordinator (group, transaction, share), so two
    coordinator values with one apiKey can both be right."""
    write_definitions(tmp_path, [
        api_message("FetchRequest", "request", 1),
        api_message("FetchResponse", "response", 1),
        metadata_record("TopicRecord", 1),
        definition(name="OffsetKey", type="coordinator-key", apiKey=1, validVersions="0", flexibleVersions="none"),
        api_message("OffsetValue", "coordinator-value", 1),
        api_message("TransactionLogValue", "coordinator-value", 1),
    ])
    assert len(load_definitions([tmp_path])) == 6


def test_each_folder_is_its_own_apiKey_space(tmp_path: Path) -> None:
    """Kafka's storage module numbers its metadata records from 0, as the KRaft records are: one
    generator run per folder. kwire reads subfolders too, each an apiKey space; names stay unique."""
    write_definitions(tmp_path, [metadata_record("RegisterBrokerRecord", 0)])
    (tmp_path / "storage").mkdir()
    write_definitions(tmp_path / "storage", [metadata_record("RemoteLogSegmentMetadataRecord", 0)])
    assert [m.name for m in load_definitions([tmp_path])] == ["RegisterBrokerRecord", "RemoteLogSegmentMetadataRecord"]
    write_definitions(tmp_path / "storage", [metadata_record("RegisterBrokerRecord", 1)])  # 00_RegisterBrokerRecord
    with pytest.raises(DefinitionError, match="message RegisterBrokerRecord is also defined in"):
        load_definitions([tmp_path])


def test_every_problem_of_a_file_is_reported_at_once() -> None:
    raw = definition(field("Id", "int32", nullableVersions="0+"), field("Name", "string", zeroCopy=True),
                     validVersions="0+")
    problems = problems_of(raw)
    assert [p.path for p in problems] == ["$.validVersions", "$.fields[0] (Id)", "$.fields[1] (Name)"]
