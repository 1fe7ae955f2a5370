"""release_range: the releases whose brokers advertise what an ApiVersions response lists.

The independent witness is kafka-python 3's ``BROKER_API_VERSIONS``: ApiVersions tables its
maintainers copied from real Kafka brokers of each minor release (ZooKeeper-mode brokers, its test
servers). kwire's tables come from Kafka's definitions and Java code at each release tag; the two
must agree release by release.
"""
from __future__ import annotations

import re

import pytest
from kafka.protocol.broker_version_data import BROKER_API_VERSIONS

from kwire.network.framing import parse_response_frame
from kwire.network.releases import ApiVersionsInputError, release_range, release_tables
from tests.paths import CAPTURES

COVERED_MINORS = [(2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 7), (2, 8), (3, 0), (3, 1), (3, 2), (3, 3),
                  (3, 4), (3, 5), (3, 6), (3, 7), (3, 8)]


def triples(table: dict[int, tuple[int, int]]) -> list[tuple[int, int, int]]:
    return [(key, low, high) for key, (low, high) in table.items()]


@pytest.mark.parametrize("minor", COVERED_MINORS, ids=lambda m: "%d.%d" % m)
def test_a_real_broker_of_each_covered_minor_matches_exactly_that_minor(minor):
    match = release_range(triples(BROKER_API_VERSIONS[minor]))
    prefix = "%d.%d." % minor
    expected = [r.name for r in release_tables().releases if r.name.startswith(prefix)]
    assert [name for name, _ in match.releases] == expected, str(match)
    assert match.ranges == ((expected[0] if len(expected) == 1 else f"{expected[0]}–{expected[-1]}"),)


@pytest.mark.parametrize("minor", [(3, 9), (4, 0), (4, 1)], ids=lambda m: "%d.%d" % m)
def test_a_broker_of_an_uncovered_release_matches_none(minor):
    # 3.9, 4.0 and 4.1 are in the data's gap: no table, so no guess
    match = release_range(triples(BROKER_API_VERSIONS[minor]))
    assert not match.matched
    assert str(match).startswith("no known Kafka release")


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


def test_telemetry_apis_are_optional_from_37_on():
    release = release_tables().named("3.7.0")[0]
    advertised = release.advertised("broker")
    assert {71, 72} <= advertised.keys()
    without = {k: v for k, v in advertised.items() if k not in (71, 72)}
    assert str(release_range(triples(without))) == "3.7.0–3.7.1"
    without_more = {k: v for k, v in without.items() if k != 0}
    assert not release_range(triples(without_more)).matched


def test_a_range_does_not_reach_across_releases_the_data_lacks():
    newest = release_tables().releases[-1]
    assert newest.name == "4.2.1" and newest.gap_before
    match = release_range(triples(newest.advertised("broker")))
    assert match.ranges == ("4.2.1",)
    assert match.touches_gap and "no table for next to it" in str(match)


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


def test_a_4_2_broker_differs_from_the_derived_4_2_1_table_only_where_the_readme_says():
    # A known limit: 4.2.1's Java rules (Produce advertised from v0, telemetry only with a
    # receiver) were not read, so a real 4.2 broker matches no table; the nearest is 4.2.1.
    match = release_range(triples(BROKER_API_VERSIONS[(4, 2)]))
    assert not match.matched and match.nearest == "4.2.1"
    assert [str(d) for d in match.differences] == [
        "Produce (0): broker v0-13, release v3-13",
        "GetTelemetrySubscriptions (71): broker absent, release v0-0",
        "PushTelemetry (72): broker absent, release v0-0"]
