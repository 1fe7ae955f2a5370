"""Byte vectors worked out by hand from the wire format, checked against the generated codecs.

Every expected byte string below was written from the rules (WIRE_FACTS.md, Kafka's generator),
field by field, with a comment per field; none was copied from kwire's output. Each vector is
checked both ways: the object encodes to exactly these bytes, and the bytes decode to the object.
"""
from __future__ import annotations

import json
import uuid

import pytest

from kwire.generated import ApiVersionsResponse, FeatureLevelRecord, QuorumStateData, UpdateFeaturesRequest
from kwire.generated.api_versions_response import ApiVersion, FinalizedFeatureKey, SupportedFeatureKey
from kwire.generated.quorum_state_data import Voter
from kwire.generated.update_features_request import FeatureUpdateKey
from kwire.wire.errors import UnsupportedVersionError
from tests.generated.vectors import check, h
from tests.paths import DATA

METADATA_VERSION = b"metadata.version".hex()  # 16 bytes -> compact length 16 + 1 = 0x11
KRAFT_VERSION = b"kraft.version".hex()  # 13 bytes -> compact length 13 + 1 = 0x0e



# --- ApiVersionsResponse v3 with every tagged field ------------------------------------------------

def test_api_versions_response_v3_with_every_tagged_field() -> None:
    response = ApiVersionsResponse(
        error_code=0,
        api_keys=[ApiVersion(api_key=18, min_version=0, max_version=4)],
        throttle_time_ms=0,
        supported_features=[SupportedFeatureKey(name="kraft.version", min_version=0, max_version=1)],
        finalized_features_epoch=5,
        finalized_features=[FinalizedFeatureKey(name="kraft.version", max_version_level=1, min_version_level=1)],
        zk_migration_ready=True,
    )
    wire = h(
        "0000",                      # ErrorCode 0
        "02",                        # ApiKeys: compact array of 1 (count + 1)
        "0012 0000 0004",            #   ApiKey 18, MinVersion 0, MaxVersion 4
        "00",                        #   element's empty tagged section
        "00000000",                  # ThrottleTimeMs 0
        "04",                        # tagged section: 4 fields, ascending tags
        "00 14",                     #   tag 0 SupportedFeatures, 20-byte payload:
        "02", "0e", KRAFT_VERSION,   #     compact array of 1; Name "kraft.version"
        "0000 0001 00",              #     MinVersion 0, MaxVersion 1, empty tagged section
        "01 08 0000000000000005",    #   tag 1 FinalizedFeaturesEpoch: int64 5
        "02 14",                     #   tag 2 FinalizedFeatures, 20-byte payload:
        "02", "0e", KRAFT_VERSION,   #     compact array of 1; Name "kraft.version"
        "0001 0001 00",              #     MaxVersionLevel 1, MinVersionLevel 1, empty tagged section
        "03 01 01",                  #   tag 3 ZkMigrationReady: true
    )
    check(response, 3, wire)


def test_api_versions_response_v3_leaves_tagged_defaults_out() -> None:
    # FinalizedFeaturesEpoch defaults to -1, ZkMigrationReady to false, the arrays to empty:
    # none is written, so the tagged section is the single byte 0.
    wire = h("0000", "01", "00000000", "00")  # ErrorCode, empty ApiKeys, ThrottleTimeMs, no tags
    check(ApiVersionsResponse(), 3, wire)


def test_api_versions_response_v0_has_no_throttle_time_and_classic_arrays() -> None:
    response = ApiVersionsResponse(error_code=35, api_keys=[ApiVersion(api_key=18, min_version=0, max_version=3)])
    wire = h("0023", "00000001", "0012 0000 0003")  # error 35, int32 count 1, one ApiVersion
    check(response, 0, wire)


# --- UpdateFeaturesRequest at each version ----------------------------------------------------------

