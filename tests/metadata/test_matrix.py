"""The downgrade matrix of the two real test logs, worked out by hand.

What each log ends with (``kwire dump``, the fixtures' READMEs): the Kafka 3.6.1 node (3.6-IV2,
level 14) was shut down last, so its one broker is fenced and in controlled shutdown; it has no
controller registrations, no log directories, no SCRAM or delegation tokens. The Kafka 3.9.0 node
(3.9-IV0, level 21) was shut down too, and has a controller registration (RegisterControllerRecord),
a broker log directory (RegisterBrokerRecord v3) and partitions assigned to it (PartitionRecord v1).

Kafka's rules (MetadataVersion, 3.9.0): inControlledShutdown is kept from 3.3-IV3 (level 7),
controller registrations from 3.7-IV0 (15), log directories and directory assignments from
3.7-IV2 (17); a safe downgrade is refused across a level that changed the metadata, and of the
levels 17..21 only 17 did (so 21 -> 17..20 is allowed).
"""
from __future__ import annotations

import json

from kwire.cli.main import main as kwire_main
from kwire.metadata.matrix import downgrade_matrix, format_matrix
from tests.metadata.appended import at_42_with_elr
from tests.optional import need_module
from tests.paths import KRAFT_361, KRAFT_390

SNAPSHOT_361 = KRAFT_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint"
ICS = "the inControlledShutdown state of one or more brokers"
LOG_DIRS = "the online log directories of one or more brokers"
CONTROLLERS = "controller registration data"
ASSIGNMENTS = "the directory assignment state of one or more replicas"


def expected_361() -> dict[int, tuple[str, list[str]]]:
    cells = {level: ("lossy", [ICS]) for level in range(1, 7)}
    cells.update({level: ("refused", []) for level in range(7, 14)})
    return cells


def expected_390() -> dict[int, tuple[str, list[str]]]:
    cells = {level: ("lossy", [ICS, LOG_DIRS, CONTROLLERS, ASSIGNMENTS]) for level in range(1, 7)}
    cells.update({level: ("lossy", [LOG_DIRS, CONTROLLERS, ASSIGNMENTS]) for level in range(7, 15)})
    cells.update({level: ("lossy", [LOG_DIRS, ASSIGNMENTS]) for level in (15, 16)})
    cells.update({level: ("lossless", []) for level in range(17, 21)})
    return cells


def cells_of(row) -> dict[int, tuple[str, list[str]]]:
    return {c["level"]: (c["status"], [loss["loss"] for loss in c["losses"]]) for c in row["cells"]}


def test_the_matrix_of_the_two_real_logs():
    report = downgrade_matrix([KRAFT_361, KRAFT_390, SNAPSHOT_361])
    rows = report["images"]
    assert [(r["label"], r["metadataVersion"]["name"], r["release"]) for r in rows] == [
        ("kraft-renoagilsaputra-kafka", "3.6-IV2", "3.6"),
        ("kraft-ichwansh03-kafka-migration-log4j2", "3.9-IV0", "3.9"),
        ("00000000000000007111-0000000001.checkpoint", "3.6-IV2", "3.6")]
    assert cells_of(rows[0]) == expected_361()
    assert cells_of(rows[1]) == expected_390()
    # at offset 7111 the 3.6.1 node was running: nothing is lost anywhere, every downgrade is refused
    assert cells_of(rows[2]) == {level: ("refused", []) for level in range(1, 14)}
    assert {c["safeDowngrade"] for c in rows[1]["cells"] if c["level"] >= 17} == {"allowed"}
    assert report["summary"] == {"images": 3, "unreadable": 0, "lossless": 4, "refused": 20, "lossy": 22,
                                 "unsupported": 0}


def test_a_4x_writer_cannot_go_below_33_iv3():
    report = downgrade_matrix([KRAFT_390], release="4.0")
    statuses = {c["level"]: c["status"] for c in report["images"][0]["cells"]}
    assert {statuses[level] for level in range(1, 7)} == {"unsupported"}
    assert statuses[7] == "lossy"


def test_text_form_groups_levels_by_outcome():
    text = format_matrix(downgrade_matrix([KRAFT_390]))
    assert "  lossless: 3.7-IV2..3.8-IV0" in text
    assert f"    - {CONTROLLERS} (at 3.0-IV1..3.6-IV2)" in text


