"""The metadata.version and feature tables, against facts kwire did not write.

- the two real ``bootstrap.checkpoint`` files (Kafka 3.6.1 formatted at level 14, 3.9.0 at 21:
  each release's default, the newest production level it has);
- the record versions the real metadata logs hold (Kafka 3.6.1 wrote RegisterBroker v2 and
  Partition v0 at level 14, 3.9.0 RegisterBroker v3 and Partition v1 at level 21);
- rows read by hand from Kafka 4.2.1's ``MetadataVersion.java`` and feature classes, and the
  upgrade notes of Kafka's documentation (4.0: downgrade "not supported ... IBP_4_0_IV1(23, "4.0",
  "IV1", true)"; 4.2: "downgrade is supported ... IBP_4_2_IV1(29, "4.2", "IV1", false)").
"""
from __future__ import annotations

from collections import Counter

import pytest

from kwire import KwireError
from kwire.features import (
    FEATURES,
    GATES,
    LATEST,
    METADATA_VERSIONS,
    RECORD_VERSIONS,
    FeatureError,
    default_levels,
    feature,
    from_level,
    kafka_release,
    metadata_changed_between,
    metadata_version,
    release_for,
    validate_level,
)
from kwire.logs.metadata_log import MetadataLogDirectory, MetadataRecord, read_snapshot
from kwire.wire.index import load
from tests.paths import KRAFT_361, KRAFT_390

# (directory, Kafka release that wrote it)
REAL_NODES = [(KRAFT_361, "3.6"), (KRAFT_390, "3.9")]


def bootstrap_level(root) -> int:
    (record,) = read_snapshot(root / "bootstrap.checkpoint").records
    assert record.name == "FeatureLevelRecord" and record.message.name == "metadata.version"
    return record.message.feature_level


def log_record_versions(root) -> Counter:
    found: Counter = Counter()
    for batch in MetadataLogDirectory.open(root / "__cluster_metadata-0").batches():
        for entry in batch.entries:
            if isinstance(entry.record, MetadataRecord):
                found[(entry.record.name, entry.record.version)] += 1
    return found


# ----------------------------------------------------------------------------- real Kafka nodes


@pytest.mark.parametrize("root, release", REAL_NODES)
def test_a_real_node_was_formatted_at_its_release_s_newest_production_level(root, release):
    level = bootstrap_level(root)
    assert kafka_release(release).latest_production_level == level
    assert release_for(level).name == release
    assert from_level(level).release == release


def test_the_real_bootstrap_levels_have_kafka_s_names():
    assert str(from_level(bootstrap_level(KRAFT_361))) == "3.6-IV2"
    assert str(from_level(bootstrap_level(KRAFT_390))) == "3.9-IV0"


@pytest.mark.parametrize("root, release", REAL_NODES)
def test_every_record_of_a_real_log_is_one_kafka_writes_at_that_level(root, release):
    mv = from_level(bootstrap_level(root))
    for (name, version) in log_record_versions(root):
        assert mv.writes(name), (name, mv)
        if name == "BrokerRegistrationChangeRecord":  # several versions, each for its own change
            assert version <= mv.record_version(name)
        else:
            assert version == mv.record_version(name), (name, version, mv)


def test_the_versions_kafka_chooses_by_level_as_the_real_logs_hold_them():
    at_14, at_21 = log_record_versions(KRAFT_361), log_record_versions(KRAFT_390)
    assert {("RegisterBrokerRecord", 2), ("PartitionRecord", 0), ("PartitionChangeRecord", 0)} <= set(at_14)
    assert {("RegisterBrokerRecord", 3), ("PartitionRecord", 1), ("PartitionChangeRecord", 1),
            ("RegisterControllerRecord", 0)} <= set(at_21)
    mv14, mv21 = from_level(14), from_level(21)
    assert (mv14.register_broker_record_version(), mv14.partition_record_version(),
            mv14.partition_change_record_version()) == (2, 0, 0)
    assert (mv21.register_broker_record_version(), mv21.partition_record_version(),
            mv21.partition_change_record_version(), mv21.register_controller_record_version()) == (3, 1, 1, 0)
    # Kafka 3.6.1 at 3.6-IV2 could not write controller registrations: none in its log
    assert not any(name == "RegisterControllerRecord" for name, _ in at_14)
    with pytest.raises(FeatureError, match="RegisterControllerRecord is not written in metadata.version 3.6-IV2"):
        mv14.register_controller_record_version()


