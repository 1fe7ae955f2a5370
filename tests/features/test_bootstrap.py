"""Bootstrap files as ``kafka-storage format`` writes them, checked against the two real ones.

Kafka 3.6.1 and 3.9.0 wrote the ``bootstrap.checkpoint`` files in tests/data when their nodes were
formatted with the defaults. kwire, given the same metadata.version and the three batch timestamps
read from each file (Kafka stamps each batch with its clock), writes the same bytes. The records
of Kafka 4.x levels are checked against ``FormatterTest`` of Kafka 4.2.1 (the latest production
level: metadata.version, eligible.leader.replicas.version 1, group.version 1, share.version 1,
streams.version 1, transaction.version 2, in that order) and the feature classes' defaults.
"""
from __future__ import annotations

import pytest

from kwire.features import FeatureError
from kwire.features.bootstrap import (
    bootstrap_records,
    format_bootstrap,
    format_feature_levels,
    read_bootstrap,
    write_bootstrap,
)
from kwire.logs.metadata_log import read_snapshot
from tests.paths import KRAFT_361, KRAFT_390

REAL = [(KRAFT_361, "3.6-IV2", 14), (KRAFT_390, "3.9-IV0", 21)]


def batch_timestamps(path) -> tuple[int, int, int]:
    header, records, footer = read_snapshot(path).batches
    return header.entries[0].timestamp, records.entries[0].timestamp, footer.entries[0].timestamp


@pytest.mark.parametrize("root, name, level", REAL)
def test_the_real_bootstrap_file_byte_for_byte(root, name, level):
    path = root / "bootstrap.checkpoint"
    levels, snapshot = format_bootstrap(name, timestamp=batch_timestamps(path))
    assert levels["metadata.version"] == level
    assert snapshot.encode() == path.read_bytes()


@pytest.mark.parametrize("root, name, level", REAL)
def test_the_feature_level_records_of_the_real_file(root, name, level):
    real = [record.encode_value() for record in read_snapshot(root / "bootstrap.checkpoint").records]
    ours = [record.encode_value() for record in bootstrap_records(format_feature_levels(name))]
    assert ours == real
    # frame 1, apiKey 12, version 0, "metadata.version", the level, no tagged fields
    assert real == [bytes([1, 12, 0, 17]) + b"metadata.version" + level.to_bytes(2, "big") + b"\0"]


def test_framing_differs_only_in_timestamps_and_crcs():
    path = KRAFT_361 / "bootstrap.checkpoint"
    ours = format_bootstrap("3.6", timestamp=0)[1].encode()
    real = path.read_bytes()
    assert len(ours) == len(real)
    # batch header bytes: CRC at 17..20, base and max timestamps at 27..42 of each batch
    differing = {i for i in range(len(real)) if ours[i] != real[i]}
    sizes = [len(batch.encode()) for batch in read_snapshot(path).batches]
    starts = [0, sizes[0], sizes[0] + sizes[1]]
    allowed = set()
    for start in starts:
        allowed |= set(range(start + 17, start + 21)) | set(range(start + 27, start + 43))
    assert differing and differing <= allowed


def levels_of(records) -> list[tuple[str, int]]:
    return [(r.message.name, r.message.feature_level) for r in records]


@pytest.mark.parametrize("release, expected", [
    ("4.0", [("metadata.version", 25), ("group.version", 1), ("transaction.version", 2)]),
    ("4.0-IV0", [("metadata.version", 22), ("group.version", 1)]),
    ("4.1", [("metadata.version", 27), ("eligible.leader.replicas.version", 1), ("group.version", 1),
             ("transaction.version", 2)]),
    ("4.2", [("metadata.version", 29), ("eligible.leader.replicas.version", 1), ("group.version", 1),
             ("share.version", 1), ("streams.version", 1), ("transaction.version", 2)]),
    (None, [("metadata.version", 29), ("eligible.leader.replicas.version", 1), ("group.version", 1),
            ("share.version", 1), ("streams.version", 1), ("transaction.version", 2)]),
])
def test_kafka_4_levels_bring_their_default_features(release, expected):
    assert levels_of(bootstrap_records(format_feature_levels(release))) == expected


def test_features_named_on_the_command_line_replace_defaults_and_level_0_writes_no_record():
    levels = format_feature_levels("4.2", {"group.version": 0, "share.version": 0})
    assert levels_of(bootstrap_records(levels)) == [
        ("metadata.version", 29), ("eligible.leader.replicas.version", 1), ("streams.version", 1),
        ("transaction.version", 2)]
    assert levels["kraft.version"] == 0
    # metadata.version may come as a feature instead
    assert format_feature_levels(None, {"metadata.version": 21})["metadata.version"] == 21
    # a feature above its default, at a level its dependencies allow
    assert format_feature_levels("4.0-IV1", {"eligible.leader.replicas.version": 1})[
        "eligible.leader.replicas.version"] == 1


