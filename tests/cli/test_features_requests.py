"""The updates ``kwire features upgrade/downgrade/disable`` sends, as Kafka's FeatureCommand builds them
(tools/src/main/java/org/apache/kafka/tools/FeatureCommand.java, apache/kafka 1eb7644):

* ``--release-version``: metadata.version and every production feature at its default for that
  version, but "Don't send a request to upgrade a feature to 0": an upgrade leaves the level-0 ones
  out, a downgrade sends them. Its help: "3.9-IV0 will set metadata.version=21 and kraft.version=1".
* ``disable --feature NAME``: NAME at level 0.
"""
from __future__ import annotations

from kwire.cli.commands.features import requested_levels
from kwire.cli.main import build_parser
from kwire.features.feature_versions import FEATURES


def levels(*argv: str) -> dict[str, int]:
    return requested_levels(build_parser().parse_args(["features", *argv]))


def test_an_upgrade_to_a_release_sends_no_feature_at_level_0_and_a_downgrade_sends_them_all():
    """Kills ``features.x_requested_levels__mutmut_34`` (the upgrade test inverted)."""
    assert levels("upgrade", "x", "--release-version", "3.9-IV0") == {"metadata.version": 21, "kraft.version": 1}
    down = levels("downgrade", "x", "--release-version", "3.9-IV0")
    assert set(down) == {"metadata.version", *FEATURES}
    assert (down["metadata.version"], down["kraft.version"]) == (21, 1)
    assert {name: level for name, level in down.items() if level == 0} == {
        name: 0 for name in FEATURES if name != "kraft.version"}


def test_disable_sends_each_feature_at_level_0():
    """Kills ``features.x_requested_levels__mutmut_8`` (the name cut with a bad split)."""
    assert levels("disable", "x", "--feature", "group.version", "--feature", "share.version") == {
        "group.version": 0, "share.version": 0}
