"""``kwire features``: describe and judge feature changes offline against the real metadata logs.

The two test logs come from single combined nodes of Kafka 3.6.1 (metadata.version 3.6-IV2, its
broker registered metadata.version 1-14) and 3.9.0 (3.9-IV0; broker and controller registered
metadata.version 1-21 and kraft.version 0-1), so their controller judges with those ranges.
"""
from __future__ import annotations

import json

import pytest

from kwire.cli.main import main
from kwire.features.bootstrap import format_bootstrap, write_bootstrap
from tests.paths import KRAFT_361, KRAFT_390

PREFIX = "The update failed for all features since the following feature had an error: "


def run(capsys, *argv):
    code = main(["features", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_describe_the_3_9_log(capsys):
    code, out, _ = run(capsys, "describe", KRAFT_390)
    assert code == 0
    lines = out.splitlines()
    assert lines[:2] == [
        "Feature: kraft.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 0\tEpoch: 9800",
        "Feature: metadata.version\tSupportedMinVersion: 3.0-IV1\tSupportedMaxVersion: 3.9-IV0\t"
        "FinalizedVersionLevel: 3.9-IV0\tEpoch: 9800"]
    assert "Controller 1 supports: kraft.version 0-1, metadata.version 1-21 (3.0-IV1 to 3.9-IV0)" in lines


def test_describe_json_of_the_3_6_log(capsys):
    code, out, _ = run(capsys, "describe", KRAFT_361 / "__cluster_metadata-0", "--json")
    assert code == 0
    described = json.loads(out)
    assert described["metadataVersion"] == {"level": 14, "name": "3.6-IV2"}
    assert described["finalized"] == {"metadata.version": 14} and described["epoch"] == 18565
    assert described["brokers"] == {"1": {"metadata.version": [1, 14]}} and described["controllers"] == {}
    # no controller registers below 3.7-IV0: the combined node's broker registration is what it runs
    assert described["activeControllerSupportsFrom"] == "its broker registration"
    assert (described["activeController"], described["activeControllerFrom"]) == (1, "the log's leader")


def test_describe_names_only_nodes_that_exist(capsys, tmp_path):
    code, out, _ = run(capsys, "describe", KRAFT_361)
    assert code == 0 and out.splitlines()[-1] == (
        "Active controller: 1, from the log's leader (voters: 1; judges with broker 1's registration: no controller "
        "registered (controllers register from 3.7-IV0), and a combined node's broker registration says what it runs)")
    code, out, _ = run(capsys, "describe", KRAFT_390)
    assert out.splitlines()[-1] == ("Active controller: 1, from the log's leader (voters: 1; judges with its "
                                    "controller registration)")
    # a bootstrap file, and a snapshot kwire wrote elsewhere: no leader, no voter, no quorum-state
    snapshot = tmp_path / "written"
    assert main(["metadata", "snapshot", str(KRAFT_390), "--out", str(snapshot) + "/", "-q"]) == 0
    for source in (KRAFT_361 / "bootstrap.checkpoint", next(snapshot.iterdir())):
        code, out, _ = run(capsys, "describe", source)
        assert code == 0 and "Active controller: 0" not in out
        assert out.splitlines()[-1].startswith("Active controller: unknown: no leader in the log and no quorum-state")
        code, out, _ = run(capsys, "describe", source, "--json")
        assert json.loads(out)["activeController"] is None


def test_a_downgrade_across_a_metadata_change_is_refused(capsys):
    code, out, err = run(capsys, "downgrade", KRAFT_390, "--metadata", "3.6")
    assert code == 1
    # FeatureCommand.update (Kafka 4.2.1): "Could not" without --dry-run, the level as a number; the
    # count of failures is its TerseException, which kafka-features prints on stderr
    assert out.splitlines() == [
        "Could not downgrade metadata.version to 14. " + PREFIX + "Unsupported metadata.version downgrade "
        "from 21 to 14. Refusing to perform the requested downgrade because it might delete metadata information."]
    assert err.splitlines() == ["1 out of 1 operation(s) failed."]
    code, out, _ = run(capsys, "downgrade", KRAFT_390, "--metadata", "3.6", "--dry-run")
    assert code == 1 and out.startswith("Can not downgrade metadata.version to 14. " + PREFIX)
    code, out, _ = run(capsys, "downgrade", KRAFT_390, "--metadata", "3.6", "--unsafe")
    assert code == 1 and "Unsafe metadata downgrade is not supported in this version." in out


def test_a_safe_downgrade_and_its_record(capsys):
    code, out, _ = run(capsys, "downgrade", KRAFT_390, "--metadata", "3.8", "--json")
    assert code == 0
    verdict = json.loads(out)
    assert verdict["accepted"] and verdict["response"] == {"throttleTimeMs": 0, "errorCode": 0, "errorMessage": None}
    assert verdict["request"]["body"]["featureUpdates"] == [
        {"feature": "metadata.version", "maxVersionLevel": 20, "upgradeType": 2}]
    assert verdict["records"] == [{"name": "FeatureLevelRecord", "version": 0,
                                   "value": {"name": "metadata.version", "featureLevel": 20}}]


def test_dry_run_sends_validate_only(capsys):
    code, out, _ = run(capsys, "downgrade", KRAFT_390, "--metadata", "3.8", "--dry-run")
    assert code == 0
    # kafka-features' words for a dry run, then the records a real run would append (ValidateOnly appends none)
    assert out.splitlines() == ["metadata.version can be downgraded to 20.", "A real run would append:",
                                '  FeatureLevelRecord v0 {"name":"metadata.version","featureLevel":20}']
    code, out, _ = run(capsys, "downgrade", KRAFT_390, "--metadata", "3.8", "--dry-run", "--json")
    verdict = json.loads(out)
    assert verdict["records"] == [] and [r["value"]["featureLevel"] for r in verdict["wouldAppend"]] == [20]
    code, out, _ = run(capsys, "downgrade", KRAFT_390, "--metadata", "3.8")
    assert out.splitlines()[0] == "metadata.version was downgraded to 20."


def test_upgrade_beyond_what_the_nodes_run(capsys):
    code, out, err = run(capsys, "upgrade", KRAFT_390, "--release-version", "4.0")
    assert code == 1
    # kafka-features sends metadata.version with every default feature; the HashMap puts group.version first
    assert err.splitlines()[-1] == "4 out of 4 operation(s) failed."
    assert out.splitlines()[0] == ("Could not upgrade group.version to 1. " + PREFIX + "Invalid update version 1 "
                                   "for feature group.version. Local controller 1 does not support this feature.")


def test_v0_request_with_allow_downgrade(capsys):
    code, out, _ = run(capsys, "downgrade", KRAFT_390, "--metadata", "3.8", "--request-version", "0", "--json")
    assert code == 1
    verdict = json.loads(out)
    assert verdict["request"]["body"]["featureUpdates"][0]["allowDowngrade"] is True
    assert verdict["response"]["errorMessage"].endswith(
        "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe "
        "downgrade.")


def test_disable_and_upgrade_against_a_kafka_4_bootstrap(tmp_path, capsys):
    _, snapshot = format_bootstrap("4.2", timestamp=0)
    path = write_bootstrap(tmp_path, snapshot)
    code, out, _ = run(capsys, "disable", path, "--feature", "share.version")
    assert code == 0
    assert out.splitlines() == ["share.version was disabled.", "Records the controller appends:",
                                '  FeatureLevelRecord v0 {"name":"share.version","featureLevel":0}']
    code, out, _ = run(capsys, "upgrade", path, "--feature", "group.version=2")
    assert code == 1
    assert "Local controller 0 only supports versions 0-1" in out


@pytest.mark.parametrize("argv, message", [
    (["upgrade", KRAFT_390], "You must specify at least one feature to upgrade"),
    (["upgrade", KRAFT_390, "--release-version", "4.0", "--metadata", "4.0"],
     "Can not specify `release-version` with other feature flags."),
    (["upgrade", KRAFT_390, "--feature", "group.version=1", "--feature", "group.version=1"],
     "Feature group.version was specified more than once."),
    (["upgrade", KRAFT_390, "--metadata", "9.9"], "unknown metadata.version '9.9'"),
    (["describe"], "give either PATH or --bootstrap-server"),
    (["describe", KRAFT_390 / "nowhere"], "no such file or directory"),
    (["downgrade", KRAFT_390, "--metadata", "3.8", "--dry-run", "--request-version", "0"], "ValidateOnly came"),
])
def test_bad_usage(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err


def test_unstable_levels_are_reachable_with_unstable(tmp_path, capsys):
    # Kafka 4.2.1: MetadataVersion.fromFeatureLevel knows 30 (4.3-IV0, latestTesting()); only the
    # supported ranges keep it out, and unstable.feature.versions.enable lets a node support it
    _, snapshot = format_bootstrap("4.2", timestamp=0)
    path = write_bootstrap(tmp_path, snapshot)
    code, out, _ = run(capsys, "upgrade", path, "--feature", "metadata.version=30")
    assert code == 1 and out.splitlines() == [
        "Could not upgrade metadata.version to 30. " + PREFIX + "Invalid update version 30 for feature "
        "metadata.version. Local controller 0 only supports versions 7-29",
        "note: nothing names the active controller (no leader in the log, no quorum-state): 0 stands in for its id"]
    code, out, _ = run(capsys, "upgrade", path, "--feature", "metadata.version=30", "--unstable")
    assert code == 0 and out.splitlines() == [
        "metadata.version was upgraded to 30.", "Records the controller appends:",
        '  FeatureLevelRecord v0 {"name":"metadata.version","featureLevel":30}']
    # Kafka's test features are not PRODUCTION_FEATURES: no node supports them, unstable or not
    code, out, _ = run(capsys, "upgrade", path, "--feature", "test.feature.version=1", "--unstable")
    assert code == 1 and "Local controller 0 does not support this feature.\n" in out
