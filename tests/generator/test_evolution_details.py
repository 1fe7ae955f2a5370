"""Details of check-compat and merge-versions that the evolution part's mutation sample left alive
(tests/README.md): the words a wire-layout finding uses for a tagged section, a renamed struct's
reason, common structs and an unstable latest version in a merge. The definitions are small ones
in Kafka's JSON format, as Kafka's own generator reads them (``latestVersionUnstable``,
``commonStructs``: tests/data/kafka-definitions)."""
from __future__ import annotations

import copy
import json

import pytest

from kwire.generator.compat import compare_messages
from kwire.generator.errors import DefinitionError
from kwire.generator.history_merge import merge_and_prove
from kwire.generator.loader import load_text


def model(raw: dict, source: str, *, old_format: bool = False):
    return load_text(json.dumps(raw), source, old_format=old_format)


def request(fields: list[dict], valid: str, *, common: list[dict] | None = None, **extra) -> dict:
    raw = {"apiKey": 90, "type": "request", "listeners": ["broker"], "name": "ThingRequest", "validVersions": valid,
           "flexibleVersions": "none", "fields": fields, **extra}
    if common is not None:
        raw["commonStructs"] = common
    return raw


def test_a_tagged_section_the_rules_miss_names_its_tags_or_none(monkeypatch) -> None:
    """With the rules by name silenced, the layout judge reports a removed tagged field by the tags
    of each side's section. Kills ``generator.compat.x__describe__mutmut_14`` ("(none)")."""
    from kwire.generator import compat

    monkeypatch.setattr(compat._Comparison, "compare_structs", lambda *args: None)
    old = {"apiKey": 90, "type": "metadata", "name": "ThingRecord", "validVersions": "0-1", "flexibleVersions": "0+",
           "fields": [{"name": "Id", "type": "int32", "versions": "0+"},
                      {"name": "Note", "type": "int32", "versions": "0+", "taggedVersions": "0+", "tag": 0}]}
    new = copy.deepcopy(old)
    del new["fields"][1]
    [finding] = compare_messages(model(old, "old.json"), model(new, "new.json"))
    assert (finding.rule, finding.versions) == ("wire-layout-changed", "0-1")
    assert finding.old.startswith("tagged fields tag 0") and finding.new.startswith("tagged fields (none)")


def test_a_renamed_struct_says_its_bytes_stay_and_its_class_is_renamed() -> None:
    """Kills ``generator.compat.xǁ_Comparisonǁcompare_fields__mutmut_59`` (the reason left out)."""
    old = request([{"name": "Topics", "type": "[]Topic", "versions": "0+",
                    "fields": [{"name": "Name", "type": "string", "versions": "0+"}]}], "0-3")
    new = copy.deepcopy(old)
    new["fields"][0]["type"] = "[]TopicEntry"
    [finding] = [f for f in compare_messages(model(old, "old.json"), model(new, "new.json"))
                 if f.rule == "struct-renamed"]
    assert finding.reason.endswith("are the same bytes (struct names are not encoded), but the generated class "
                                   "Topic is now TopicEntry")


def test_a_common_struct_gets_back_the_field_only_the_older_release_has() -> None:
    """A struct of ``commonStructs`` is merged as inline ones are: the older release's field comes
    back in the restored version, and the proof holds. Kills
    ``generator.history_merge.x_merge_definitions__mutmut_137`` (common structs left as NEWER has them)."""
    items = [{"name": "Items", "type": "[]Item", "versions": "0+"}]
    newer_raw = request(items, "1-2", common=[{"name": "Item", "versions": "0+", "fields": [
        {"name": "Size", "type": "int32", "versions": "0+"}]}])
    older_raw = request(items, "0-2", common=[{"name": "Item", "versions": "0+", "fields": [
        {"name": "Legacy", "type": "int16", "versions": "0"}, {"name": "Size", "type": "int32", "versions": "0+"}]}])
    raw, merged = merge_and_prove(newer_raw, model(newer_raw, "newer"), older_raw,
                                  model(older_raw, "older", old_format=True), "merged:ThingRequest")
    assert raw["validVersions"] == "0-2"
    [item] = raw["commonStructs"]
    assert [(f["name"], f["versions"]) for f in item["fields"]] == [("Legacy", "0"), ("Size", "0+")]


def test_an_older_releases_unstable_latest_version_is_not_restored() -> None:
    """Kafka's ``latestVersionUnstable``: the highest version is not released yet. An older release
    whose only version below the newer one's is that one has nothing to restore; one version more
    and the stable one comes back. Kills ``x_merge_definitions__mutmut_22`` (highest + 1)."""
    fields = [{"name": "Id", "type": "int32", "versions": "0+"}]
    newer_raw = request(fields, "3-4")
    newer = model(newer_raw, "newer")
    unstable = request(fields, "2", latestVersionUnstable=True)
    refusal = r"the older release \(none\) has no version below the newer one's \(3-4\)"
    with pytest.raises(DefinitionError, match=refusal):
        merge_and_prove(newer_raw, newer, unstable, model(unstable, "older", old_format=True), "merged:ThingRequest")
    stable_below = request(fields, "1-2", latestVersionUnstable=True)
    raw, _ = merge_and_prove(newer_raw, newer, stable_below, model(stable_below, "older", old_format=True),
                             "merged:ThingRequest")
    assert raw["validVersions"] == "1-4"
