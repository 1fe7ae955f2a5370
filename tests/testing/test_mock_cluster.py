"""``kwire.testing.mock_cluster`` and the ``kwire_mock_cluster`` fixture: librdkafka's mock cluster
answers kwire's own connections (blocking and asyncio: ApiVersions on connect, then Metadata), and
what kwire decodes of it is what librdkafka's own client (confluent-kafka) reads of the same cluster."""
from __future__ import annotations

import asyncio
import socket
import sys

import pytest

from kwire.generated import ApiVersionsRequest, MetadataRequest
from kwire.network import aio
from kwire.network.blocking import BlockingConnection
from kwire.network.client import parse_address
from kwire.testing import MockClusterError, mock_cluster
from kwire.wire.errors import KwireError
from tests.optional import need_module

API_VERSIONS, METADATA = 18, 3


def librdkafka_view(bootstrap: str) -> tuple[str, dict[int, str]]:
    """The cluster id and broker addresses as confluent-kafka (librdkafka's decoder) reads them."""
    kafka = need_module("confluent_kafka")
    client = kafka.admin.AdminClient({"bootstrap.servers": bootstrap})
    metadata = client.list_topics(timeout=10)
    return metadata.cluster_id, {b.id: f"{b.host}:{b.port}" for b in metadata.brokers.values()}


def kwire_view(metadata) -> tuple[str, dict[int, str]]:
    return metadata.cluster_id, {b.node_id: f"{b.host}:{b.port}" for b in metadata.brokers}


def refused(address: str) -> bool:
    try:
        socket.create_connection(parse_address(address), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def test_a_blocking_connection_negotiates_and_reads_metadata():
    need_module("confluent_kafka")
    with mock_cluster(brokers=3) as bootstrap:
        addresses = bootstrap.split(",")
        assert len(addresses) == 3 and all(a.startswith("127.0.0.1:") for a in addresses)
        with BlockingConnection(*parse_address(addresses[0]), timeout=10) as conn:
            assert {API_VERSIONS, METADATA} <= set(conn.versions)  # negotiated on connect
            answer = conn.request(ApiVersionsRequest(client_software_name="kwire", client_software_version="0"))
            assert answer.error_code == 0 and answer.api_keys.find(METADATA) is not None
            metadata = conn.request(MetadataRequest(topics=None))
        cluster_id, brokers = kwire_view(metadata)
        assert (cluster_id, brokers) == librdkafka_view(bootstrap)
        assert sorted(brokers.values()) == sorted(addresses)
    assert all(refused(a) for a in addresses), "the brokers still listen after the cluster stopped"


def test_an_asyncio_connection_reads_the_same_metadata():
    need_module("confluent_kafka")

    async def metadata_of(address: str):
        async with await aio.connect(*parse_address(address), timeout=10) as conn:
            assert METADATA in conn.versions
            return await conn.request(MetadataRequest(topics=None))

    with mock_cluster() as bootstrap:
        metadata = asyncio.run(metadata_of(bootstrap))
        assert kwire_view(metadata) == librdkafka_view(bootstrap)
        assert [f"{b.host}:{b.port}" for b in metadata.brokers] == [bootstrap]


def test_the_pytest_fixture_yields_a_running_cluster(kwire_mock_cluster):
    need_module("confluent_kafka")
    with BlockingConnection(*parse_address(kwire_mock_cluster), timeout=10) as conn:
        brokers = conn.request(MetadataRequest(topics=None)).brokers
        assert [f"{b.host}:{b.port}" for b in brokers] == [kwire_mock_cluster]


@pytest.mark.parametrize("brokers", [0, -1, True, "1"])
def test_fewer_than_one_broker_is_refused(brokers):
    with pytest.raises(MockClusterError, match="at least 1 broker"), mock_cluster(brokers):
        pass


def test_more_brokers_than_librdkafka_allows_is_refused():
    need_module("confluent_kafka")
    # librdkafka's own bound on test.mock.num.brokers is 10000; just past it, its refusal is passed on
    with pytest.raises(MockClusterError, match="10001 brokers.*outside allowed range 0..10000"), mock_cluster(10001):
        pass


def test_without_confluent_kafka_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "confluent_kafka", None)  # `import confluent_kafka` now fails
    with pytest.raises(KwireError) as raised, mock_cluster():
        pass
    assert str(raised.value) == ("kwire.testing.mock_cluster: confluent_kafka is not installed; "
                                 "install kwire[mock]")
