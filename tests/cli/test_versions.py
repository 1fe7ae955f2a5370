"""``kwire versions``: who added what, one release's table, and deriving the tables again."""
from __future__ import annotations

import json

import pytest

from kwire.cli.main import main
from kwire.network.releases import release_tables
from tests.paths import KAFKA_DEFINITIONS

KAFKA_421 = "18d5ecd939c8d510fdd72d0abb1f7099659dcd58"


def test_help_ends_with_examples(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["versions", "--help"])
    assert exit_.value.code == 0
    lines = capsys.readouterr().out.rstrip().splitlines()
    examples = [line for line in lines[lines.index("examples:") + 1:]]
    assert 1 <= len(examples) <= 3 and all(line.strip().startswith("kwire versions") for line in examples)


def test_who_added_what_for_one_api(capsys):
    assert main(["versions", "--api", "Fetch"]) == 0
    out = capsys.readouterr().out
    # Fetch v11 came with KIP-392 in 2.3.0, v12 with KIP-595's epochs in 2.7.0 (Kafka's definitions)
    assert "  v11  2.3.0\n" in out and "  v12  2.7.0\n" in out
    # v0-v3 were removed by KIP-896 (4.0): last spoken by 3.9.2, the newest 3.x
    assert "  v0   ≤2.2.0, last in 3.9.2\n" in out
    assert "Not covered: releases before 2.2.0" in out and "Not covered: releases after" not in out


def test_a_version_removed_and_spoken_again_names_the_release_without_it(capsys):
    # KIP-896 removed JoinGroup v0-1 in 4.0.0; KAFKA-19444 added them back in 4.0.1
    assert main(["versions", "--api", "JoinGroup"]) == 0
    out = capsys.readouterr().out
    assert "  v0   ≤2.2.0 (not in 4.0.0)\n" in out and "  v1   ≤2.2.0 (not in 4.0.0)\n" in out
    assert out.count("not in") == 2
    assert main(["versions", "--api", "JoinGroup", "--json"]) == 0
    versions = json.loads(capsys.readouterr().out)["apis"][0]["versions"]
    assert [v.get("not_in") for v in versions[:3]] == [["4.0.0"], ["4.0.0"], None]


def test_a_version_missing_from_the_release_before_the_newest_is_named_too():
    """Every release between the first and the last that spoke a version is looked at, the one just
    before the last included: the committed tables with JoinGroup v0-1 taken out of 4.2.0 name 4.0.0
    and 4.2.0 (kills ``versions.x_history_report__mutmut_89``: the range cut at the next-to-last)."""
    from importlib import resources

    from kwire.cli.commands.versions import history_report
    from kwire.network.releases import parse_tables

    raw = json.loads(resources.files("kwire.network").joinpath("release_versions.json").read_text())
    [newer] = [r for r in raw["releases"] if r["release"] == "4.2.0"]
    [join_group] = [api for api in newer["apis"] if api["key"] == 11]
    join_group["min"] = 2
    versions = history_report(parse_tables(raw), "JoinGroup")["apis"][0]["versions"]
    assert [v.get("not_in") for v in versions[:3]] == [["4.0.0", "4.2.0"], ["4.0.0", "4.2.0"], None]


def test_an_api_renamed_between_releases_names_its_former_name(capsys):
    # API 74 was ListClientMetricsResources (KIP-714, 3.7) until 4.1 renamed it ListConfigResources (KIP-1142)
    assert main(["versions", "--api", "74", "--json"]) == 0
    [api] = json.loads(capsys.readouterr().out)["apis"]
    assert api["name"] == "ListConfigResources"
    assert api["former_names"] == [{"name": "ListClientMetricsResources", "first": "3.7.0", "last": "4.0.2"}]
    assert main(["versions", "--api", "ListClientMetricsResources"]) == 2


