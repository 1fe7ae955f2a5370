"""release_range: the releases whose brokers advertise what an ApiVersions response lists.

The independent witness is kafka-python 3's ``BROKER_API_VERSIONS``: ApiVersions tables its
maintainers copied from real Kafka brokers of each minor release (ZooKeeper-mode brokers up to 3.9,
KRaft brokers from 4.0, its test servers). kwire's tables come from Kafka's definitions and Java
code at each release's commit; the two must agree release by release.
"""
from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from kwire.network.framing import parse_response_frame
from kwire.network.releases import ApiVersionsInputError, parse_tables, release_range, release_tables
from tests.optional import later
from tests.paths import CAPTURES

BROKER_API_VERSIONS = later("kafka.protocol.broker_version_data", "BROKER_API_VERSIONS")

# every minor release whose patch releases all advertise the same (4.0 is apart: see below)
COVERED_MINORS = [(2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 7), (2, 8), (3, 0), (3, 1), (3, 2), (3, 3),
                  (3, 4), (3, 5), (3, 6), (3, 7), (3, 8), (3, 9), (4, 1), (4, 2)]

# Apache Kafka's releases from the first with JSON definitions to the one kwire ships (kafka.apache.org
# downloads); the data must have a table for each, and no gap between them
RELEASES = ["2.2.0", "2.2.1", "2.2.2", "2.3.0", "2.3.1", "2.4.0", "2.4.1", "2.5.0", "2.5.1", "2.6.0", "2.6.1",
            "2.6.2", "2.6.3", "2.7.0", "2.7.1", "2.7.2", "2.8.0", "2.8.1", "2.8.2", "3.0.0", "3.0.1", "3.0.2",
            "3.1.0", "3.1.1", "3.1.2", "3.2.0", "3.2.1", "3.2.2", "3.2.3", "3.3.0", "3.3.1", "3.3.2", "3.4.0",
            "3.4.1", "3.5.0", "3.5.1", "3.5.2", "3.6.0", "3.6.1", "3.6.2", "3.7.0", "3.7.1", "3.7.2", "3.8.0",
            "3.8.1", "3.9.0", "3.9.1", "3.9.2", "4.0.0", "4.0.1", "4.0.2", "4.1.0", "4.1.1", "4.1.2", "4.2.0",
            "4.2.1"]


def triples(table: dict[int, tuple[int, int]]) -> list[tuple[int, int, int]]:
    return [(key, low, high) for key, (low, high) in table.items()]


@pytest.mark.parametrize("minor", COVERED_MINORS, ids=lambda m: "{}.{}".format(*m))
def test_a_real_broker_of_each_covered_minor_matches_exactly_that_minor(minor):
    match = release_range(triples(BROKER_API_VERSIONS[minor]))
    prefix = "{}.{}.".format(*minor)
    expected = [r.name for r in release_tables().releases if r.name.startswith(prefix)]
    assert [name for name, _ in match.releases] == expected, str(match)
    assert match.ranges == ((expected[0] if len(expected) == 1 else f"{expected[0]}–{expected[-1]}"),)


def test_every_release_from_2_2_0_to_4_2_1_has_a_table_and_only_older_ones_are_not_covered():
    tables = release_tables()
    assert [r.name for r in tables.releases] == RELEASES
    assert [(g["after"], g["before"]) for g in tables.not_covered] == [("0.0.0", "2.2.0")]
    assert [r.name for r in tables.releases if r.gap_before] == ["2.2.0"]
    assert all(len(r.commit) == 40 for r in tables.releases)


def test_a_4_0_broker_is_4_0_0_because_4_0_1_advertised_join_group_v0_again():
    # KAFKA-19444 (4.0.1) added back JoinGroup v0-1, which 4.0.0 had removed (KIP-896)
    match = release_range(triples(BROKER_API_VERSIONS[(4, 0)]))
    assert match.releases == (("4.0.0", "broker"),) and str(match) == "4.0.0"
    assert [r.advertised("broker")[11] for r in release_tables().named("4.0")] == [(2, 9), (0, 9), (0, 9)]


def test_a_broker_newer_than_the_data_matches_none_and_names_the_newest_as_nearest():
    # 4.3 is newer than 4.2.1, the release whose definitions kwire ships: no table, so no guess
    match = release_range(triples(BROKER_API_VERSIONS[(4, 3)]))
    assert not match.matched
    assert match.nearest == "4.2.1" and str(match).startswith("no known Kafka release (nearest: 4.2.1")


def test_from_4_0_produce_is_advertised_from_v0_though_spoken_from_v3():
    # ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION (KAFKA-18659), on the broker listener only
    for release in release_tables().releases:
        name, low, high, _ = release.apis[0]
        advertised = release.advertised("broker")
        if release.name >= "4":
            assert (name, low) == ("Produce", 3) and advertised[0] == (0, high), release.name
        elif advertised is not None:
            assert advertised[0] == (low, high), release.name


def test_a_27_broker_does_not_advertise_the_raft_apis_its_definitions_have():
    # Kafka 2.7's ApiKeys marks Vote, BeginQuorumEpoch, EndQuorumEpoch, DescribeQuorum not enabled
    release = release_tables().named("2.7.0")[0]
    assert not {52, 53, 54, 55} & release.apis.keys()