def test_the_real_snapshot_holds_only_records_its_level_writes():
    snapshot = read_snapshot(KRAFT_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint")
    mv = from_level(14)
    for record in snapshot.records:
        assert mv.record_version(record.name) == record.version


# ------------------------------------------------------------------------- rows from the sources


@pytest.mark.parametrize("level, name, changed", [
    (1, "3.0-IV1", True), (4, "3.3-IV0", False), (6, "3.3-IV2", True), (7, "3.3-IV3", True),
    (12, "3.6-IV0", False), (14, "3.6-IV2", True), (16, "3.7-IV1", False), (17, "3.7-IV2", True),
    (18, "3.7-IV3", False), (21, "3.9-IV0", False), (22, "4.0-IV0", False), (23, "4.0-IV1", True),
    (27, "4.1-IV1", False), (29, "4.2-IV1", False),
])
def test_hand_checked_rows(level, name, changed):
    mv = from_level(level)
    assert (mv.name, mv.did_metadata_change) == (name, changed)
    assert metadata_version(name) is mv


def test_the_levels_run_from_1_to_29_without_gaps_and_ten_changed_the_metadata():
    assert [mv.level for mv in METADATA_VERSIONS] == list(range(1, 30))
    changed = [mv.level for mv in METADATA_VERSIONS if mv.did_metadata_change]
    assert changed == [1, 3, 5, 6, 7, 8, 11, 13, 14, 15, 17, 23]


@pytest.mark.parametrize("gate, first", [
    ("isNoOpRecordSupported", 5), ("isBrokerRegistrationChangeRecordSupported", 6),
    ("isMigrationSupported", 8), ("isScramSupported", 11), ("isMetadataTransactionSupported", 13),
    ("isDelegationTokenSupported", 14), ("isControllerRegistrationSupported", 15),
    ("isDirectoryAssignmentSupported", 17), ("isElrSupported", 23),
])
def test_gates_switch_on_at_their_level(gate, first):
    assert GATES[gate] == first
    assert not from_level(first - 1).supports(gate) and from_level(first).supports(gate)


def test_gate_properties_and_the_inverted_leader_epoch_rule():
    assert from_level(11).is_leader_epoch_bump_required_on_isr_shrink
    assert not from_level(12).is_leader_epoch_bump_required_on_isr_shrink
    assert from_level(17).is_directory_assignment_supported and not from_level(16).is_directory_assignment_supported
    assert not from_level(3).is_feature_level_record_supported and from_level(4).is_feature_level_record_supported
    with pytest.raises(FeatureError, match="unknown metadata.version rule"):
        from_level(14).supports("isTeleportSupported")


@pytest.mark.parametrize("level, versions", [
    # RegisterBroker, Partition, PartitionChange, BrokerRegistrationChange (highest), Fence
    (5, (0, 0, 0, None, 0)),
    (6, (0, 0, 0, 0, None)),
    (7, (1, 0, 0, 1, None)),
    (8, (2, 0, 0, 1, None)),
    (17, (3, 1, 1, 2, None)),
    (23, (3, 2, 2, 2, None)),
    (29, (3, 2, 2, 2, None)),
])
def test_record_versions_by_level(level, versions):
    mv = from_level(level)
    names = ("RegisterBrokerRecord", "PartitionRecord", "PartitionChangeRecord", "BrokerRegistrationChangeRecord",
             "FenceBrokerRecord")
    assert tuple(mv.record_version(name) for name in names) == versions


def test_every_metadata_record_kwire_decodes_has_a_row_within_its_valid_versions():
    index = load()
    classes = {name: index.message_class(name) for name in index.metadata_records.values()}
    assert set(classes) == set(RECORD_VERSIONS)
    for name, steps in RECORD_VERSIONS.items():
        low, high = classes[name].VALID_VERSIONS
        assert all(version is None or low <= version <= high for _, version in steps), name
    assert not any(mv.writes("UnregisterControllerRecord") for mv in METADATA_VERSIONS)
    with pytest.raises(FeatureError, match="not a KRaft metadata record"):
        from_level(14).record_version("ProduceRequest")


# ------------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize("text, level", [
    ("3.6-IV2", 14), ("3.6", 14), ("3.6.1", 14), ("3.7", 19), ("3.3", 7), ("4.0", 25), ("4.2", 29),
    ("14", 14), (" 21 ", 21), (21, 21), ("3.0-IV1", 1),
])
def test_parse(text, level):
    assert metadata_version(text).level == level


