"""`kwire check-compat`: one minimal OLD/NEW pair per rule and per level, the evolutions Kafka makes
every release (which must pass), real revisions of Kafka's own definitions (the two in-place changes
to FeatureLevelRecord v0 must be flagged, the 2020 FetchResponse renaming and restructuring must
not be at the wire level), and the command line (files, directories, git revisions, --level,
--format, exit codes)."""
from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from kwire.cli.main import main
from kwire.generator.definitions.loader import load_text
from kwire.generator.evolution.compat import compare_messages, compare_sets, split_by_level, wire_layout
from tests import optional
from tests.conftest import kafka_python_definitions
from tests.paths import KAFKA_DEFINITIONS, REPO


def field(name: str, type_: str = "int32", versions: str = "0+", **extra) -> dict:
    return {"name": name, "type": type_, "versions": versions, **extra}


def tagged(name: str, tag: int, type_: str = "int32", versions: str = "0+", **extra) -> dict:
    return {"name": name, "type": type_, "versions": versions, "taggedVersions": versions, "tag": tag, **extra}


def definition(fields: list[dict], *, name: str = "ThingRecord", type_: str = "metadata", api_key: int | None = 90,
               valid: str = "0-3", flexible: str = "0+", **extra) -> dict:
    raw = {"name": name, "type": type_, "validVersions": valid, "flexibleVersions": flexible, "fields": fields, **extra}
    if api_key is not None:
        raw["apiKey"] = api_key
    return raw


def model(raw: dict, source: str):
    return load_text(json.dumps(raw), source)


def check(old: dict, new: dict):
    """Every finding, at every level."""
    return compare_messages(model(old, "old.json"), model(new, "new.json"))


def wire(old: dict, new: dict):
    """The findings that count at the wire level (the default)."""
    return split_by_level(check(old, new), "wire")[0]


def found(findings) -> set[tuple[str, str]]:
    return {(f.rule, f.path) for f in findings}


def only(findings, rule: str):
    hits = [f for f in findings if f.rule == rule]
    assert len(hits) == 1, findings
    return hits[0]


BASE = definition([field("Id"), field("Name", "string"), field("Count", "int64")])


def changed(**edits) -> dict:
    """BASE with top-level keys replaced."""
    raw = copy.deepcopy(BASE)
    raw.update(edits)
    return raw


# --- the evolutions Kafka makes all the time are accepted -------------------------------------------

def test_identical_definitions_are_compatible():
    assert check(BASE, copy.deepcopy(BASE)) == []


def test_new_version_with_new_fields_is_compatible():
    new = changed(validVersions="0-4", fields=BASE["fields"] + [field("Extra", "string", "4+"),
                                                                field("Weight", "int16", "4+", default="7")])
    assert check(BASE, new) == []


def test_new_tagged_field_in_existing_flexible_versions_is_compatible():
    new = changed(fields=BASE["fields"] + [tagged("Hint", 0, "string", "1+", nullableVersions="1+", default="null")])
    assert check(BASE, new) == []


def test_new_nullable_version_is_compatible():
    new = changed(validVersions="0-4",
                  fields=[field("Id"), field("Name", "string", nullableVersions="4+"), field("Count", "int64")])
    assert check(BASE, new) == []


def test_new_version_made_flexible_is_compatible():
    old = definition([field("Id"), field("Name", "string")], valid="0-1", flexible="none")
    new = definition([field("Id"), field("Name", "string")], valid="0-2", flexible="2+")
    assert check(old, new) == []


def test_changes_confined_to_new_versions_are_compatible():
    old = definition([field("Id"), field("Topics", "[]Topic", fields=[field("Name", "string")])], valid="0-1")
    new = definition([field("Id"), field("Topics", "[]Topic", fields=[field("Name", "string"),
                                                                      field("Size", "int32", "2+")])], valid="0-2")
    newer = copy.deepcopy(new)
    newer["fields"][1]["fields"][1]["type"] = "int64"  # Size only exists in the new version 2
    assert check(old, newer) == []


def test_struct_renamed_with_same_fields_is_compatible_on_the_wire_and_in_json():
    # struct names never reach the wire or the JSON form; only the generated class has the name
    old = definition([field("Topics", "[]Topic", fields=[field("Name", "string")])])
    new = definition([field("Topics", "[]TopicEntry", fields=[field("Name", "string")])])
    assert split_by_level(check(old, new), "json")[0] == []
    f = only(check(old, new), "struct-renamed")
    assert (f.level, f.path, f.old, f.new) == ("api", "Topics", "Topic", "TopicEntry")


