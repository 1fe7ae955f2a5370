"""A Kafka cluster for tests: librdkafka's mock cluster, which the confluent-kafka wheel ships.

librdkafka starts its mock cluster inside any client created with ``test.mock.num.brokers``
(CONFIGURATION.md: "Number of mock brokers to create. This will automatically overwrite
bootstrap.servers with the mock broker list"). :func:`mock_cluster` creates such a client that
never sends anything itself, reads the brokers' addresses from the cluster's own Metadata, and
yields them as a bootstrap string. The brokers listen on loopback, answer ApiVersions, Metadata,
Produce, Fetch, the group APIs and more, and create a topic when asked for it in Metadata. They
live in this process: destroying the client stops them.

Needs confluent-kafka (the ``mock`` extra: ``pip install 'kwire[mock]'``), imported only when called.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kwire.wire.errors import KwireError


class MockClusterError(KwireError):
    """The mock cluster could not start: confluent-kafka is missing, or librdkafka refused."""


def _confluent_kafka() -> Any:
    try:
        import confluent_kafka
    except ImportError:
        raise MockClusterError("kwire.testing.mock_cluster: confluent_kafka is not installed; "
                               "install kwire[mock]") from None
    return confluent_kafka


@contextmanager
def mock_cluster(brokers: int = 1, *, timeout: float = 10.0) -> Iterator[str]:
    """Start librdkafka's mock cluster with ``brokers`` brokers; yield its bootstrap servers
    (``127.0.0.1:PORT``, comma-separated when there are several); stop it on leaving.

    ::

        with mock_cluster() as bootstrap, KafkaClient(bootstrap) as client:
            ...
    """
    if isinstance(brokers, bool) or not isinstance(brokers, int) or brokers < 1:
        raise MockClusterError(f"a mock cluster has at least 1 broker, not {brokers!r}")
    kafka = _confluent_kafka()
    try:
        # log_level 3: librdkafka's notice that the mock replaced bootstrap.servers stays quiet.
        owner = kafka.Producer({"test.mock.num.brokers": brokers, "log_level": 3,
                                "client.id": "kwire-mock-cluster"})
    except kafka.KafkaException as exc:
        raise MockClusterError(f"librdkafka refused a mock cluster of {brokers} brokers: "
                               f"{exc.args[0].str().strip()}") from None
    try:
        try:
            metadata = owner.list_topics(timeout=timeout)
        except kafka.KafkaException as exc:
            raise MockClusterError(f"the mock cluster did not answer Metadata within {timeout} s: "
                                   f"{exc.args[0].str().strip()}") from None
        addresses = [f"{b.host}:{b.port}" for _, b in sorted(metadata.brokers.items())]
        if len(addresses) != brokers:
            raise MockClusterError(f"the mock cluster reports {len(addresses)} brokers, not {brokers}")
        yield ",".join(addresses)
    finally:
        # Destroying the owning client destroys the cluster: its brokers stop listening.
        if hasattr(owner, "close"):  # confluent-kafka 2.11+; before, the last reference going does it
            owner.close()
        del owner
