"""``kwire storage format``: the bootstrap file on disk, its refusals and exit codes."""
from __future__ import annotations

import json

from kwire.cli.main import main
from kwire.logs.metadata_log import read_snapshot
from tests.paths import KRAFT_390


def test_writes_the_records_of_the_real_3_9_file(tmp_path, capsys):
    assert main(["storage", "format", "--release-version", "3.9", "--out", str(tmp_path), "--timestamp", "0"]) == 0
    assert "Wrote" in capsys.readouterr().out
    ours, real = read_snapshot(tmp_path / "bootstrap.checkpoint"), read_snapshot(KRAFT_390 / "bootstrap.checkpoint")
    assert [r.encode_value() for r in ours.records] == [r.encode_value() for r in real.records]
    assert {b.entries[0].timestamp for b in ours.batches} == {0}


def test_json_dry_run_and_features(tmp_path, capsys):
    assert main(["storage", "format", "--metadata-version", "4.2", "--feature", "share.version=0", "--out",
                 str(tmp_path), "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["written"] is False and not (tmp_path / "bootstrap.checkpoint").exists()
    assert out["features"]["share.version"] == 0 and out["features"]["metadata.version"] == 29
    assert [r["name"] for r in out["records"]] == ["metadata.version", "eligible.leader.replicas.version",
                                                    "group.version", "streams.version", "transaction.version"]


def test_refusals_exit_1_and_bad_usage_2(tmp_path, capsys):
    assert main(["storage", "format", "--metadata-version", "3.9", "--feature",
                 "eligible.leader.replicas.version=1", "--out", str(tmp_path)]) == 1
    assert "depends on metadata.version level 23" in capsys.readouterr().err
    assert main(["storage", "format", "--out", str(tmp_path)]) == 0
    assert main(["storage", "format", "--out", str(tmp_path)]) == 1
    assert "already exists (use --force to replace it)" in capsys.readouterr().err
    assert main(["storage", "format", "--out", str(tmp_path), "--force", "--metadata-version", "14"]) == 0
    assert read_snapshot(tmp_path / "bootstrap.checkpoint").records[0].message.feature_level == 14
    try:
        main(["storage", "format", "--feature", "group.version", "--out", str(tmp_path)])
    except SystemExit as exit_:
        assert exit_.code == 2
    else:
        raise AssertionError("a feature without a level is bad usage")


def test_quiet_works_after_a_nested_sub_command(tmp_path, capsys):
    assert main(["storage", "format", "--out", str(tmp_path), "-q"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["features", "describe", str(tmp_path / "bootstrap.checkpoint"), "--quiet"]) == 0
    assert capsys.readouterr().out == ""


def test_levels_kafka_4_cannot_format_are_refused(tmp_path, capsys):
    for args in (["--metadata-version", "3.3-IV0"], ["--feature", "metadata.version=5"]):
        assert main(["storage", "format", *args, "--out", str(tmp_path)]) == 1
        err = capsys.readouterr().err
        assert "Unknown metadata.version '3.3-IV0'. Supported metadata.version are: 3.3-IV3, " in err or \
            "No MetadataVersion with feature level 5. Valid feature levels are from 7 to 30." in err
        assert not (tmp_path / "bootstrap.checkpoint").exists()