def test_equal_defaults_in_other_spellings_are_compatible():
    old = definition([field("Flags", "int32", default="16"), field("Ok", "bool")])
    new = definition([field("Flags", "int32", default="0x10"), field("Ok", "bool", default="false")])
    assert check(old, new) == []


# --- message-level rules ----------------------------------------------------------------------------

def test_api_key_changed():
    f = only(check(BASE, changed(apiKey=91)), "api-key-changed")
    assert (f.path, f.old, f.new, f.versions) == ("", "90", "91", "0-3")


def test_message_type_changed():
    f = only(check(BASE, changed(type="coordinator-value")), "message-type-changed")
    assert (f.old, f.new) == ("metadata", "coordinator-value")


def test_raising_the_lowest_version_removes_versions():
    f = only(check(BASE, changed(validVersions="1-3")), "versions-removed")
    assert (f.versions, f.old, f.new) == ("0", "validVersions 0-3", "validVersions 1-3")


def test_lowering_the_highest_version_removes_versions():
    assert only(check(BASE, changed(validVersions="0-1")), "versions-removed").versions == "2-3"


def test_removing_deprecated_versions_is_compatible():
    old = changed(deprecatedVersions="0-1")
    assert check(old, changed(validVersions="2-3")) == []


def test_removing_more_than_the_deprecated_versions_flags_the_rest():
    old = changed(deprecatedVersions="0")
    assert only(check(old, changed(validVersions="2-3")), "versions-removed").versions == "1"


def test_flexible_versions_made_flexible_in_place():
    old = changed(flexibleVersions="none")
    f = only(check(old, changed(flexibleVersions="1+")), "flexible-versions-changed")
    assert (f.versions, f.old, f.new) == ("1-3", "flexibleVersions none", "flexibleVersions 1+")
    assert "non-flexible encoding" in f.reason


def test_flexible_versions_taken_back_in_place():
    f = only(check(BASE, changed(flexibleVersions="2+")), "flexible-versions-changed")
    assert f.versions == "0-1"
    assert "flexible encoding" in f.reason


def test_latest_unstable_request_version_may_still_change():
    old = definition([field("Id"), field("Size", "int32", "3+")], name="ThingRequest", type_="request",
                     api_key=1000, latestVersionUnstable=True)
    new = copy.deepcopy(old)
    new["fields"][1]["type"] = "int64"
    assert check(old, new) == []
    new["fields"][1]["versions"] = "2+"  # now reaches the stable v2 as well
    assert found(check(old, new)) == {("untagged-field-added", "Size")}


def test_message_renamed_in_place_is_an_api_finding():
    f = only(check(BASE, changed(name="ItemRecord")), "message-renamed")
    assert (f.level, f.old, f.new) == ("api", "ThingRecord", "ItemRecord")


def test_message_removed_from_a_set_and_new_message_accepted():
    a, b = model(BASE, "a.json"), model(definition([field("X")], name="OtherRecord", api_key=91), "b.json")
    c = model(definition([field("Y")], name="BrandNewRecord", api_key=92), "c.json")
    findings = compare_sets([a, b], [a, c])
    f = only(findings, "message-removed")
    assert (f.message, f.file, f.versions, f.new) == ("OtherRecord", "b.json", "0-3", "(absent)")


# --- field rules ------------------------------------------------------------------------------------

def test_field_removed_from_versions_it_had():
    new = changed(fields=[field("Id"), field("Name", "string", "0-1"), field("Count", "int64")])
    f = only(check(BASE, new), "field-removed")
    assert (f.path, f.versions, f.old, f.new) == ("Name", "2-3", "string (versions 0+)", "string (versions 0-1)")


def test_field_rename_is_a_json_finding_not_a_wire_one():
    new = changed(fields=[field("Id"), field("Title", "string"), field("Count", "int64")])
    assert wire(BASE, new) == []
    f = only(check(BASE, new), "field-renamed")
    assert (f.level, f.path, f.versions, f.old, f.new) == ("json", "Name", "0-3", "Name", "Title")
    assert '"title" instead of "name"' in f.reason


def test_tagged_field_renamed_under_its_tag_is_a_json_finding():
    old = changed(fields=BASE["fields"] + [tagged("Hint", 0)])
    new = changed(fields=BASE["fields"] + [tagged("Clue", 0)])
    [f] = check(old, new)
    assert (f.rule, f.level, f.old, f.new) == ("field-renamed", "json", "Hint", "Clue")


def test_two_fields_merged_into_one_are_not_taken_for_a_rename():
    old = changed(fields=[field("Id"), field("Low", "int16"), field("High", "int16")])
    new = changed(fields=[field("Id"), field("Level", "int16")])
    assert found(wire(old, new)) == {("field-removed", "Low"), ("field-removed", "High"),
                                     ("untagged-field-added", "Level")}