def test_one_release_as_json(capsys):
    assert main(["versions", "--release", "3.6", "--api", "18", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    [table] = report["tables"]
    assert table["releases"] == ["3.6.0", "3.6.1", "3.6.2"]
    assert table["apis"] == [{"key": 18, "name": "ApiVersions", "min": 0, "max": 3,
                              "listeners": ["zkBroker", "broker", "controller"]}]


@pytest.mark.parametrize("argv, message", [
    (["versions", "--release", "9.9"], "no table for release '9.9'"),
    (["versions", "--api", "NoSuchApi"], "no API 'NoSuchApi'"),
    (["versions", "--out", "x.json"], "--derive-from and --out go together"),
    (["versions", "--derive-from", "/nonexistent", "--out", "x.json"], "cannot read from git"),
])
def test_bad_usage_exits_2(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_the_committed_4_2_1_table_is_what_its_definitions_give(tmp_path, capsys):
    # Derive from a one-tag repository (no release tag with definitions is an error) plus the
    # 4.2.1 folder; the 4.2.1 table written equals the committed one.
    import subprocess
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    out = tmp_path / "tables.json"
    argv = ["versions", "--derive-from", str(repo), "--out", str(out),
            "--release-folder", f"4.2.1={KAFKA_421}={KAFKA_DEFINITIONS / 'kafka-4.2.1' / 'clients'}"]
    assert main(argv) == 2
    assert "no release tag holds JSON definitions" in capsys.readouterr().err
    from kwire.generator.evolution.release_tables import derive_from_folder
    derived = derive_from_folder("4.2.1", str(KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients"), KAFKA_421, "")
    committed = release_tables().named("4.2.1")[0]
    assert {a["key"]: (a["name"], a["min"], a["max"], tuple(a["listeners"]) if "listeners" in a else None)
            for a in derived["apis"]} == committed.apis
    assert committed.commit == KAFKA_421


def _kafka_repository(tmp_path, messages: tuple[str, ...], commit_message: str, api_keys_java: str | None = None):
    """A git repository of one commit holding Kafka 4.2.1's definitions of ``messages`` (and, if given, an
    ApiKeys.java) where Kafka's tree has them: its folder, and the git command line that works in it."""
    import shutil
    import subprocess
    work = tmp_path / "kafka"
    message_dir = work / "clients/src/main/resources/common/message"
    message_dir.mkdir(parents=True)
    source = KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients"
    for name in messages:
        shutil.copy(source / f"{name}.json", message_dir / f"{name}.json")
    if api_keys_java is not None:
        java = work / "clients/src/main/java/org/apache/kafka/common/protocol/ApiKeys.java"
        java.parent.mkdir(parents=True)
        java.write_text(api_keys_java)
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", commit_message], check=True)
    return work, git


def test_deriving_from_a_tag_writes_its_table_and_refuses_to_replace_it(tmp_path, capsys):
    import subprocess
    work, git = _kafka_repository(tmp_path, ("FetchRequest", "FetchResponse", "ApiVersionsRequest",
                                             "ApiVersionsResponse"), "defs")
    for tag in ("9.9.0", "9.9.0-rc1"):  # a release candidate is no release
        subprocess.run([*git, "tag", tag], check=True)
    out = tmp_path / "tables.json"
    argv = ["versions", "--derive-from", str(work / ".git"), "--out", str(out)]
    assert main(argv) == 0
    data = json.loads(out.read_text())
    assert [r["release"] for r in data["releases"]] == ["9.9.0"]
    assert data["derived_by"].startswith("kwire versions --derive-from ")
    assert [(a["key"], a["name"], a["min"], a["max"]) for a in data["releases"][0]["apis"]] == [
        (1, "Fetch", 4, 18), (18, "ApiVersions", 0, 4)]
    capsys.readouterr()
    assert main(argv) == 2
    assert "already exists (use --force to replace it)" in capsys.readouterr().err
    assert main([*argv, "--force"]) == 0


def _repository_with_one_commit(tmp_path, api_keys_java: str | None):
    """A git repository whose one commit holds the 4.2.1 Produce and ApiVersions definitions (and,
    if given, an ApiKeys.java), no tag: as a release commit is in a copy of Kafka's history."""
    import subprocess
    work, git = _kafka_repository(tmp_path, ("ProduceRequest", "ProduceResponse", "ApiVersionsRequest",
                                             "ApiVersionsResponse"), "Bump version to 9.9.1", api_keys_java)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    return work / ".git", commit


# the two lines of Kafka 4.2.1's ApiKeys.java that make a broker advertise Produce from v0 (KAFKA-18659)
PRODUCE_RULE = ("    public static final short PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION = 0;\n"
                "        short oldestVersion = (this == PRODUCE && "
                "listenerType.map(l -> l == ApiMessageType.ListenerType.BROKER).orElse(false)) ?\n")


def test_a_release_commit_that_is_no_tag_gives_its_table_with_the_java_rules(tmp_path, capsys):
    git_dir, commit = _repository_with_one_commit(tmp_path, PRODUCE_RULE)
    out = tmp_path / "tables.json"
    tagged = tmp_path / "tagged"
    import subprocess
    subprocess.run(["git", "clone", "-q", "--bare", str(git_dir), str(tagged)], check=True)
    subprocess.run(["git", "--git-dir", str(tagged), "tag", "9.9.0", commit], check=True)
    argv = ["versions", "--derive-from", str(tagged), "--release-commit", f"9.9.1={commit}={git_dir}",
            "--out", str(out)]
    assert main(argv) == 0
    releases = {r["release"]: r for r in json.loads(out.read_text())["releases"]}
    assert releases["9.9.1"]["commit"] == commit
    assert releases["9.9.1"]["source"].startswith('commit "Bump version to 9.9.1 (')
    assert releases["9.9.1"]["advertised_min"] == [
        {"key": 0, "name": "Produce", "listener": "broker", "min": 0,
         "why": "PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION in clients/src/main/java/org/apache/kafka/common/protocol/"
                "ApiKeys.java (KAFKA-18659: advertised, but refused below the definition's lowest)"}]
    from kwire.network.releases import parse_tables
    [_, release] = parse_tables(json.loads(out.read_text())).releases
    assert release.apis[0][1:3] == (3, 13)
    assert release.advertised("broker")[0] == (0, 13)
    # a release given twice is refused, not written twice
    capsys.readouterr()
    assert main([*argv, "--force", "--release-commit", f"9.9.0={commit}={git_dir}"]) == 2
    assert "release 9.9.0 given more than once" in capsys.readouterr().err


def test_a_produce_rule_whose_listener_cannot_be_read_is_refused(tmp_path, capsys):
    import subprocess
    git_dir, commit = _repository_with_one_commit(tmp_path, PRODUCE_RULE.splitlines()[0] + "\n")
    subprocess.run(["git", "--git-dir", str(git_dir), "tag", "9.9.0", commit], check=True)
    argv = ["versions", "--derive-from", str(git_dir), "--release-commit", f"9.9.1={commit}={git_dir}",
            "--out", str(tmp_path / "tables.json")]
    assert main(argv) == 2
    assert "cannot tell on which listener" in capsys.readouterr().err
    assert not (tmp_path / "tables.json").exists()


@pytest.mark.parametrize("spec", ["9.9.1", "9.9.1=abc", "=abc=/x"])
def test_a_release_commit_needs_release_commit_and_git_dir(spec, capsys):
    assert main(["versions", "--derive-from", "/x", "--release-commit", spec, "--out", "x.json"]) == 2
    assert "expected RELEASE=COMMIT=GIT_DIR" in capsys.readouterr().err
