"""``kwire features version-mapping`` / ``feature-dependencies``: what Kafka 4.2.1's kafka-features prints.

Expected texts follow ``FeatureCommand``'s format strings and ``FeatureCommandTest``'s cases (the
unknown-release message, ``metadata.version=17 (3.7-IV2) has no dependencies.``, the unknown
feature and level messages, the unparsable level); the default levels are those of Kafka 4.2.1's
``Feature`` enum: kraft.version 1 from 3.9-IV0 (21), group.version 1 from 4.0-IV0 (22),
transaction.version 1 and 2 from 4.0-IV2 (24), eligible.leader.replicas.version 1 from 4.1-IV0 (26,
needing metadata.version 23, 4.0-IV1), share.version 1 from 4.2-IV0 (28), streams.version 1 from
4.2-IV1 (29).
"""
from __future__ import annotations

import json

import pytest

from kwire.cli.main import main

LATEST = ["metadata.version=29 (4.2-IV1)", "kraft.version=1", "transaction.version=2", "group.version=1",
          "eligible.leader.replicas.version=1", "share.version=1", "streams.version=1"]


def run(capsys, *argv):
    code = main(["features", *argv])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err.strip()


def test_version_mapping_defaults_to_the_latest_production_level(capsys):
    assert run(capsys, "version-mapping") == (0, LATEST, "")


def test_version_mapping_prints_the_release_as_typed(capsys):
    code, out, _ = run(capsys, "version-mapping", "--release-version", "3.9")
    assert code == 0 and out == ["metadata.version=21 (3.9)", "kraft.version=1", "transaction.version=0",
                                 "group.version=0", "eligible.leader.replicas.version=0", "share.version=0",
                                 "streams.version=0"]
    code, out, _ = run(capsys, "version-mapping", "--release-version", "4.0-IV2")
    assert out[:4] == ["metadata.version=24 (4.0-IV2)", "kraft.version=1", "transaction.version=2", "group.version=1"]
    assert out[4] == "eligible.leader.replicas.version=0"


def test_version_mapping_json(capsys):
    code, out, _ = run(capsys, "version-mapping", "--release-version", "3.3-IV3", "--json")
    body = json.loads("\n".join(out))
    assert body == {"releaseVersion": "3.3-IV3", "metadata.version": {"level": 7, "name": "3.3-IV3"},
                    "features": {"kraft.version": 0, "transaction.version": 0, "group.version": 0,
                                 "eligible.leader.replicas.version": 0, "share.version": 0, "streams.version": 0}}


@pytest.mark.parametrize("release", ["2.9-IV2", "invalid", "3.0-IV1", "21"])
def test_version_mapping_unknown_release(capsys, release):
    code, out, err = run(capsys, "version-mapping", "--release-version", release)
    assert (code, out) == (2, [])
    assert err == f"Unknown release version '{release}'. Supported versions are: 3.3-IV3 to 4.2-IV1"


def test_feature_dependencies(capsys):
    code, out, _ = run(capsys, "feature-dependencies", "--feature", "metadata.version=17", "--feature",
                       "eligible.leader.replicas.version=1", "--feature", "transaction.version=2")
    assert code == 0 and out == ["metadata.version=17 (3.7-IV2) has no dependencies.",
                                 "eligible.leader.replicas.version=1 requires:", "    metadata.version=23 (4.0-IV1)",
                                 "transaction.version=2 has no dependencies."]


def test_feature_dependencies_json(capsys):
    code, out, _ = run(capsys, "feature-dependencies", "--feature", "eligible.leader.replicas.version=1", "--json")
    assert json.loads("\n".join(out)) == [{"feature": "eligible.leader.replicas.version", "level": 1,
                                           "dependencies": {"metadata.version": 23}}]


@pytest.mark.parametrize("feature, message", [
    ("unknown.feature=1", "Unknown feature: unknown.feature"),
    ("transaction.version=1000", "No feature:transaction.version with feature level 1000"),
    ("metadata.version=invalid", "Can't parse feature=level string metadata.version=invalid: unable to parse "
                                 "invalid as a short."),
    ("kraft.version", "Can't parse feature=level string kraft.version: equals sign not found."),
    ("metadata.version=3", "Unknown metadata.version 3"),
])
def test_feature_dependencies_refusals(capsys, feature, message):
    assert run(capsys, "feature-dependencies", "--feature", feature) == (2, [], message)


def test_features_before_a_refused_one_are_still_printed(capsys):
    code, out, err = run(capsys, "feature-dependencies", "--feature", "group.version=1", "--feature", "x=1")
    assert (code, out, err) == (2, ["group.version=1 has no dependencies."], "Unknown feature: x")