def test_rename_plus_type_change_is_a_removal_plus_an_addition():
    new = changed(fields=[field("Id"), field("Title", "int16"), field("Count", "int64")])
    findings = wire(BASE, new)
    assert found(findings) == {("field-removed", "Name"), ("untagged-field-added", "Title")}
    assert "Title was added at the same versions" in only(findings, "field-removed").reason
    # to bytes, in flexible versions: not a byte changes, so only the names count (json level)
    new = changed(fields=[field("Id"), field("Title", "bytes"), field("Count", "int64")])
    assert wire(BASE, new) == []
    assert found(check(BASE, new)) == {("field-removed", "Name"), ("untagged-field-added", "Title")}


def test_string_to_bytes_is_judged_by_the_bytes():
    # flexible versions: a compact string and compact bytes are both a varint length and the bytes
    new = changed(fields=[field("Id"), field("Name", "bytes"), field("Count", "int64")])
    assert wire(BASE, new) == []
    note = only(check(BASE, new), "field-type-changed")
    assert (note.level, note.versions) == ("json", "0-3")
    assert "compact string and compact bytes are spelled alike" in note.reason
    assert "base64" in note.reason and "str before and bytes after" in note.reason
    # non-flexible versions: a string's length is an int16, bytes' an int32: that breaks
    old = changed(flexibleVersions="2+")
    new = changed(flexibleVersions="2+", fields=[field("Id"), field("Name", "bytes"), field("Count", "int64")])
    findings = check(old, new)
    broken = [f for f in findings if f.level == "wire"]
    assert [(f.rule, f.versions) for f in broken] == [("field-type-changed", "0-1")]
    assert "an int16 length" in broken[0].reason and "an int32 length" in broken[0].reason
    assert [(f.rule, f.level, f.versions) for f in findings if f.level != "wire"] == [
        ("field-type-changed", "json", "2-3")]
    # bytes -> string: spelled alike when compact, but bytes already written need not be UTF-8
    back = {f.versions: f.reason for f in wire(new, old)}
    assert sorted(back) == ["0-1", "2-3"] and "not UTF-8" in back["2-3"] and "an int32 length" in back["0-1"]


def test_renamed_field_is_still_compared_inside():
    old = definition([field("Topics", "[]Topic", fields=[field("Name", "string"), field("Size")])])
    new = definition([field("Responses", "[]Topic", fields=[field("Name", "string"), field("Size", "int64")])])
    findings = check(old, new)
    assert found(findings) == {("field-renamed", "Topics"), ("field-type-changed", "Topics[].Size")}
    assert only(findings, "field-type-changed").level == "wire"


def test_removed_tagged_field_explains_the_lost_value():
    old = changed(fields=BASE["fields"] + [tagged("Hint", 0)])
    f = only(check(old, BASE), "field-removed")
    assert "tag 0" in f.reason and "unknown tag" in f.reason


def test_untagged_field_added_to_an_existing_version():
    new = changed(fields=BASE["fields"] + [field("Extra", "int8", "2+")])
    f = only(check(BASE, new), "untagged-field-added")
    assert (f.path, f.versions, f.old) == ("Extra", "2-3", "(absent)")


def test_field_extended_down_into_existing_versions_is_an_addition():
    old = changed(fields=BASE["fields"] + [field("Extra", "int8", "3+")])
    new = changed(fields=BASE["fields"] + [field("Extra", "int8", "1+")])
    assert only(check(old, new), "untagged-field-added").versions == "1-2"


def test_field_type_changed():
    new = changed(fields=[field("Id", "int64"), field("Name", "string"), field("Count", "int64")])
    f = only(check(BASE, new), "field-type-changed")
    assert (f.path, f.old, f.new, f.versions) == ("Id", "int32", "int64", "0-3")


def test_field_order_changed():
    new = changed(fields=[field("Name", "string"), field("Id"), field("Count", "int64")])
    f = only(check(BASE, new), "field-order-changed")
    assert (f.old, f.new) == ("Id, Name, Count", "Name, Id, Count")


def test_nullable_versions_shrunk():
    old = changed(fields=[field("Id"), field("Name", "string", nullableVersions="0+"), field("Count", "int64")])
    new = changed(fields=[field("Id"), field("Name", "string", nullableVersions="2+"), field("Count", "int64")])
    f = only(check(old, new), "nullable-versions-shrunk")
    assert (f.path, f.versions, f.old, f.new) == ("Name", "0-1", "nullableVersions 0+", "nullableVersions 2+")


