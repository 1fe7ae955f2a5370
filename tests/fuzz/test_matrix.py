"""Cross-version matrices: static classification vs. observation, directed searches, the work unit.

The five matrices the README shows are worked out here by hand from message_defs/, with the
reasoning in comments, and both the static classification and the fuzzing must agree with them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kwire import generated
from kwire.fuzz.directed import demonstrate
from kwire.fuzz.matrix import merge, outcome_of, run_cases, run_row
from kwire.fuzz.static import ABSENT, NULL, TAGS, classify, explains
from kwire.fuzz.sweep import check_cell, contradictions, sweep
from tests.paths import REPO

# --- hand-worked matrices ----------------------------------------------------------------------
# Each entry: (from, to) -> (losable fields, refusing fields); cells not listed are lossless.
# The rules applied by hand: a field the instance can set at `from` that `to` lacks is dropped
# when the definition marks it ignorable (lossy) and refused otherwise; fields both versions have
# survive. Unknown tagged fields are left out of conversions (see kwire.fuzz.matrix).

# ApiVersionsResponse 0-4: ErrorCode and ApiKeys are in every version. ThrottleTimeMs (1+) and
# the four tagged fields (3+: SupportedFeatures, FinalizedFeaturesEpoch, FinalizedFeatures,
# ZkMigrationReady) are all ignorable, so every down-conversion that loses them is lossy and none
# is refused. v3 -> v4 and back, and v1 <-> v2, have identical fields.
_TAGGED = {"supported_features", "finalized_features_epoch", "finalized_features", "zk_migration_ready"}
API_VERSIONS_RESPONSE = {
    (1, 0): ({"throttle_time_ms"}, set()),
    (2, 0): ({"throttle_time_ms"}, set()),
    (3, 0): ({"throttle_time_ms"} | _TAGGED, set()),
    (4, 0): ({"throttle_time_ms"} | _TAGGED, set()),
    (3, 1): (_TAGGED, set()), (3, 2): (_TAGGED, set()),
    (4, 1): (_TAGGED, set()), (4, 2): (_TAGGED, set()),
}

# UpdateFeaturesRequest 0-2: FeatureUpdateKey.AllowDowngrade is v0 only, UpgradeType (default 1)
# and ValidateOnly (default false) are 1+; none is ignorable. So v0 -> v1/v2 refuses a set
# AllowDowngrade, v1/v2 -> v0 refuses a non-default UpgradeType or ValidateOnly. v1 and v2 have
# the same fields (v2 changed only the response).
UPDATE_FEATURES_REQUEST = {
    (0, 1): (set(), {"feature_updates[].allow_downgrade"}),
    (0, 2): (set(), {"feature_updates[].allow_downgrade"}),
    (1, 0): (set(), {"feature_updates[].upgrade_type", "validate_only"}),
    (2, 0): (set(), {"feature_updates[].upgrade_type", "validate_only"}),
}

# DescribeQuorumResponse 0-2: v1 adds ReplicaState.LastFetchTimestamp and LastCaughtUpTimestamp
# (ignorable), used by both CurrentVoters and Observers. v2 adds the two ErrorMessage fields
# (ignorable), Nodes and ReplicaState.ReplicaDirectoryId (not ignorable). Up-conversions keep
# everything.
_TIMESTAMPS = {f"topics[].partitions[].{array}[].{name}" for array in ("current_voters", "observers")
               for name in ("last_fetch_timestamp", "last_caught_up_timestamp")}
_MESSAGES = {"error_message", "topics[].partitions[].error_message"}
_V2_ONLY = {"nodes", "topics[].partitions[].current_voters[].replica_directory_id",
            "topics[].partitions[].observers[].replica_directory_id"}
DESCRIBE_QUORUM_RESPONSE = {
    (1, 0): (_TIMESTAMPS, set()),
    (2, 1): (_MESSAGES, _V2_ONLY),
    (2, 0): (_MESSAGES | _TIMESTAMPS, _V2_ONLY),
}

# QuorumStateData 0-1: ClusterId, AppliedOffset and CurrentVoters (nullable in v0, so null is a
# non-default value too) exist only in v0; VotedDirectoryId only in v1; none is ignorable, so
# both directions refuse. LeaderId, LeaderEpoch and VotedId are common.
QUORUM_STATE_DATA = {
    (0, 1): (set(), {"cluster_id", "applied_offset", "current_voters"}),
    (1, 0): (set(), {"voted_directory_id"}),
}

# RegisterBrokerRecord 0-3: InControlledShutdown (1+), IsMigratingZkBroker (2+) and the tagged
# LogDirs (3+) are added in turn and none is ignorable: every up-conversion is lossless, every
# down-conversion refuses the fields the target lacks.
REGISTER_BROKER_RECORD = {
    (1, 0): (set(), {"in_controlled_shutdown"}),
    (2, 0): (set(), {"in_controlled_shutdown", "is_migrating_zk_broker"}),
    (2, 1): (set(), {"is_migrating_zk_broker"}),
    (3, 0): (set(), {"in_controlled_shutdown", "is_migrating_zk_broker", "log_dirs"}),
    (3, 1): (set(), {"is_migrating_zk_broker", "log_dirs"}),
    (3, 2): (set(), {"log_dirs"}),
}

HAND_WORKED = {
    "ApiVersionsResponse": API_VERSIONS_RESPONSE,
    "UpdateFeaturesRequest": UPDATE_FEATURES_REQUEST,
    "DescribeQuorumResponse": DESCRIBE_QUORUM_RESPONSE,
    "QuorumStateData": QUORUM_STATE_DATA,
    "RegisterBrokerRecord": REGISTER_BROKER_RECORD,
}


def _cells(name: str):
    low, high = generated.MESSAGES[name].VALID_VERSIONS
    return [(f, t) for f in range(low, high + 1) for t in range(low, high + 1)]


def _expected(name: str, f: int, t: int) -> tuple[str, set[str], set[str]]:
    losable, refusing = HAND_WORKED[name].get((f, t), (set(), set()))
    outcome = "refused" if refusing else "lossy" if losable else "lossless"
    return outcome, losable, refusing


@pytest.mark.parametrize("name", sorted(HAND_WORKED))
def test_static_classification_matches_the_hand_worked_matrix(name: str) -> None:
    cls = generated.MESSAGES[name]
    for f, t in _cells(name):
        static = classify(cls, f, t)
        outcome, losable, refusing = _expected(name, f, t)
        assert (static.outcome, set(static.losable), {p for p, _ in static.refusing}) == (outcome, losable, refusing), \
            f"{name} {f}->{t}"
        assert all(reason == ABSENT for _, reason in static.refusing)


@pytest.mark.parametrize("name", sorted(HAND_WORKED))
def test_fuzzing_observes_the_hand_worked_matrix(name: str) -> None:
    cls = generated.MESSAGES[name]
    low, high = cls.VALID_VERSIONS
    for f in range(low, high + 1):
        row = run_row(cls, f, list(range(low, high + 1)), seed=1, start=0, count=200)
        for cell in row:
            t = cell["to"]
            outcome, losable, _ = _expected(name, f, t)
            assert cell["failed"] == 0, cell["failures"]
            assert outcome_of(cell) == outcome, f"{name} {f}->{t}: {cell}"
            if outcome == "lossy":  # every losable field is seen lost, and nothing else
                assert set(cell["lost_fields"]) == losable, f"{name} {f}->{t}"
            else:  # refusals stop most lossy writes early; what is seen lost must still be listed
                assert set(cell["lost_fields"]) <= losable, f"{name} {f}->{t}"


@pytest.mark.parametrize("name", sorted(HAND_WORKED))
def test_directed_search_shows_each_hand_worked_field(name: str) -> None:
    cls = generated.MESSAGES[name]
    for (f, t), (losable, refusing) in HAND_WORKED[name].items():
        for path in losable:
            shown = demonstrate(cls, f, t, path)
            assert shown.shown, f"{name} {f}->{t} {path}: {shown.detail}"
            back = cls.decode(shown.instance.encode(t), t)
            assert back != shown.instance  # lost, and (from the search) only inside `path`
        for path in refusing:
            shown = demonstrate(cls, f, t, path, ABSENT)
            assert shown.shown and "UnsupportedVersionError" in shown.detail, f"{name} {f}->{t} {path}"


def test_a_down_conversion_drops_the_ignorable_field_byte_for_byte() -> None:
    """ApiVersionsResponse v3 -> v2, checked against bytes worked out by hand from the spec."""
    from kwire.generated.api_versions_response import ApiVersion, ApiVersionsResponse, SupportedFeatureKey

    response = ApiVersionsResponse(api_keys=[ApiVersion(api_key=18, min_version=0, max_version=4)],
                                   throttle_time_ms=7,
                                   supported_features=[SupportedFeatureKey(name="x", min_version=1, max_version=2)])
    # v2: int16 error 0, int32 count 1, (int16 18, int16 0, int16 4), int32 throttle 7; no tags
    assert response.encode(2) == bytes.fromhex("0000" "00000001" "0012" "0000" "0004" "00000007")
    back = ApiVersionsResponse.decode(response.encode(2), 2)
    assert back.supported_features == [] and back.throttle_time_ms == 7


# --- every shipped message: static never contradicts observation ---------------------------------

@pytest.mark.parametrize("name", sorted(generated.MESSAGES))
def test_static_classification_never_contradicts_fuzzing(name: str) -> None:
    cls = generated.MESSAGES[name]
    low, high = cls.VALID_VERSIONS
    versions = list(range(low, high + 1))
    for f in versions:
        for cell in run_row(cls, f, versions, seed=2, start=0, count=30):
            static = classify(cls, f, cell["to"])
            checked = check_cell(cls, static, cell)
            assert checked["contradictions"] == [], f"{name} {f}->{cell['to']}"
            unshown = {p: d["detail"] for p, d in checked["directed"].items() if not d["shown"]}
            assert unshown == {}, f"{name} {f}->{cell['to']}"


def test_unknown_tags_make_flexible_to_non_flexible_refused() -> None:
    """With unknown tags kept, ApiVersionsResponse v3 -> v2 is refused, as static predicts."""
    cls = generated.MESSAGES["ApiVersionsResponse"]
    static = classify(cls, 3, 2, unknown_tags=True)
    assert ("(unknown tags)", TAGS) in static.refusing
    assert ("api_keys[].(unknown tags)", TAGS) in static.refusing
    cell = run_cases("ApiVersionsResponse", 3, 2, seed=4, start=0, count=150, unknown_tags=True)
    assert outcome_of(cell) == "refused"
    assert any("cannot carry tagged fields" in r for r in cell["refusals"])
    assert contradictions(cls, static, cell) == []
    # flexible -> flexible keeps them
    cases = run_cases("ApiVersionsResponse", 3, 4, seed=4, start=0, count=150, unknown_tags=True)
    assert outcome_of(cases) == "lossless"


def test_contradictions_are_detected() -> None:
    """A static classification that misses a field is caught (so the check above can fail)."""
    from kwire.fuzz.static import StaticCell

    cls = generated.MESSAGES["ApiVersionsResponse"]
    cell = run_cases("ApiVersionsResponse", 3, 2, seed=0, start=0, count=100)
    wrong = StaticCell(3, 2, losable=("supported_features",))
    found = contradictions(cls, wrong, cell)
    assert any(text.startswith("zk_migration_ready was lost") for text in found)

    refused = run_cases("RegisterBrokerRecord", 3, 0, seed=0, start=0, count=100)
    missing = StaticCell(3, 0, refusing=(("log_dirs", ABSENT),))  # forgets two fields
    assert any("still refused" in text for text in contradictions(generated.MESSAGES["RegisterBrokerRecord"],
                                                                  missing, refused))
    assert any("refused but static says lossless" in text
               for text in contradictions(generated.MESSAGES["RegisterBrokerRecord"], StaticCell(3, 0), refused))


def test_explains_matches_whole_path_segments() -> None:
    assert explains("topics", "topics[].name")
    assert explains("nodes", "nodes")
    assert explains("replica_state", "replica_state.replica_id")
    assert not explains("topic", "topics[].name")


# --- the work unit is pure and splittable --------------------------------------------------------

def test_run_cases_is_repeatable_and_splits_into_mergeable_ranges() -> None:
    whole = run_cases("DescribeQuorumResponse", 2, 0, seed=9, start=10, count=90)
    assert whole == run_cases("DescribeQuorumResponse", 2, 0, seed=9, start=10, count=90)
    parts = [run_cases("DescribeQuorumResponse", 2, 0, seed=9, start=s, count=n)
             for s, n in ((10, 7), (17, 50), (67, 33))]
    assert merge(list(reversed(parts))) == whole
    cls = generated.MESSAGES["DescribeQuorumResponse"]
    row = run_row(cls, 2, [0, 1, 2], seed=9, start=10, count=90)
    assert row[0] == whole
    assert json.loads(json.dumps(whole)) == whole
    assert whole["refused"] and whole["lossy"] + whole["lossless"]


def test_run_cases_gives_the_same_result_in_another_process() -> None:
    """No hash seeds, clocks or machine state leak into results."""
    code = ("import json; from kwire.fuzz.matrix import run_cases; "
            "print(json.dumps(run_cases('ApiVersionsResponse', 4, 1, 5, 0, 80), sort_keys=True))")
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == run_cases("ApiVersionsResponse", 4, 1, 5, 0, 80)


def test_merge_refuses_gaps_and_different_cells() -> None:
    a = run_cases("QuorumStateData", 0, 1, seed=0, start=0, count=5)
    gap = run_cases("QuorumStateData", 0, 1, seed=0, start=6, count=5)
    other = run_cases("QuorumStateData", 1, 0, seed=0, start=5, count=5)
    with pytest.raises(ValueError, match="consecutive"):
        merge([a, gap])
    with pytest.raises(ValueError, match="different cells"):
        merge([a, other])


def test_sweep_passes_on_kafka_python_definitions(kp_generated) -> None:
    """Another generated package (108 upstream definitions, with nullability changes between versions)."""
    result = sweep(sorted(kp_generated.MESSAGES), package=kp_generated.__name__, seed=6, cases=10)
    problems = [(name, key, cell["contradictions"], cell["observed"]["failures"],
                 {p: d["detail"] for p, d in cell["directed"].items() if not d["shown"]})
                for name, message in result["messages"].items() for key, cell in message["cells"].items()
                if cell["contradictions"] or cell["observed"]["failed"]
                or not all(d["shown"] for d in cell["directed"].values())]
    assert problems == []
    assert result["summary"]["passed"]
    # the nullability rule is exercised: MetadataRequest.topics may be null from v1, not in v0
    refusing = result["messages"]["MetadataRequest"]["cells"]["1->0"]["static"]["refusing"]
    assert {"path": "topics", "reason": NULL} in refusing