def test_the_command_writes_json_and_a_picture(tmp_path, capsys):
    need_module("matplotlib")  # the picture
    code = kwire_main(["metadata", "downgrade-matrix", str(KRAFT_361), str(KRAFT_390),
                       "--out", str(tmp_path / "m.json"), "--picture", str(tmp_path / "m.png")])
    assert code == 0
    report = json.loads((tmp_path / "m.json").read_text())
    assert cells_of(report["images"][1]) == expected_390()
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "kraft-ichwansh03-kafka-migration-log4j2: metadata.version 3.9-IV0" in capsys.readouterr().out


def test_an_unreadable_image_is_reported_and_the_others_still_count(tmp_path, capsys):
    broken = tmp_path / "__cluster_metadata-0"
    broken.mkdir()
    (broken / "00000000000000000000.log").write_bytes(b"\x00" * 10)  # not even one batch header
    code = kwire_main(["metadata", "downgrade-matrix", str(broken), str(KRAFT_390), "--out", str(tmp_path / "m.json")])
    assert code == 2
    report = json.loads((tmp_path / "m.json").read_text())
    assert "error" in report["images"][0] and cells_of(report["images"][1]) == expected_390()
    assert "kwire metadata downgrade-matrix:" in capsys.readouterr().err


def test_the_command_refuses_a_missing_path(tmp_path, capsys):
    assert kwire_main(["metadata", "downgrade-matrix", str(tmp_path / "nope")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_each_cell_carries_the_controllers_verdict_on_a_safe_downgrade():
    (row,) = downgrade_matrix([KRAFT_390])["images"]
    by_level = {c["level"]: c for c in row["cells"]}
    # from 3.3-IV3, the lowest level Kafka 4.2.1 runs, the verdict is the safe-downgrade rule's
    for level in range(7, 21):
        assert by_level[level]["controllerVerdict"]["accepted"] == (by_level[level]["safeDowngrade"] == "allowed")
    assert by_level[9]["controllerVerdict"]["message"].endswith(
        "Unsupported metadata.version downgrade from 21 to 9. Refusing to perform the requested downgrade "
        "because it might delete metadata information.")


def test_the_controllers_knowledge_comes_from_the_image():
    from kwire.metadata.cluster_features import cluster_features
    from kwire.metadata.loader import load_image

    state = cluster_features(load_image(KRAFT_390))
    ranges = {"metadata.version": (1, 21), "kraft.version": (0, 1)}  # RegisterBroker/ControllerRecord's features
    assert (state.metadata_version, state.brokers, state.controllers) == (21, {1: ranges}, {1: ranges})
    assert (state.quorum_node_ids, state.node_id, state.local_supported, state.epoch) == ((1,), 1, ranges, 9800)


def test_a_downgrade_below_a_feature_s_dependency_is_lossy(tmp_path):
    # eligible.leader.replicas.version 1 depends on metadata.version 4.0-IV1 (23) in Kafka 4.2.1's feature table
    data = at_42_with_elr(KRAFT_390, tmp_path / "data")
    row = downgrade_matrix([data])["images"][0]
    assert row["metadataVersion"]["name"] == "4.2-IV1"
    elr = {c["level"] for c in row["cells"]
           if any(loss["loss"].startswith("eligible.leader.replicas.version level 1") for loss in c["losses"])}
    assert elr == set(range(7, 23))  # a 4.2 writer writes from 3.3-IV3 (7)
    assert {c["status"] for c in row["cells"] if c["level"] in elr} == {"lossy"}
    assert {(loss["kafkaWords"], loss["kafkaKeeps"]) for c in row["cells"] for loss in c["losses"]
            if loss["loss"].startswith("eligible.leader.replicas.version")} == {(False, True)}


def test_images_with_one_directory_name_are_told_apart(tmp_path, capsys, monkeypatch):
    import shutil

    need_module("matplotlib")  # the picture
    import matplotlib.pyplot as plt

    first, second = tmp_path / "a" / "kafka-data", tmp_path / "b" / "kafka-data"
    shutil.copytree(KRAFT_390, first)
    shutil.copytree(KRAFT_361, second)
    shown = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig: (shown.extend(
        t.get_text().split("\n")[0] for t in fig.axes[0].get_yticklabels()), close(fig)))
    assert kwire_main(["metadata", "downgrade-matrix", str(first), str(second / "__cluster_metadata-0"),
                       "--out", str(tmp_path / "m.json"), "--picture", str(tmp_path / "m.png")]) == 0
    text = capsys.readouterr().out
    assert "a/kafka-data: metadata.version 3.9-IV0" in text and "b/kafka-data: metadata.version 3.6-IV2" in text
    report = json.loads((tmp_path / "m.json").read_text())
    assert [row["label"] for row in report["images"]] == ["a/kafka-data", "b/kafka-data"]
    assert shown == ["a/kafka-data", "b/kafka-data"]