def test_nullable_versions_grown_into_existing_versions():
    new = changed(fields=[field("Id"), field("Name", "string", nullableVersions="1+"), field("Count", "int64")])
    assert only(check(BASE, new), "nullable-versions-grown").versions == "1-3"


def test_struct_made_nullable_in_place_explains_the_presence_byte():
    old = definition([field("Leader", "Leader", fields=[field("Id")])])
    new = definition([field("Leader", "Leader", nullableVersions="0+", fields=[field("Id")])])
    assert "presence byte" in only(check(old, new), "nullable-versions-grown").reason


def test_default_changed_of_a_field_every_version_has_is_an_api_finding():
    old = changed(fields=[field("Id", default="-1"), field("Name", "string"), field("Count", "int64")])
    f = only(check(old, BASE), "default-changed")
    assert (f.level, f.path, f.old, f.new) == ("api", "Id", "-1", "(none)")
    assert "constructor" in f.reason


def test_default_changed_of_a_tagged_field_is_a_wire_finding():
    old = changed(fields=BASE["fields"] + [tagged("Hint", 0, default="5")])
    new = changed(fields=BASE["fields"] + [tagged("Hint", 0, default="6")])
    f = only(wire(old, new), "default-changed")
    assert (f.level, f.path, f.versions, f.old, f.new) == ("wire", "Hint", "0-3", "5", "6")
    assert "left off the wire" in f.reason


def test_default_changed_of_a_field_some_versions_lack_is_a_json_finding():
    old = changed(fields=BASE["fields"] + [field("Weight", "int16", "2+", default="7")])
    new = changed(fields=BASE["fields"] + [field("Weight", "int16", "2+", default="8")])
    assert wire(old, new) == []
    f = only(check(old, new), "default-changed")
    assert (f.level, f.versions, f.old, f.new) == ("json", "0-1", "7", "8")


def test_tag_renumbered():
    old = changed(fields=BASE["fields"] + [tagged("A", 0), tagged("B", 1)])
    new = changed(fields=BASE["fields"] + [tagged("A", 1), tagged("B", 0)])
    findings = check(old, new)
    assert {("tag-renumbered", "A"), ("tag-renumbered", "B")} <= found(findings)
    renumbered = [f for f in findings if f.rule == "tag-renumbered" and f.path == "A"][0]
    assert (renumbered.old, renumbered.new) == ("tag 0", "tag 1")


def test_tag_reused_by_another_field():
    old = changed(fields=BASE["fields"] + [tagged("A", 0)])
    new = changed(fields=BASE["fields"] + [tagged("B", 0, "string")])
    findings = check(old, new)
    assert found(findings) == {("field-removed", "A"), ("tag-reused", "B")}
    f = only(findings, "tag-reused")
    assert (f.old, f.new) == ("tag 0 = A (int32)", "tag 0 = B (string)")


def test_field_moved_between_tagged_and_untagged():
    new = changed(fields=[field("Id"), field("Name", "string"), tagged("Count", 0, "int64")])
    f = only(check(BASE, new), "tagged-versions-changed")
    assert (f.path, f.versions, f.old, f.new) == ("Count", "0-3", "taggedVersions none", "taggedVersions 0+")


def test_field_level_flexible_versions_changed():
    old = definition([field("ClientId", "string", flexibleVersions="none")], name="ThingHeader", type_="header",
                     api_key=None, valid="0-2", flexible="2+")
    new = definition([field("ClientId", "string")], name="ThingHeader", type_="header",
                     api_key=None, valid="0-2", flexible="2+")
    f = only(check(old, new), "flexible-versions-changed")
    assert (f.path, f.versions) == ("ClientId", "2")


# --- structs under fields: inline, nested, common ---------------------------------------------------

def nested(replicas_type: str) -> dict:
    partitions = field("Partitions", "[]Partition", fields=[field("Index"), field("Replicas", replicas_type)])
    return definition([field("Topics", "[]Topic", fields=[field("Name", "string"), partitions])])


def test_change_deep_inside_struct_arrays_is_reported_with_its_path():
    f = only(check(nested("[]int32"), nested("[]int64")), "field-type-changed")
    assert (f.path, f.old, f.new) == ("Topics[].Partitions[].Replicas", "[]int32", "[]int64")


def test_change_inside_a_plain_struct_field():
    old = definition([field("Leader", "Leader", fields=[field("Id"), field("Epoch")])])
    new = definition([field("Leader", "Leader", fields=[field("Id"), field("Epoch", "int64")])])
    assert found(check(old, new)) == {("field-type-changed", "Leader.Epoch")}


