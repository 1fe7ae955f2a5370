"""The release rules kept as fields of the release data (issue 23 §2): which Kafka release's
image and snapshot writer does what, from each release's ``org.apache.kafka.image`` sources
(3.3.1 ... 3.9.0: ``FeaturesImage.write`` writes a ZkMigrationStateRecord from 3.4-IV0; 4.0.0 to
4.2.1: none, ELR by ``ImageWriterOptions.isEligibleLeaderReplicasEnabled``, kraft.version
FeatureLevelRecords skipped on replay by KAFKA-18979; 4.2.1: undefined configs skipped,
KAFKA-19851; 4.0.0 ``TopicsDelta.replay(ClearElrRecord)``: the image's topics only)."""
from __future__ import annotations

import ast
import dataclasses

from kwire.features import RELEASES, kafka_release
from tests.paths import REPO


def releases_where(rule: str) -> list[str]:
    return [r.name for r in RELEASES if getattr(r, rule)]


def test_each_rule_names_the_releases_that_follow_it():
    three = ["3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9"]
    four = ["4.0", "4.1", "4.2"]
    assert releases_where("writes_zk_migration_state") == three[1:]
    assert releases_where("keeps_zk_migration_state") == three
    assert releases_where("writes_kraft_version_feature_record") == three
    assert releases_where("writes_elr_by_feature") == four
    assert releases_where("skips_undefined_configs") == ["4.2"]
    assert releases_where("remove_topic_configs_from_image_only") == three + four
    assert [r.name for r in RELEASES if not r.clear_elr_covers_delta_topics] == ["4.0"]


def test_a_release_is_frozen_data():
    release = kafka_release("3.6.1")
    assert release.name == "3.6" and dataclasses.is_dataclass(release)
    try:
        release.writes_zk_migration_state = False  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:  # pragma: no cover
        raise AssertionError("a release's rules changed")


def test_the_writer_asks_the_release_data_not_the_release_name():
    # no comparison with a name (``release.name == "4.2"``) and no split of one (``name.split(".")``)
    # in the writer: what a release does is a field of its data
    tree = ast.parse((REPO / "kwire/metadata/writer.py").read_text())

    def is_name(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "name"

    compared = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
                and any(is_name(side) for side in (node.left, *node.comparators))]
    split = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr == "split"]
    assert (compared, split) == ([], [])
    # the check sees the old form
    old = ast.parse('int(self.name.split(".")[0]) >= 4 and self.name == "4.2"')
    assert any(isinstance(n, ast.Compare) and is_name(n.comparators[0]) is False and is_name(n.left)
               for n in ast.walk(old))
