"""``kwire merge-versions``: restore removed versions, proven, written once."""
from __future__ import annotations

import json

from kwire.cli.main import main
from kwire.generator.definitions.loader import load_file
from kwire.generator.evolution.compat import wire_layout
from tests.paths import KAFKA_DEFINITIONS

NEWER = KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients" / "FetchRequest.json"
OLDER = KAFKA_DEFINITIONS / "history" / "FetchRequest@771b9576b00e.json"


def test_merged_proven_and_written_once(tmp_path, capsys):
    out = tmp_path / "FetchRequest.json"
    assert main(["merge-versions", str(NEWER), str(OLDER), "--out", str(out)]) == 0
    assert "FetchRequest: v0-3 restored, v0-18 proven" in capsys.readouterr().out
    merged, older = load_file(out), load_file(OLDER, old_format=True)
    assert str(merged.valid_versions.lowest) == "0"
    assert wire_layout(merged, 0) == wire_layout(older, 0)
    assert main(["merge-versions", str(NEWER), str(OLDER), "--out", str(out)]) == 1  # refused, before the work
    assert f"kwire merge-versions: refused: {out} already exists (use --force to replace it)" in capsys.readouterr().err


def test_a_disagreement_is_refused_with_exit_1_and_nothing_written(tmp_path, capsys):
    tampered = tmp_path / "old.json"
    text = OLDER.read_text()
    tampered.write_text(text.replace('"name": "MaxWaitMs", "type": "int32"', '"name": "MaxWaitMs", "type": "int64"'))
    assert tampered.read_text() != text
    out = tmp_path / "merged.json"
    assert main(["merge-versions", str(NEWER), str(tampered), "--out", str(out), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["merged"] is False
    assert any(r.startswith(f"{out}: MaxWaitMs: v0: ") for r in report["refusals"])
    assert not out.exists()


def test_unreadable_input_exits_2(tmp_path, capsys):
    assert main(["merge-versions", str(tmp_path / "missing.json"), str(OLDER), "--out", str(tmp_path / "x")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_a_git_spec_needs_a_revision_and_a_path(tmp_path, capsys):
    """``git:REV:PATH`` with REV or PATH empty is bad usage, named as such before git is asked
    (kills ``merge_versions.x_read_text__mutmut_7``: an empty REV let through)."""
    for spec in ("git::message_defs/FetchRequest.json", "git:HEAD:", "git:HEAD"):
        assert main(["merge-versions", spec, str(OLDER), "--out", str(tmp_path / "x.json")]) == 2
        assert f"{spec}: expected git:REV:PATH" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_a_field_only_the_older_release_has_is_restored_and_said(tmp_path, capsys):
    newer = KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients" / "ListOffsetsResponse.json"
    older = KAFKA_DEFINITIONS / "history" / "ListOffsetsResponse@771b9576b00e.json"
    out = tmp_path / "ListOffsetsResponse.json"
    assert main(["merge-versions", str(newer), str(older), "--out", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        "  Topics.Partitions.OldStyleOffsets: only the older release has this field; restored at v0"]
    assert "Topics.Partitions.OldStyleOffsets (v0)" in out.read_text().splitlines()[2]
    merged = load_file(out)
    assert wire_layout(merged, 0) == wire_layout(load_file(older, old_format=True), 0)
    assert wire_layout(merged, 1) == wire_layout(load_file(newer), 1)
    again = tmp_path / "again.json"
    assert main(["merge-versions", str(newer), str(older), "--out", str(again), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["restoredFields"] == [
        {"field": "Topics.Partitions.OldStyleOffsets", "versions": "0"}]