def with_common(name_type: str) -> dict:
    # The top level has a field named like the common struct's, unchanged: Kafka's checker compared
    # the top-level fields again instead of the common struct's and missed exactly this.
    return definition([field("Name", "string"), field("Items", "[]Item")],
                      commonStructs=[{"name": "Item", "versions": "0+", "fields": [field("Name", name_type)]}])


def test_common_struct_fields_are_compared_by_their_own_fields():
    f = only(check(with_common("string"), with_common("bytes")), "field-type-changed")
    assert f.path == "Items[].Name"


def test_struct_field_only_compared_at_versions_where_it_exists():
    old = definition([field("Id"), field("Leader", "Leader", "2+", fields=[field("Epoch")])])
    new = definition([field("Id"), field("Leader", "Leader", "2+", fields=[field("Epoch", "int32", "0-2")])])
    # Epoch now stops at v2; Leader only exists from v2, so v0-1 do not count: only v3 loses it
    f = only(check(old, new), "field-removed")
    assert (f.path, f.versions) == ("Leader.Epoch", "3")


# --- judged on the bytes: what changes names but not bytes -----------------------------------------

def test_about_ignorable_and_entity_type_are_no_finding_at_any_level():
    old = definition([field("Id", "int32", about="one"), field("Topic", "string", entityType="topicName")])
    new = definition([field("Id", "int32", about="two", ignorable=True), field("Topic", "string")])
    assert check(old, new) == []


PARTITION = [field("Index"), field("ErrorCode", "int16")]


def test_struct_inlined_in_non_flexible_versions_keeps_the_bytes():
    old = definition([field("Header", "Header", fields=PARTITION), field("Records", "bytes")], flexible="none")
    new = definition(PARTITION + [field("Records", "bytes")], flexible="none")
    assert ([kind for _, kind in wire_layout(model(old, "o"), 0)]
            == [kind for _, kind in wire_layout(model(new, "n"), 0)])
    assert wire(old, new) == []
    json_findings = split_by_level(check(old, new), "json")[0]
    assert found(json_findings) == {("field-removed", "Header"), ("untagged-field-added", "Index"),
                                    ("untagged-field-added", "ErrorCode")}
    assert "bytes are the same" in json_findings[0].reason


def test_struct_inlined_in_flexible_versions_changes_the_bytes():
    # a flexible struct ends with its own tagged section, so inlining it drops bytes
    old = definition([field("Header", "Header", fields=PARTITION), field("Records", "bytes")],
                     valid="0-3", flexible="2+")
    new = definition(PARTITION + [field("Records", "bytes")], valid="0-3", flexible="2+")
    findings = wire(old, new)
    assert findings and {f.versions for f in findings} == {"2-3"}
    assert {f.versions for f in check(old, new) if f.level == "json"} == {"0-1"}


def test_two_fields_of_one_type_swapped_are_a_wire_finding():
    # the layout's kinds agree, but v0-3 bytes written with A first would now be read as B
    old = changed(fields=[field("A"), field("B"), field("Count", "int64")])
    new = changed(fields=[field("B"), field("A"), field("Count", "int64")])
    f = only(wire(old, new), "field-order-changed")
    assert (f.versions, f.old, f.new) == ("0-3", "A, B, Count", "B, A, Count")


def test_two_tagged_fields_of_one_type_swapping_tags_are_a_wire_finding():
    old = changed(fields=BASE["fields"] + [tagged("A", 0), tagged("B", 1)])
    new = changed(fields=BASE["fields"] + [tagged("A", 1), tagged("B", 0)])
    assert found(wire(old, new)) == {("tag-renumbered", "A"), ("tag-renumbered", "B")}


def test_records_and_bytes_are_the_same_bytes():
    old = definition([field("Records", "bytes", nullableVersions="0+")])
    new = definition([field("Records", "records", nullableVersions="0+")])
    assert wire(old, new) == []
    assert only(check(old, new), "field-type-changed").level == "json"


def test_a_byte_change_no_rule_names_is_still_reported(monkeypatch):
    # The wire layout is the judge: were the rules by name to miss a change, it is reported anyway.
    from kwire.generator.evolution import compat
    monkeypatch.setattr(compat._Comparison, "compare_structs", lambda *args: None)
    new = changed(fields=[field("Id"), field("Name", "string"), field("Count", "int32")])
    [f] = check(BASE, new)
    assert (f.rule, f.level, f.path, f.versions) == ("wire-layout-changed", "wire", "Count", "0-3")
    assert (f.old, f.new) == ("int64 (Count)", "int32 (Count)")


# --- FeatureLevelRecord v0: the two in-place changes Kafka made ----------------------------------------

FEATURE_LEVEL_3_0 = definition([field("Name", "string"), field("MinFeatureLevel", "int16"),
                                field("MaxFeatureLevel", "int16")],
                               name="FeatureLevelRecord", api_key=12, valid="0", flexible="none")