@pytest.mark.parametrize("release, features, message", [
    ("3.9", {"eligible.leader.replicas.version": 1},
     "eligible.leader.replicas.version could not be set to 1 because it depends on metadata.version level 23"),
    ("4.2", {"nonexistent.feature": 1},
     "Unsupported feature: nonexistent.feature. Supported features are: eligible.leader.replicas.version, "
     "group.version, kraft.version, share.version, streams.version, transaction.version"),
    ("4.2", {"group.version": 2}, "No feature:group.version with feature level 2"),
    ("4.2", {"metadata.version": 29}, "Use --release-version instead of --feature metadata.version=X to avoid "
                                      "ambiguity."),
    ("4.2", {"kraft.version": 1}, "Cannot set kraft.version to 1 unless controller.quorum.voters is empty"),
    ("4.3", {}, "unknown metadata.version '4.3'"),
])
def test_refusals(release, features, message):
    with pytest.raises(FeatureError) as caught:
        format_feature_levels(release, features)
    assert str(caught.value).startswith(message)


# Kafka 4.2.1's MetadataVersion knows no level below 3.3-IV3 (7) and 4.3-IV0 (30) only as unstable:
# fromVersionString lists MINIMUM_VERSION..latestProduction(), fromFeatureLevel MINIMUM_VERSION..latestTesting()
KAFKA_421_PRODUCTION = ("3.3-IV3, 3.4-IV0, 3.5-IV0, 3.5-IV1, 3.5-IV2, 3.6-IV0, 3.6-IV1, 3.6-IV2, 3.7-IV0, 3.7-IV1, "
                        "3.7-IV2, 3.7-IV3, 3.7-IV4, 3.8-IV0, 3.9-IV0, 4.0-IV0, 4.0-IV1, 4.0-IV2, 4.0-IV3, 4.1-IV0, "
                        "4.1-IV1, 4.2-IV0, 4.2-IV1")


@pytest.mark.parametrize("release, features, message", [
    *[(name, {}, f"Unknown metadata.version '{name}'. Supported metadata.version are: {KAFKA_421_PRODUCTION}")
      for name in ("3.3-IV0", "3.3-IV1", "3.3-IV2", "3.2", "3.0-IV1")],
    (None, {"metadata.version": 5}, "No MetadataVersion with feature level 5. Valid feature levels are from 7 to 30."),
    ("4", None, "No MetadataVersion with feature level 4. Valid feature levels are from 7 to 30."),
])
def test_kafka_4_formats_no_level_below_3_3_iv3(release, features, message):
    with pytest.raises(FeatureError) as caught:
        format_feature_levels(release, features)
    assert str(caught.value) == message
    assert format_feature_levels("3.3")["metadata.version"] == 7  # 3.3 is 3.3-IV3 to Kafka 4.x


@pytest.mark.parametrize("root, name, level", REAL)
def test_read_bootstrap(root, name, level):
    bootstrap = read_bootstrap(root / "bootstrap.checkpoint")
    assert str(bootstrap.metadata_version) == name
    assert bootstrap.feature_levels == {"metadata.version": level}
    assert bootstrap.feature_level("group.version") == 0


def test_write_then_read_back(tmp_path):
    levels, snapshot = format_bootstrap("4.1", timestamp=1_700_000_000_000)
    path = write_bootstrap(tmp_path / "meta", snapshot)
    assert path.name == "bootstrap.checkpoint" and not (tmp_path / "meta" / "bootstrap.checkpoint.tmp").exists()
    back = read_bootstrap(path)
    assert back.feature_levels == {name: level for name, level in levels.items() if level and name != "kraft.version"}


def test_a_bootstrap_file_without_metadata_version_is_refused():
    from kwire.features.bootstrap import BootstrapMetadata, bootstrap_snapshot

    group_only = [r for r in bootstrap_records(format_feature_levels("4.2")) if r.message.name == "group.version"]
    data = bootstrap_snapshot(group_only, timestamp=0).encode()
    with pytest.raises(FeatureError, match="No FeatureLevelRecord for metadata.version was found"):
        read_bootstrap(data)
    with pytest.raises(FeatureError):
        BootstrapMetadata([])
