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
    # v0-v3 were removed by KIP-896 (4.0): last seen in 3.8.0 or a release after it kwire has no table for
    assert "  v0   ≤2.2.0, last in ≥3.8.0\n" in out
    assert "Not covered: releases after 3.8.0 and before 4.2.1" in out


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
    from kwire.generator.release_tables import derive_from_folder
    derived = derive_from_folder("4.2.1", str(KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients"), KAFKA_421, "")
    committed = release_tables().named("4.2.1")[0]
    assert {a["key"]: (a["name"], a["min"], a["max"], tuple(a["listeners"]) if "listeners" in a else None)
            for a in derived["apis"]} == committed.apis
    assert committed.commit == KAFKA_421


def test_deriving_from_a_tag_writes_its_table_and_refuses_to_replace_it(tmp_path, capsys):
    import shutil
    import subprocess
    work = tmp_path / "kafka"
    message_dir = work / "clients/src/main/resources/common/message"
    message_dir.mkdir(parents=True)
    source = KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients"
    for name in ("FetchRequest.json", "FetchResponse.json", "ApiVersionsRequest.json", "ApiVersionsResponse.json"):
        shutil.copy(source / name, message_dir / name)
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "defs"], check=True)
    for tag in ("9.9.0", "9.9.0-rc1"):  # a release candidate is no release
        subprocess.run([*git, "tag", tag], check=True)
    out = tmp_path / "tables.json"
    argv = ["versions", "--derive-from", str(work / ".git"), "--out", str(out)]
    assert main(argv) == 0
    data = json.loads(out.read_text())
    assert [r["release"] for r in data["releases"]] == ["9.9.0"]
    assert data["derived_by"].startswith("kwire versions --derive-from ")
    assert [(a["key"], a["name"], a["min"], a["max"]) for a in data["releases"][0]["apis"]] == [(1, "Fetch", 4, 18), (18, "ApiVersions", 0, 4)]
    capsys.readouterr()
    assert main(argv) == 2
    assert "already exists (use --force to replace it)" in capsys.readouterr().err
    assert main([*argv, "--force"]) == 0