FEATURE_LEVEL_KIP_746 = {**FEATURE_LEVEL_3_0, "flexibleVersions": "0+"}
FEATURE_LEVEL_KIP_778 = {**FEATURE_LEVEL_KIP_746, "fields": [field("Name", "string"), field("FeatureLevel", "int16")]}


def test_kip_746_made_feature_level_record_v0_flexible_in_place():
    f = only(check(FEATURE_LEVEL_3_0, FEATURE_LEVEL_KIP_746), "flexible-versions-changed")
    assert (f.message, f.versions, f.old, f.new) == ("FeatureLevelRecord", "0", "flexibleVersions none",
                                                     "flexibleVersions 0+")
    assert f.reason.startswith("v0 records already written use the non-flexible encoding")
    assert "tagged section" in f.reason


def test_kip_778_replaced_min_and_max_feature_level_in_place():
    findings = check(FEATURE_LEVEL_KIP_746, FEATURE_LEVEL_KIP_778)
    assert found(findings) == {("field-removed", "MinFeatureLevel"), ("field-removed", "MaxFeatureLevel"),
                               ("untagged-field-added", "FeatureLevel")}
    assert all(f.versions == "0" for f in findings)
    added = only(findings, "untagged-field-added")
    assert "MinFeatureLevel, MaxFeatureLevel were removed at the same versions" in added.reason


