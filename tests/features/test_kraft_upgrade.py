"""kraft.version=1 as Kafka 4.2.1's raft leader judges it (``LeaderState.maybeAppendUpgradedKRaftVersion``).

The messages are its format strings, filled in by hand ("Invalid upgrade of %s to %s because not all
of the voters support it" with ``KRaftVersion.FEATURE_NAME`` and the enum's name); the controller
returns them as INVALID_UPDATE_VERSION (95) behind ``FeatureControlManager``'s prefix.
"""
from __future__ import annotations

import json

from kwire.cli.main import main
from kwire.features.update_features import ClusterFeatures, judge_update_features, update_request
from kwire.wire.uuids import uuid_from_text
from tests.paths import KRAFT_390

PREFIX = "The update failed for all features since the following feature had an error: "
KAFKA_421 = {"metadata.version": (7, 29), "kraft.version": (0, 1), "transaction.version": (0, 2),
             "group.version": (0, 1), "eligible.leader.replicas.version": (0, 1), "share.version": (0, 1),
             "streams.version": (0, 1)}
NOT_ALL = PREFIX + "Invalid upgrade of kraft.version to KRAFT_VERSION_1 because not all of the voters support it"
DIR2, DIR3 = uuid_from_text("nKF6yzhxS-2F12yYx2aYRw"), uuid_from_text("ANbHvzbFTM6KJXvFvFmVnA")


def static_quorum(**fields) -> ClusterFeatures:
    """Three registered 4.2.1 controllers in a static quorum at kraft.version 0, controller 1 leading."""
    fields.setdefault("kraft_version", 0)
    return ClusterFeatures(metadata_version=29, controllers={c: dict(KAFKA_421) for c in (1, 2, 3)},
                           quorum_node_ids=(1, 2, 3), node_id=1, **fields)


def upgrade(state, validate_only=False):
    return judge_update_features(state, update_request({"kraft.version": 1}, validate_only=validate_only), 2)


def test_static_voters_that_never_sent_update_raft_voter_refuse_the_upgrade():
    verdict = upgrade(static_quorum())
    assert (verdict.response.error_code, verdict.response.error_message) == (95, NOT_ALL)
    assert verdict.records == [] and verdict.refused_feature == "kraft.version"
    assert any("voter(s) 2, 3 had not sent UpdateRaftVoter" in note for note in verdict.notes)


def test_one_voter_missing_is_enough_to_refuse():
    verdict = upgrade(static_quorum(updated_voters={2: (DIR2, (0, 1))}))
    assert verdict.response.error_message == NOT_ALL


def test_a_voter_reporting_kraft_version_0_only_refuses_it():
    verdict = upgrade(static_quorum(updated_voters={2: (DIR2, (0, 1)), 3: (DIR3, (0, 0))}))
    assert verdict.response.error_message == NOT_ALL


def test_a_voter_whose_range_starts_at_the_new_level_supports_it_and_one_past_it_does_not():
    """Both ends of a voter's range count, as ``SupportedVersionRange.isIncompatibleWith`` reads them
    (``min() > version || max() < version``): a voter reporting 1-1 supports kraft.version 1, one
    reporting 2-2 does not (kills ``kraft_upgrade.x_judge_kraft_upgrade__mutmut_27``: ``low < level``)."""
    assert upgrade(static_quorum(updated_voters={2: (DIR2, (1, 1)), 3: (DIR3, (0, 1))})).accepted
    assert upgrade(static_quorum(updated_voters={2: (DIR2, (2, 2)), 3: (DIR3, (0, 1))})).response.error_message \
        == NOT_ALL


def test_every_voter_updated_accepts_and_the_controller_appends_a_no_op():
    verdict = upgrade(static_quorum(updated_voters={2: (DIR2, (0, 1)), 3: (DIR3, (0, 1))}))
    assert verdict.accepted and [r.name for r in verdict.records] == ["NoOpRecord"]
    assert verdict.response.error_message is None


def test_already_at_kraft_version_1_is_a_no_op_for_the_leader():
    state = static_quorum(kraft_version=1, raft_voters={1: (DIR2, (0, 1)), 2: (DIR2, (0, 0))})
    assert upgrade(state).accepted  # persistedVersion == newVersion: the leader returns at once


def test_voters_from_the_log_at_kraft_version_1_are_not_reconsidered_for_level_1():
    state = static_quorum(kraft_version=1, raft_voters={1: (DIR2, (0, 1))})
    assert upgrade(state).accepted


def test_cli_on_a_real_single_voter_3_9_node(capsys):
    # its only voter is the leader (node 1), whose own entry the leader always updates
    assert main(["features", "upgrade", str(KRAFT_390), "--feature", "kraft.version=1", "--dry-run"]) == 0
    assert capsys.readouterr().out.startswith("kraft.version can be upgraded to 1.")


def test_the_leaders_own_entry_is_always_itself():
    # an UpdateRaftVoter naming the leader does not replace the leader's own node in the upgrade state
    assert upgrade(static_quorum(updated_voters={1: (DIR2, (0, 0)), 2: (DIR2, (0, 1)), 3: (DIR3, (0, 1))})).accepted


def test_cli_updated_voter_flag(tmp_path, capsys):
    assert main(["features", "upgrade", str(KRAFT_390), "--feature", "kraft.version=1", "--updated-voter",
                 "7:nKF6yzhxS-2F12yYx2aYRw:0-0", "--json"]) == 0  # not a voter of this quorum: no effect
    out = json.loads(capsys.readouterr().out)
    assert (out["response"]["errorCode"], out["response"]["errorMessage"]) == (0, None)
    assert main(["features", "upgrade", str(KRAFT_390), "--feature", "kraft.version=1", "--updated-voter",
                 "one:x"]) == 2
    assert "--updated-voter: expected ID:DIRECTORY_ID[:MIN-MAX]" in capsys.readouterr().err
