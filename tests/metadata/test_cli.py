"""``kwire metadata image`` and ``kwire metadata snapshot``: outputs, refusals, exit codes."""
from __future__ import annotations

import json
from collections import Counter

from kwire.cli.main import main as kwire_main
from kwire.logs.metadata_log import read_snapshot
from kwire.metadata.loader import load_image
from tests.metadata.appended import at_42_with_elr
from tests.paths import KRAFT_361, KRAFT_390

SNAPSHOT_361 = KRAFT_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint"


def test_image_text_and_json(capsys):
    assert kwire_main(["metadata", "image", str(KRAFT_361), "--until", "7111"]) == 0
    out = capsys.readouterr().out
    assert "snapshot 00000000000000007111-0000000001.checkpoint then the log" in out
    assert "metadata.version: 3.6-IV2 (level 14)" in out and "topics: 2 (51 partitions)" in out
    assert kwire_main(["metadata", "image", str(KRAFT_390), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["features"]["metadataVersion"] == {"level": 21, "name": "3.9-IV0"}
    assert [c["id"] for c in body["controllers"]] == [1]
    assert body["source"]["snapshot"] is None and body["provenance"]["lastOffset"] == 9800


def test_image_of_a_bad_path_is_exit_2(tmp_path, capsys):
    assert kwire_main(["metadata", "image", str(tmp_path / "nope")]) == 2
    assert "kwire metadata image:" in capsys.readouterr().err


def test_snapshot_at_the_images_level_is_kafkas_own(tmp_path, capsys):
    out = tmp_path / "snap.checkpoint"
    assert kwire_main(["metadata", "snapshot", str(KRAFT_361), "--until", "7111", "--from-log", "--out", str(out)]) == 0
    ours, kafka = read_snapshot(out), read_snapshot(SNAPSHOT_361)
    assert Counter(r.encode_value() for r in ours.records) == Counter(r.encode_value() for r in kafka.records)
    assert "wrote" in capsys.readouterr().out


def _refused_snapshot(capsys, source, level: str, out) -> str:
    """What kwire says when it refuses (exit 1, nothing written) a snapshot of ``source`` at ``level``."""
    assert kwire_main(["metadata", "snapshot", str(source), "--metadata-version", level, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "refused" in err and not out.exists()
    return err


def test_a_lossy_snapshot_is_refused_without_unsafe(tmp_path, capsys):
    err = _refused_snapshot(capsys, KRAFT_390, "3.6", tmp_path / "snap.checkpoint")
    assert ("would lose: Metadata has been lost because the following could not be represented in "
            "metadata.version 3.6-IV2: controller registration data") in err


def test_unsafe_writes_what_can_be_kept_into_a_directory(tmp_path, capsys):
    assert kwire_main(["metadata", "snapshot", str(KRAFT_390), "--metadata-version", "3.6-IV2", "--unsafe",
                       "--out", str(tmp_path) + "/", "--json"]) == 0
    outcome = json.loads(capsys.readouterr().out)
    path = tmp_path / "00000000000000009801-0000000013.checkpoint"
    assert outcome["written"] == str(path) and outcome["safeDowngradeRefused"] is True
    assert [loss["loss"] for loss in outcome["losses"]] == [
        "the online log directories of one or more brokers", "controller registration data",
        "the directory assignment state of one or more replicas"]
    image = load_image(path).image
    assert image.features.metadata_version == 14 and not image.cluster.controllers
    assert kwire_main(["dump", str(path)]) == 0


def test_dry_run_writes_nothing(tmp_path, capsys):
    assert kwire_main(["metadata", "snapshot", str(KRAFT_390), "--metadata-version", "3.8", "--dry-run"]) == 0
    assert "would write 61 records at metadata.version 3.8-IV0" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []
    # Kafka 4.2.1 writes no ZkMigrationStateRecord: one record fewer
    assert kwire_main(["metadata", "snapshot", str(KRAFT_390), "--metadata-version", "3.8", "--dry-run",
                       "--release", "4.2"]) == 0
    assert "would write 60 records at metadata.version 3.8-IV0" in capsys.readouterr().out


def test_bad_levels_and_releases_are_exit_2(tmp_path, capsys):
    args = ["metadata", "snapshot", str(KRAFT_390), "--dry-run"]
    assert kwire_main([*args, "--metadata-version", "9.9-IV9"]) == 2
    assert "kwire knows levels 1 (3.0-IV1) to" in capsys.readouterr().err
    assert kwire_main([*args, "--release", "3.6"]) == 2
    assert "Kafka 3.6 cannot write metadata.version 3.9-IV0" in capsys.readouterr().err
    assert kwire_main(["metadata", "snapshot", str(KRAFT_390)]) == 2
    assert "--out FILE is required" in capsys.readouterr().err


def test_a_downgrade_keeping_a_level_the_target_cannot_carry_is_refused(tmp_path, capsys):
    # Kafka 4.2.1's feature table: eligible.leader.replicas.version 1 depends on metadata.version 4.0-IV1
    # (level 23); at 3.9-IV0 it cannot be kept (Feature.validateVersion's words)
    data = at_42_with_elr(KRAFT_390, tmp_path / "data")
    out = tmp_path / "snap.checkpoint"
    err = _refused_snapshot(capsys, data, "3.9-IV0", out)
    assert ("eligible.leader.replicas.version level 1 (eligible.leader.replicas.version could not be set to 1 "
            "because it depends on metadata.version level 23): dropped (level 0)") in err
    assert kwire_main(["metadata", "snapshot", str(data), "--metadata-version", "3.9-IV0", "--unsafe",
                       "--out", str(out), "--json"]) == 0
    outcome = json.loads(capsys.readouterr().out)
    assert [(loss["kafkaWords"], loss["kafkaKeeps"]) for loss in outcome["losses"]
            if loss["loss"].startswith("eligible.leader.replicas.version")] == [(False, True)]
    image = load_image(out).image
    assert image.features.metadata_version == 21
    assert "eligible.leader.replicas.version" not in image.features.finalized
    # at 4.0-IV1 the level is kept
    assert kwire_main(["metadata", "snapshot", str(data), "--metadata-version", "4.0-IV1", "--dry-run",
                       "--json"]) == 0
    assert not [loss for loss in json.loads(capsys.readouterr().out)["losses"]
                if loss["loss"].startswith("eligible.leader.replicas.version")]


def _quorum_line(capsys) -> str:
    return next(line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("quorum:"))


def test_the_quorum_is_the_same_from_the_snapshot_and_from_the_log(capsys):
    # offsets below 7111: the 3.6.1 node's log has one LeaderChangeMessage there (epoch 1, offset 0),
    # which the snapshot 7111-1 does not carry; the quorum must not depend on where replay starts
    for args in ([], ["--from-log"]):
        assert kwire_main(["metadata", "image", str(KRAFT_361), "--until", "7111", *args]) == 0
        assert _quorum_line(capsys) == "quorum: kraft.version 0, static voters, leader 1 in epoch 1"
    bodies = []
    for args in ([], ["--from-log"]):
        assert kwire_main(["metadata", "image", str(KRAFT_361), "--until", "7111", "--json", *args]) == 0
        bodies.append(json.loads(capsys.readouterr().out)["quorum"])
    assert bodies[0] == bodies[1]


def test_quorum_state_tells_the_leader_the_cleaned_log_no_longer_has(tmp_path, capsys):
    import shutil

    data = tmp_path / "data"
    shutil.copytree(KRAFT_361, data)
    for segment in (data / "__cluster_metadata-0").glob("*.log"):
        segment.unlink()  # only the snapshot is left, as after Kafka cleaned the log
    assert kwire_main(["metadata", "image", str(data)]) == 0
    # quorum-state: {"leaderId":1,"leaderEpoch":5,...,"currentVoters":[{"voterId":1}]}
    assert _quorum_line(capsys) == "quorum: kraft.version 0, static voters, leader 1 in epoch 5 (quorum-state)"
    # a past offset is not what quorum-state describes
    assert kwire_main(["metadata", "image", str(data), "--until", "7111"]) == 0
    assert _quorum_line(capsys) == "quorum: kraft.version 0, static voters"
