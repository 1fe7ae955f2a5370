"""API 74 under its Kafka 3.7-4.0 name: ListClientMetricsResourcesRequest/Response, v0 only.

Kafka 4.1 renamed the API ListConfigResources (KIP-1142) and kept v0's bytes. kwire ships the old
name from Kafka 3.8.0's definitions (``message_defs/former_names/``, its own apiKey space), so it
stays importable; the api key, in APIS and in the framing registry, stays with the current name.
"""
from __future__ import annotations

import pytest

from kwire.generated import (
    APIS,
    MESSAGES,
    ListClientMetricsResourcesRequest,
    ListClientMetricsResourcesResponse,
    ListConfigResourcesRequest,
    ListConfigResourcesResponse,
)
from kwire.generated.list_client_metrics_resources_response import ClientMetricsResource
from kwire.generated.list_config_resources_response import ConfigResource
from kwire.generator.definitions.loader import load_file
from kwire.generator.evolution.compat import wire_layout
from kwire.network.framing import build_response_frame, parse_response_frame
from kwire.network.releases import release_tables
from kwire.wire.index import load
from tests.paths import KAFKA_DEFINITIONS, MESSAGE_DEFS

HISTORY = KAFKA_DEFINITIONS / "history"
CLIENTS_421 = KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients"


def kinds(message, version):
    return [kind for _, kind in wire_layout(message, version)]


@pytest.mark.parametrize("kind", ["Request", "Response"])
def test_the_old_name_lays_out_v0_as_380_did_and_as_421s_new_name_does(kind):
    ours = load_file(MESSAGE_DEFS / "former_names" / f"ListClientMetricsResources{kind}.json")
    kafka_380 = load_file(HISTORY / f"ListClientMetricsResources{kind}@771b9576b00e.json", old_format=True)
    renamed_421 = load_file(CLIENTS_421 / f"ListConfigResources{kind}.json")
    assert ours.api_key == kafka_380.api_key == renamed_421.api_key == 74
    assert (ours.valid_versions.lowest, ours.valid_versions.highest) == (0, 0) == \
        (kafka_380.valid_versions.lowest, kafka_380.valid_versions.highest)
    assert kinds(ours, 0) == kinds(kafka_380, 0) == kinds(renamed_421, 0)


def test_the_old_names_import_and_are_api_74_v0():
    for cls in (ListClientMetricsResourcesRequest, ListClientMetricsResourcesResponse):
        assert (cls.API_KEY, cls.VALID_VERSIONS) == (74, (0, 0))
        assert MESSAGES[cls.__name__] is cls
    with pytest.raises(Exception, match="version"):
        ListClientMetricsResourcesRequest().encode(1)  # v1 came with the new name


def test_bytes_of_either_name_read_under_the_other():
    old = ListClientMetricsResourcesResponse(throttle_time_ms=5, error_code=0, client_metrics_resources=[
        ClientMetricsResource(name="cpu-metrics"), ClientMetricsResource(name="all")])
    data = old.encode(0)
    new = ListConfigResourcesResponse.decode(data, 0)
    assert [r.resource_name for r in new.config_resources] == ["cpu-metrics", "all"]
    assert new.encode(0) == data
    assert ListConfigResourcesResponse(throttle_time_ms=5, config_resources=[
        ConfigResource(resource_name="cpu-metrics"), ConfigResource(resource_name="all")]).encode(0) == data
    assert ListClientMetricsResourcesRequest().encode(0) == ListConfigResourcesRequest().encode(0) == b"\x00"


def test_the_api_key_stays_with_the_current_name():
    assert (APIS[74].name, APIS[74].request_name, APIS[74].response_name) == \
        ("ListConfigResources", "ListConfigResourcesRequest", "ListConfigResourcesResponse")
    index = load()
    assert index.request_class(74) is ListConfigResourcesRequest
    assert index.response_class(74) is ListConfigResourcesResponse
    assert index.apis[74].former_names == \
        ((0, 0, "ListClientMetricsResourcesRequest", "ListClientMetricsResourcesResponse"),)
    frame = build_response_frame(ListClientMetricsResourcesResponse(throttle_time_ms=1), 0, 9)  # old name out
    assert isinstance(parse_response_frame(frame, 74, 0).body, ListConfigResourcesResponse)
    # the choice is made when the package is generated, whatever the order of the definitions:
    # tests/generator/test_index.py


def test_every_release_name_of_api_74_is_importable_at_its_versions():
    named = {(entry[0], version) for release in release_tables().releases
             for key, entry in release.apis.items() if key == 74 for version in range(entry[1], entry[2] + 1)}
    assert ("ListClientMetricsResources", 0) in named
    for name, version in named:
        for kind in ("Request", "Response"):
            low, high = MESSAGES[name + kind].VALID_VERSIONS
            assert low <= version <= high and MESSAGES[name + kind].API_KEY == 74
