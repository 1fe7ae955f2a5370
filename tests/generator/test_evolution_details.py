"""Details of check-compat and merge-versions that the evolution part's mutation sample left alive
(tests/README.md): the words a wire-layout finding uses for a tagged section, a renamed struct's
reason, common structs and an unstable latest version in a merge. The definitions are small ones
in Kafka's JSON format, as Kafka's own generator reads them (``latestVersionUnstable``,
``commonStructs``: tests/data/kafka-definitions)."""
from __future__ import annotations

import copy
import json

import pytest

from kwire.generator.definitions.errors import DefinitionError
from kwire.generator.definitions.loader import load_text
from kwire.generator.evolution.compat import compare_messages
from kwire.generator.evolution.history_merge import merge_and_prove


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
    of each side's section. Kills ``generator.evolution.compat.x__describe__mutmut_14`` ("(none)")."""
    from kwire.generator.evolution import compat

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
    """Kills ``generator.evolution.compat.xǁ_Comparisonǁcompare_fields__mutmut_59`` (the reason left out)."""
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
    ``generator.evolution.history_merge.x_merge_definitions__mutmut_137`` (common structs left as NEWER has them)."""
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


# --- release tables derived from a copy of Kafka's git history ----------------------------------------

MESSAGE_DIR = "clients/src/main/resources/common/message"
API_KEYS_JAVA = "clients/src/main/java/org/apache/kafka/common/protocol/ApiKeys.java"
# Kafka 2.7.0's ApiKeys.java, lines 244-245 and 451-456 (git show 2.7.0:<API_KEYS_JAVA>): the Raft
# APIs were defined but not enabled (the constructor's isEnabled false), and enabledApis() left them out.
KAFKA_270_API_KEYS = """\
    VOTE(52, "Vote", true, false,
        VoteRequestData.SCHEMAS, VoteResponseData.SCHEMAS),
    public static List<ApiKeys> enabledApis() {
        return Arrays.stream(values())
            .filter(api -> api.isEnabled)
            .collect(Collectors.toList());
    }
"""


def tagged_repository(tmp_path, files: dict[str, str]) -> str:
    """A bare-enough repository: one commit holding ``files``, tagged 9.9.0; its git dir."""
    import subprocess

    work = tmp_path / "kafka"
    for relative, text in files.items():
        (work / relative).parent.mkdir(parents=True, exist_ok=True)
        (work / relative).write_text(text)
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "defs"], check=True)
    subprocess.run([*git, "tag", "9.9.0"], check=True)
    return str(work / ".git")


def kafka_definition(name: str) -> str:
    from tests.paths import KAFKA_DEFINITIONS

    return (KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients" / name).read_text()


def test_an_api_kafkas_java_does_not_enable_is_left_out_and_says_why(tmp_path) -> None:
    """Kills ``generator.evolution.release_tables.x__derive_at__mutmut_50`` (``left_out`` under another key)
    and ``x_java_rules__mutmut_54`` (the disabled APIs dropped)."""
    from kwire.generator.evolution.release_tables import derive_from_git

    git_dir = tagged_repository(tmp_path, {
        f"{MESSAGE_DIR}/VoteRequest.json": kafka_definition("VoteRequest.json"),
        f"{MESSAGE_DIR}/ApiVersionsRequest.json": kafka_definition("ApiVersionsRequest.json"),
        API_KEYS_JAVA: KAFKA_270_API_KEYS})
    table = derive_from_git(git_dir, "9.9.0")
    assert [api["name"] for api in table["apis"]] == ["ApiVersions"]
    assert table["left_out"] == [
        {"key": 52, "name": "Vote", "why": f"not enabled in {API_KEYS_JAVA} (isEnabled false)"}]


def test_a_definition_that_does_not_load_is_named_by_its_tag_and_path(tmp_path) -> None:
    """Kills ``x__derive_at__mutmut_22`` (the definition's source name lost)."""
    from kwire.generator.evolution.release_tables import derive_from_git

    git_dir = tagged_repository(tmp_path, {f"{MESSAGE_DIR}/ThingRequest.json": '{"name": "ThingRequest"}'})
    with pytest.raises(DefinitionError) as refused:
        derive_from_git(git_dir, "9.9.0")
    assert str(refused.value).startswith(f"git:9.9.0:{MESSAGE_DIR}/ThingRequest.json: ")


def test_without_git_the_tables_say_git_cannot_run(tmp_path, monkeypatch) -> None:
    """Kills ``x__git__mutmut_19`` (the problem built without its path: a TypeError instead)."""
    from kwire.generator.evolution.release_tables import release_tags

    monkeypatch.setenv("PATH", str(tmp_path))  # no git on it
    with pytest.raises(DefinitionError, match=f"{tmp_path}: cannot run git: "):
        release_tags(str(tmp_path))