def test_a_table_from_the_committed_data_matches_its_release_and_a_changed_one_does_not():
    release = release_tables().named("3.6.0")[0]
    advertised = release.advertised("zkBroker")
    assert str(release_range(triples(advertised))) == "3.6.0–3.6.2"
    kraft = release.advertised("broker")
    assert kraft != advertised and str(release_range(triples(kraft))) == "3.6.0–3.6.2"
    low, high = advertised[1]
    changed = release_range(triples({**advertised, 1: (low, high + 1)}))
    assert not changed.matched
    assert changed.nearest in ("3.6.0", "3.6.1", "3.6.2")
    assert [str(d) for d in changed.differences] == [f"Fetch (1): broker v{low}-{high + 1}, release v{low}-{high}"]


def test_no_match_has_no_range_and_counts_its_differences_in_words():
    """Kills ``releases.x_release_range__mutmut_34`` (no match gives ``ranges`` None, not an empty
    tuple) and ``ReleaseMatch.__str__`` mutants 13 and 17 (the plural of "API")."""
    release = release_tables().named("3.6.0")[0]
    advertised = release.advertised("zkBroker")
    one = release_range(triples({**advertised, 1: (advertised[1][0], advertised[1][1] + 1)}))
    two = release_range(triples({**advertised, 1: (advertised[1][0], advertised[1][1] + 1),
                                 3: (advertised[3][0], advertised[3][1] + 1)}))
    for match, count in [(one, 1), (two, 2)]:
        assert not match.matched and match.releases == () and match.ranges == ()
        assert len(match.differences) == count
    assert str(one) == f"no known Kafka release (nearest: {one.nearest}, differing in 1 API)"
    assert str(two) == f"no known Kafka release (nearest: {two.nearest}, differing in 2 APIs)"


def test_telemetry_apis_are_optional_from_37_on():
    release = release_tables().named("3.7.0")[0]
    advertised = release.advertised("broker")
    assert {71, 72} <= advertised.keys()
    without = {k: v for k, v in advertised.items() if k not in (71, 72)}
    assert str(release_range(triples(without))) == "3.7.0–3.7.2"
    without_more = {k: v for k, v in without.items() if k != 0}
    assert not release_range(triples(without_more)).matched


def test_a_range_does_not_reach_across_releases_the_data_lacks():
    # the committed data without 3.7.2, which it then names as not covered
    raw = json.loads(resources.files("kwire.network").joinpath("release_versions.json").read_text())
    raw["releases"] = [r for r in raw["releases"] if r["release"] != "3.7.2"]
    raw["not_covered"].append({"after": "3.7.1", "before": "3.8.0", "releases": "3.7.2", "why": "a test"})
    tables = parse_tables(raw)
    assert [r.name for r in tables.releases if r.gap_before] == ["2.2.0", "3.8.0"]
    for minor, expected in [((3, 7), ("3.7.0–3.7.1",)), ((3, 8), ("3.8.0–3.8.1",))]:
        match = release_range(triples(BROKER_API_VERSIONS[minor]), tables)
        assert match.ranges == expected
        assert match.touches_gap and "no table for next to it" in str(match)
    # the oldest covered release has the releases before 2.2.0 next to it
    assert str(release_range(triples(BROKER_API_VERSIONS[(2, 2)]))) == (
        "2.2.0–2.2.2 (or a release kwire has no table for next to it)")


def _api_versions_responses(peer):
    for path in sorted((CAPTURES / peer / "raw").glob("*_resp_*_k18_*.bin")):
        version = int(re.search(r"_v([0-9]+)_", path.name).group(1))
        yield path.name, parse_response_frame(path.read_bytes(), 18, version).body


@pytest.mark.parametrize("peer", ["librdkafka-mock", "tansu"])
def test_brokers_that_are_not_kafka_match_no_release(peer):
    answered = 0
    for name, body in _api_versions_responses(peer):
        if getattr(body, "error_code", 1):
            with pytest.raises(ApiVersionsInputError, match="is an error"):
                release_range(body)
            continue
        match = release_range(body)
        assert not match.matched, name
        assert match.differences, name
        answered += 1
    assert answered


def test_input_that_is_no_broker_table_is_refused():
    with pytest.raises(ApiVersionsInputError, match="advertises no API"):
        release_range([])
    with pytest.raises(ApiVersionsInputError, match="api key 1 is advertised twice"):
        release_range([(1, 0, 4), (1, 0, 5)])


def test_a_4_2_broker_without_the_produce_rule_matches_nothing():
    # what the 4.2.1 table gave before 4.2.1's Java rules were read (its folder of definitions only)
    raw = json.loads(resources.files("kwire.network").joinpath("release_versions.json").read_text())
    for release in raw["releases"]:
        release.pop("advertised_min", None)
    match = release_range(triples(BROKER_API_VERSIONS[(4, 2)]), parse_tables(raw))
    assert not match.matched and match.nearest == "4.2.1"
    assert [str(d) for d in match.differences] == ["Produce (0): broker v0-13, release v3-13"]