@pytest.mark.parametrize("text", ["4.3", "4.3-IV0", "30", 0, "3.10", "3.6-IV9", "latest", "", -1, True, None])
def test_an_unknown_level_is_an_error_naming_the_newest_known(text):
    with pytest.raises(KwireError) as caught:
        metadata_version(text)
    assert "29 (4.2-IV1) (the newest)" in str(caught.value)


def test_the_newest_level_is_kafka_4_2_1_s_latest_production():
    assert LATEST.name == "4.2-IV1" and LATEST.is_production


# --------------------------------------------------------------------------- safe downgrades


@pytest.mark.parametrize("high, low, changed", [
    ("3.9", "3.8", False), ("3.9-IV0", "3.7-IV2", False), ("3.9", "3.7-IV1", True), ("3.6-IV2", "3.6-IV1", True),
    ("3.6-IV0", "3.5-IV2", False), ("4.2", "4.1", False), ("4.2", "4.0-IV1", False), ("4.2", "4.0-IV0", True),
    ("4.0", "3.9", True), ("3.6", "3.6", False),
])
def test_metadata_changed_between(high, low, changed):
    assert metadata_changed_between(high, low) is changed
    assert metadata_changed_between(low, high) is changed


# ------------------------------------------------------------------------------------- features


def test_the_features_of_kafka_4_2_1_in_its_enum_order():
    assert list(FEATURES) == ["kraft.version", "transaction.version", "group.version",
                              "eligible.leader.replicas.version", "share.version", "streams.version"]
    assert {name: f.latest_production for name, f in FEATURES.items()} == {
        "kraft.version": 1, "transaction.version": 2, "group.version": 1, "eligible.leader.replicas.version": 1,
        "share.version": 1, "streams.version": 1}
    assert not FEATURES["kraft.version"].in_feature_level_records


@pytest.mark.parametrize("mv, expected", [
    # (metadata.version, levels of transaction, group, ELR, share, streams)
    ("3.6-IV2", (0, 0, 0, 0, 0)), ("3.9", (0, 0, 0, 0, 0)), ("4.0-IV0", (0, 1, 0, 0, 0)),
    ("4.0-IV2", (2, 1, 0, 0, 0)), ("4.0", (2, 1, 0, 0, 0)), ("4.1-IV0", (2, 1, 1, 0, 0)),
    ("4.2-IV0", (2, 1, 1, 1, 0)), ("4.2", (2, 1, 1, 1, 1)),
])
def test_default_levels(mv, expected):
    levels = default_levels(mv)
    assert levels["metadata.version"] == metadata_version(mv).level
    names = ("transaction.version", "group.version", "eligible.leader.replicas.version", "share.version",
             "streams.version")
    assert tuple(levels[name] for name in names) == expected


def test_dependencies_and_validate_messages():
    elr1 = feature("eligible.leader.replicas.version").level(1)
    assert dict(elr1.dependencies) == {"metadata.version": 23}
    assert validate_level(elr1, {"metadata.version": 22}) == (
        "eligible.leader.replicas.version could not be set to 1 because it depends on metadata.version level 23")
    assert validate_level(elr1, {"metadata.version": 23}) is None
    group1 = feature("group.version").level(1)
    assert validate_level(group1, {"metadata.version": 6}) == (
        "group.version could not be set to 1 because it depends on metadata.version=7 (3.3-IV3)")
    assert validate_level(feature("group.version").level(0), {}) is None


def test_unknown_features_and_levels():
    with pytest.raises(FeatureError, match="No feature:group.version with feature level 2"):
        feature("group.version").level(2)
    with pytest.raises(FeatureError, match="unknown feature 'test.feature.version'"):
        feature("test.feature.version")