def test_feature_level_record_history_through_the_cli(tmp_path, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(FEATURE_LEVEL_3_0))
    new.write_text(json.dumps(FEATURE_LEVEL_KIP_778))
    assert main(["check-compat", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert (f"{new}: FeatureLevelRecord: flexible-versions-changed at v0: "
            "flexibleVersions none -> flexibleVersions 0+") in out
    assert f"{new}: FeatureLevelRecord.MinFeatureLevel: field-removed at v0: int16 (versions 0+) -> (absent)" in out
    assert "FeatureLevelRecord.FeatureLevel: untagged-field-added at v0" in out
    assert "4 incompatible changes" in out


# --- command line -----------------------------------------------------------------------------------

def write(path: Path, raw: dict | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(raw if isinstance(raw, str) else json.dumps(raw))
    return path


def test_cli_clean_pair_exits_0(tmp_path, capsys):
    old, new = write(tmp_path / "a.json", BASE), write(tmp_path / "b.json", BASE)
    assert main(["check-compat", str(old), str(new)]) == 0
    assert "0 incompatible changes (1 message checked)" in capsys.readouterr().out


def test_cli_json_lists_every_finding_field(tmp_path, capsys):
    old = write(tmp_path / "old.json", BASE)
    new = write(tmp_path / "new.json", changed(fields=[field("Id", "int64"), field("Name", "string"),
                                                       field("Count", "int64")]))
    assert main(["check-compat", "--json", str(old), str(new)]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert findings == [{
        "file": str(new), "old_file": str(old), "message": "ThingRecord", "path": "Id",
        "rule": "field-type-changed", "versions": "0-3", "old": "int32", "new": "int64",
        "reason": findings[0]["reason"], "level": "wire", "kind": "finding",
    }]
    assert "as int64" in findings[0]["reason"]


def test_cli_json_clean_is_an_empty_list(tmp_path, capsys):
    old, new = write(tmp_path / "a.json", BASE), write(tmp_path / "b.json", BASE)
    assert main(["check-compat", "--json", str(old), str(new)]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_cli_directories_match_messages_by_name(tmp_path, capsys):
    other = definition([field("X")], name="OtherRecord", api_key=91)
    write(tmp_path / "old" / "Thing.json", BASE)
    write(tmp_path / "old" / "Other.json", other)
    # file names differ on purpose: messages match by their name, not their file
    write(tmp_path / "new" / "renamed-file.json", changed(validVersions="1-3"))
    write(tmp_path / "new" / "Brand.json", definition([field("Y")], name="BrandNewRecord", api_key=92))
    assert main(["check-compat", "--json", str(tmp_path / "old"), str(tmp_path / "new")]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert {(f["message"], f["rule"]) for f in findings} == {("OtherRecord", "message-removed"),
                                                            ("ThingRecord", "versions-removed")}


@pytest.mark.parametrize("content", [None, "{ not json", json.dumps(definition([field("Id", "int33")]))],
                         ids=["missing", "bad-json", "invalid-definition"])
def test_cli_unreadable_input_exits_2(tmp_path, capsys, content):
    good = write(tmp_path / "good.json", BASE)
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    assert main(["check-compat", str(good), str(bad)]) == 2
    captured = capsys.readouterr()
    assert str(bad) in captured.err and captured.out == ""


# --- git:REV:PATH -------------------------------------------------------------------------------------

def git(cwd: Path, *argv: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false",
                    *argv], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A throw-away repository whose first commit holds defs/Thing.json = BASE."""
    optional.need_program("git")
    write(tmp_path / "defs" / "Thing.json", BASE)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "defs")
    git(tmp_path, "commit", "-q", "-m", "base")
    write(tmp_path / "defs" / "Thing.json", changed(flexibleVersions="1+"))  # the working copy moves on
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_cli_git_directory_against_working_copy(repo, capsys):
    assert main(["check-compat", "--json", "git:HEAD:defs", "defs"]) == 1
    [finding] = json.loads(capsys.readouterr().out)
    assert (finding["rule"], finding["old_file"], finding["file"]) == (
        "flexible-versions-changed", "git:HEAD:defs/Thing.json", "defs/Thing.json")


def test_cli_git_file_against_itself_is_clean(repo, capsys):
    assert main(["check-compat", "git:HEAD:defs/Thing.json", "git:HEAD:./defs/Thing.json"]) == 0


@pytest.mark.parametrize("spec", ["git:no-such-rev:defs", "git:HEAD:nowhere", "git:HEAD"])
def test_cli_unreadable_git_input_exits_2(repo, capsys, spec):
    assert main(["check-compat", spec, "defs"]) == 2
    assert spec in capsys.readouterr().err


def test_cli_a_git_path_that_is_a_submodule_is_neither_file_nor_directory(repo, capsys):
    """A submodule's entry is a gitlink, of type ``commit`` to ``git cat-file -t`` (kills
    ``check_compat.x_read_git__mutmut_58``: the reason left out)."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},sub")
    git(repo, "commit", "-q", "-m", "a gitlink")
    assert main(["check-compat", "git:HEAD:sub", "defs"]) == 2
    assert "git:HEAD:sub: HEAD:sub is a commit, not a file or directory" in capsys.readouterr().err


# --- real definition sets ---------------------------------------------------------------------------

def test_real_definitions_compared_with_themselves_are_clean(capsys):
    # 108 upstream definitions exercise every construct (common structs, tagged fields, nullable
    # structs, deprecated versions): a checker that flags an unchanged message is wrong.
    definitions = kafka_python_definitions()
    assert main(["check-compat", str(definitions), str(definitions)]) == 0


def test_kafka_python_definitions_against_ours_are_compatible(capsys):
    # kafka-python 3.0.12 ships Kafka's definitions of an older release; every change Kafka made
    # since is compatible by Kafka's own rules, so the checker must find nothing and exit 0.
    code = main(["check-compat", "--json", str(kafka_python_definitions()), str(REPO / "message_defs")])
    assert json.loads(capsys.readouterr().out) == []
    assert code == 0


# --- levels and formats on the command line -----------------------------------------------------------

RENAMED = changed(fields=[field("Id"), field("Title", "string"), field("Count", "int64")])


@pytest.mark.parametrize(("level", "code"), [("wire", 0), ("json", 1), ("api", 1)])
def test_cli_level_decides_whether_a_rename_counts(tmp_path, capsys, level, code):
    old, new = write(tmp_path / "old.json", BASE), write(tmp_path / "new.json", RENAMED)
    assert main(["check-compat", "--level", level, str(old), str(new)]) == code
    out = capsys.readouterr().out
    if code:
        assert f"{new}: ThingRecord.Name: field-renamed at v0-3: Name -> Title" in out
        assert "1 incompatible change (1 message checked)" in out
    else:
        assert f"note: {new}: ThingRecord.Name: field-renamed (json level) at v0-3: Name -> Title" in out
        assert "0 incompatible changes, 1 note (1 message checked)" in out


@pytest.mark.parametrize(("level", "code"), [("wire", 0), ("json", 0), ("api", 1)])
def test_cli_api_level_counts_a_struct_rename(tmp_path, capsys, level, code):
    old = write(tmp_path / "old.json", definition([field("Topics", "[]Topic", fields=[field("Name", "string")])]))
    new = write(tmp_path / "new.json", definition([field("Topics", "[]TopicData", fields=[field("Name", "string")])]))
    assert main(["check-compat", f"--level={level}", str(old), str(new)]) == code


def test_cli_json_format_marks_notes(tmp_path, capsys):
    old, new = write(tmp_path / "old.json", BASE), write(tmp_path / "new.json", RENAMED)
    assert main(["check-compat", "--format", "json", str(old), str(new)]) == 0
    [entry] = json.loads(capsys.readouterr().out)
    assert (entry["rule"], entry["level"], entry["kind"]) == ("field-renamed", "json", "note")


def test_cli_junit_has_one_test_case_per_message(tmp_path, capsys):
    write(tmp_path / "old" / "Thing.json", BASE)
    write(tmp_path / "old" / "Other.json", definition([field("X")], name="OtherRecord", api_key=91))
    write(tmp_path / "old" / "Third.json", definition([field("Z")], name="ThirdRecord", api_key=93))
    write(tmp_path / "new" / "Thing.json", changed(validVersions="1-3"))
    write(tmp_path / "new" / "Other.json", definition([field("Y")], name="OtherRecord", api_key=91))
    write(tmp_path / "new" / "Third.json", definition([field("Z")], name="ThirdRecord", api_key=93))
    assert main(["check-compat", "--format", "junit", str(tmp_path / "old"), str(tmp_path / "new")]) == 1
    root = ElementTree.fromstring(capsys.readouterr().out)
    [suite] = root.findall("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == {"ThingRecord", "OtherRecord", "ThirdRecord"}
    assert (suite.get("tests"), suite.get("failures")) == ("3", "1")
    failure = cases["ThingRecord"].find("failure")
    assert failure is not None and failure.get("type") == "versions-removed"
    assert "ThingRecord: versions-removed at v0" in failure.text
    assert cases["OtherRecord"].find("failure") is None  # X -> Y is a rename: a note at the wire level
    assert "field-renamed" in cases["OtherRecord"].find("system-out").text
    assert cases["ThirdRecord"].find("failure") is None and cases["ThirdRecord"].find("system-out") is None


# --- real revisions of Kafka's definitions -------------------------------------------------------------

HISTORY = KAFKA_DEFINITIONS / "history"


def revision(name: str) -> str:
    return str(HISTORY / f"{name}.json")


@pytest.mark.parametrize(("old", "new", "expected"), [
    # no flexibleVersions (2021-01) -> "none" written out (KAFKA-12877): the same definition
    ("FeatureLevelRecord@217334b0f412", "FeatureLevelRecord@135de5801eca", {"wire": 0, "json": 0, "api": 0}),
    # KIP-746 made v0 flexible in place
    ("FeatureLevelRecord@135de5801eca", "FeatureLevelRecord@f0bb85cee3b1", {"wire": 1, "json": 1, "api": 1}),
    # KIP-778 replaced MinFeatureLevel and MaxFeatureLevel with FeatureLevel in v0
    ("FeatureLevelRecord@f0bb85cee3b1", "FeatureLevelRecord@55ff5d360381", {"wire": 1, "json": 1, "api": 1}),
    # only an about text
    ("FeatureLevelRecord@55ff5d360381", "FeatureLevelRecord@19581effbf92", {"wire": 0, "json": 0, "api": 0}),
    # KAFKA-9629 renamed fields and introduced a PartitionHeader struct: no byte changed
    ("FetchResponse@0de61a4683b9", "FetchResponse@4cd2396db314", {"wire": 0, "json": 1, "api": 1}),
    # and inlined PartitionHeader again two weeks later: no byte changed either
    ("FetchResponse@4cd2396db314", "FetchResponse@0f3622cc092b", {"wire": 0, "json": 1, "api": 1}),
])
def test_real_kafka_revisions_at_every_level(capsys, old, new, expected):
    for level, code in expected.items():
        assert main(["-q", "check-compat", "--level", level, revision(old), revision(new)]) == code, level
    capsys.readouterr()


def test_kip_746_and_kip_778_as_kafka_wrote_them(capsys):
    assert main(["check-compat", "--json", revision("FeatureLevelRecord@217334b0f412"),
                 revision("FeatureLevelRecord@19581effbf92")]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert {(f["rule"], f["path"], f["versions"]) for f in findings} == {
        ("flexible-versions-changed", "", "0"), ("field-removed", "MinFeatureLevel", "0"),
        ("field-removed", "MaxFeatureLevel", "0"), ("untagged-field-added", "FeatureLevel", "0")}
    assert all(f["kind"] == "finding" and f["level"] == "wire" for f in findings)


def test_fetch_response_restructuring_is_renames_and_json_changes(capsys):
    assert main(["check-compat", "--json", revision("FetchResponse@0de61a4683b9"),
                 revision("FetchResponse@0f3622cc092b")]) == 0
    notes = json.loads(capsys.readouterr().out)
    assert all(n["kind"] == "note" and n["level"] == "json" for n in notes)
    renamed = {(n["old"], n["new"]) for n in notes if n["rule"] == "field-renamed"}
    assert {("Topics", "Responses"), ("Partitions", "PartitionResponses"), ("Name", "Topic")} <= renamed