def test_update_features_request_v0() -> None:
    request = UpdateFeaturesRequest(
        timeout_ms=30000,
        feature_updates=[FeatureUpdateKey(feature="metadata.version", max_version_level=14, allow_downgrade=True)],
    )
    wire = h(
        "00007530",                  # timeoutMs 30000
        "02",                        # FeatureUpdates: compact array of 1
        "11", METADATA_VERSION,      #   Feature "metadata.version"
        "000e",                      #   MaxVersionLevel 14
        "01",                        #   AllowDowngrade true (v0 only)
        "00",                        #   element's empty tagged section
        "00",                        # empty tagged section
    )
    check(request, 0, wire)


@pytest.mark.parametrize("version", [1, 2])
def test_update_features_request_v1_and_v2(version: int) -> None:
    request = UpdateFeaturesRequest(
        timeout_ms=30000,
        feature_updates=[FeatureUpdateKey(feature="metadata.version", max_version_level=14, upgrade_type=2)],
        validate_only=True,
    )
    wire = h(
        "00007530",                  # timeoutMs 30000
        "02",                        # FeatureUpdates: compact array of 1
        "11", METADATA_VERSION,      #   Feature "metadata.version"
        "000e",                      #   MaxVersionLevel 14
        "02",                        #   UpgradeType 2 (safe downgrade), int8, v1+
        "00",                        #   element's empty tagged section
        "01",                        # ValidateOnly true (v1+)
        "00",                        # empty tagged section
    )
    check(request, version, wire)


def test_update_features_request_refuses_allow_downgrade_after_v0() -> None:
    # AllowDowngrade exists only in v0 and is not ignorable: a true value cannot be written at v1.
    request = UpdateFeaturesRequest(feature_updates=[FeatureUpdateKey(feature="x", allow_downgrade=True)])
    with pytest.raises(UnsupportedVersionError, match="allow_downgrade"):
        request.encode(1)
    # and ValidateOnly (v1+, not ignorable) cannot be written at v0
    with pytest.raises(UnsupportedVersionError, match="validate_only"):
        UpdateFeaturesRequest(validate_only=True).encode(0)


# --- FeatureLevelRecord ----------------------------------------------------------------------------

def test_feature_level_record_v0() -> None:
    wire = h("11", METADATA_VERSION, "000e", "00")  # Name, FeatureLevel 14, empty tagged section
    check(FeatureLevelRecord(name="metadata.version", feature_level=14), 0, wire)


# --- QuorumStateData v0 and v1 -----------------------------------------------------------------------

def test_quorum_state_data_v0() -> None:
    state = QuorumStateData(cluster_id="", leader_id=1, leader_epoch=13, voted_id=-1, applied_offset=0,
                            current_voters=[Voter(voter_id=1)])
    wire = h(
        "01",                        # ClusterId "" (compact: length 0 + 1)
        "00000001",                  # LeaderId 1
        "0000000d",                  # LeaderEpoch 13
        "ffffffff",                  # VotedId -1
        "0000000000000000",          # AppliedOffset 0
        "02 00000001 00",            # CurrentVoters: 1 voter, VoterId 1, its empty tagged section
        "00",                        # empty tagged section
    )
    check(state, 0, wire)


def test_quorum_state_data_v1() -> None:
    directory = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")
    state = QuorumStateData(leader_id=1, leader_epoch=13, voted_id=2, voted_directory_id=directory)
    wire = h(
        "00000001",                          # LeaderId 1
        "0000000d",                          # LeaderEpoch 13
        "00000002",                          # VotedId 2
        "00112233445566778899aabbccddeeff",  # VotedDirectoryId, most significant half first
        "00",                                # empty tagged section
    )
    check(state, 1, wire)


@pytest.mark.parametrize("fixture", ["kraft-renoagilsaputra-kafka", "kraft-ichwansh03-kafka-migration-log4j2"])
def test_quorum_state_files_written_by_kafka_read_and_write_back(fixture: str) -> None:
    # The quorum-state file is QuorumStateData in Kafka's JSON-converter form plus "data_version".
    text = (DATA / fixture / "__cluster_metadata-0" / "quorum-state").read_text()
    document = json.loads(text)
    version = document.pop("data_version")
    state = QuorumStateData.from_dict(document, version)
    assert state.leader_id == 1 and state.voted_id == -1 and state.current_voters == [Voter(voter_id=1)]
    assert state.to_dict(version) == document
