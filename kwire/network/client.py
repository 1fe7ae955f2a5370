"""A small synchronous Kafka client: kwire's supported way to talk to a broker from blocking code.

What it does: Metadata (:meth:`KafkaClient.metadata`, :meth:`KafkaClient.partition`), CreateTopics,
Produce of a record batch built by :mod:`kwire.records`, and Fetch, against the bootstrap broker and
the partition leaders Metadata names; any other request through a broker's connection
(:meth:`KafkaClient.connection`, then :meth:`BrokerConnection.request`). ``kwire features describe
--bootstrap-server`` is built on :class:`BrokerConnection`.

Each broker connection is a :class:`~kwire.network.blocking.BlockingConnection`, the blocking adapter
over kwire's sans-I/O :class:`~kwire.network.connection.Connection`, which does the framing, the
deadlines, SASL and the version negotiation: ApiVersions is asked once per connection, when it
opens (again only for the KIP-511 retry when a broker refuses a too-new ApiVersions request); every
request after that uses the versions it chose, and the broker's whole answer stays at hand as
:attr:`BrokerConnection.api_versions`. The client keeps one connection per broker.

The public API is ``__all__``: :class:`KafkaClient`, :class:`BrokerConnection`,
:class:`PartitionInfo`, :class:`FetchedPartition`, :func:`parse_address` and :class:`ClientError`.
Every failure is a :class:`~kwire.wire.errors.KwireError`: :class:`ClientError` for the conversation
(refused connection, timeout, a broker's error code in ``error_code``, named from the one
:class:`~kwire.wire.error_codes.ErrorCode` table), the codec's own errors for bytes that do not
decode, :class:`~kwire.wire.errors.UnsupportedVersionError` for an API the two sides share no
version of.
"""
from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import kwire
from kwire.generated import (
    CreateTopicsRequest,
    FetchRequest,
    MetadataRequest,
    ProduceRequest,
)
from kwire.generated.create_topics_request import CreatableTopic
from kwire.generated.fetch_request import FetchPartition, FetchTopic
from kwire.generated.metadata_request import MetadataRequestTopic
from kwire.generated.produce_request import PartitionProduceData, TopicProduceData
from kwire.records import BatchReader, Record
from kwire.wire.closing import Closing
from kwire.wire.errors import UnsupportedVersionError
from kwire.wire.index import ProtocolIndex

from .blocking import BlockingConnection
from .connection import CLIENT_SOFTWARE_NAME
from .errors import ClientError, ErrorCode, KafkaApiError, exception_for
from .framing import DEFAULT_MAX_FRAME_BYTES, ResponseFrame
from .sasl import SaslCredentials

# kwire's version in the characters brokers accept in ApiVersions v3+ (KIP-511: [a-zA-Z0-9.-],
# starting and ending with a letter or digit)
CLIENT_SOFTWARE_VERSION = re.sub(r"[^A-Za-z0-9.-]", "-", kwire.__version__).strip(".-") or "unknown"
DEFAULT_TIMEOUT = 10.0
NO_TOPIC_ID = uuid.UUID(int=0)

# api keys of the requests this client sends
PRODUCE, FETCH, METADATA, CREATE_TOPICS = 0, 1, 3, 19
# Produce and Fetch name topics until v12 and by topic id from v13 on (KIP-516)
TOPIC_IDS_FROM = 13

__all__ = ["BrokerConnection", "ClientError", "FetchedPartition", "KafkaClient", "PartitionInfo", "parse_address"]


def parse_address(address: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:9092`` for IPv6) as a (host, port) pair; anything else is a ClientError."""
    host, sep, port = address.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClientError(f"not a host:port address: {address!r}")
    return host.strip("[]"), int(port)


def _refused(what: str, code: int, message: str | None = None) -> ClientError:
    """A broker's error code as a ClientError: ``WHAT: NAME (code): message`` as
    :class:`~kwire.network.errors.KafkaApiError` words it (the broker's message, else the table's)."""
    error = exception_for(code, message)
    refused = ClientError(f"{what}: {error}", error_code=code)
    refused.__cause__ = error
    return refused


# --- one connection ------------------------------------------------------------------------------

class BrokerConnection(BlockingConnection):
    """A blocking connection to one broker, with the broker's version ranges at hand.

    ``versions`` maps api key -> the broker's (min, max); :meth:`version` picks the version to use.
    Responses may carry bytes after the message (librdkafka's mock appends one to flexible
    MetadataResponses); like Kafka's own readers the client ignores them, and keeps the last
    response frame in ``last_response`` for whoever wants to look.
    """

    def __init__(self, host: str, port: int, *, client_id: str = CLIENT_SOFTWARE_NAME,
                 timeout: float = DEFAULT_TIMEOUT, index: ProtocolIndex | None = None,
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, ssl: Any = None,
                 sasl: SaslCredentials | None = None) -> None:
        self.last_response: ResponseFrame | None = None
        try:
            super().__init__(host, port, ssl=ssl, sasl=sasl, client_id=client_id, timeout=timeout,
                             index=index, max_frame_bytes=max_frame_bytes,
                             client_software_version=CLIENT_SOFTWARE_VERSION, include_unstable=True)
        except KafkaApiError as exc:  # ApiVersions or SASL answered with an error code
            raise _refused(f"connecting to {host}:{port} failed", exc.code, exc.error_message) from None
        self.index = self.protocol.index

    @property
    def versions(self) -> dict[int, tuple[int, int]]:  # type: ignore[override]
        """api key -> the (min, max) versions the broker listed in its ApiVersions answer."""
        return self.protocol.broker_ranges

    @property
    def api_versions(self) -> Any:
        """The broker's ApiVersionsResponse, as decoded when the connection opened (its features
        from v3 on): the one ApiVersions exchange of this connection, not a new request."""
        assert self.protocol.api_versions is not None  # the constructor returns only once negotiated
        return self.protocol.api_versions.body

    @property
    def api_versions_version(self) -> int:
        """The version of that ApiVersions exchange (the last of :attr:`api_versions_used`)."""
        assert self.protocol.api_versions is not None
        return self.protocol.api_versions.api_version

    @property
    def api_versions_used(self) -> list[int]:
        """The ApiVersions versions asked, in order: one, or two after a KIP-511 refusal."""
        return self.protocol.api_versions_asked

    def exchange(self, body: Any, version: int | None = None, *, timeout: float | None = None) -> ResponseFrame | None:
        """Send ``body`` (at :meth:`version` unless given); return its whole response frame (None
        for Produce with acks=0). :meth:`request` returns just the body."""
        response = super().exchange(body, self.version(type(body).API_KEY) if version is None else version,
                                    timeout=timeout)
        if response is not None:
            self.last_response = response
        return response

    def version(self, api_key: int) -> int:
        """The highest version of ``api_key`` that both kwire and the broker support: the one the
        connection's negotiation chose (unstable versions included)."""
        chosen = self.protocol.versions.get(api_key)
        if chosen is not None:
            return chosen
        if api_key not in self.versions:
            raise UnsupportedVersionError(f"{self._where()} does not support api key {api_key}")
        ours = self.index.request_class(api_key).VALID_VERSIONS
        theirs = self.versions[api_key]
        raise UnsupportedVersionError(f"api key {api_key}: kwire has versions {ours[0]}-{ours[1]}, "
                                      f"{self._where()} {theirs[0]}-{theirs[1]}")

    def common_versions(self, api_key: int) -> range:
        """Every version of ``api_key`` that both sides support."""
        ours = self.index.request_class(api_key).VALID_VERSIONS
        theirs = self.versions.get(api_key, (0, -1))
        return range(max(ours[0], theirs[0]), min(ours[1], theirs[1]) + 1)


# --- the client ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class PartitionInfo:
    """A partition and its leader, as Metadata named them (:meth:`KafkaClient.partition`)."""

    topic: str
    topic_id: uuid.UUID
    partition: int
    leader: int


@dataclass(frozen=True)
class FetchedPartition:
    """What fetching one partition from an offset returned."""

    records: list[Record]
    batches: list[Any]  # kwire.records batches, as the broker sent them
    high_watermark: int


class KafkaClient(Closing):
    """Connects to a bootstrap broker, then to partition leaders as Metadata names them.

    ``bootstrap`` is ``host:port``; ``ssl`` an :class:`ssl.SSLContext` for TLS, ``sasl`` the
    credentials to authenticate with; ``timeout`` (seconds) bounds each request. A context manager:
    leaving the ``with`` block closes every connection.
    """

    def __init__(self, bootstrap: str, *, client_id: str = CLIENT_SOFTWARE_NAME,
                 timeout: float = DEFAULT_TIMEOUT, index: ProtocolIndex | None = None, ssl: Any = None,
                 sasl: SaslCredentials | None = None) -> None:
        self.client_id = client_id
        self.timeout = timeout
        self.index = index
        self.ssl = ssl  # an ssl.SSLContext for TLS, or None
        self.sasl = sasl
        self.bootstrap = self._connect(*parse_address(bootstrap))
        self._brokers: dict[int, tuple[str, int]] = {}
        self._connections: dict[int, BrokerConnection] = {}

    def _connect(self, host: str, port: int) -> BrokerConnection:
        return BrokerConnection(host, port, client_id=self.client_id, timeout=self.timeout, index=self.index,
                                ssl=self.ssl, sasl=self.sasl)

    def close(self) -> None:
        """Close every broker connection."""
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()
        self.bootstrap.close()

    def connection(self, node_id: int) -> BrokerConnection:
        """The connection to a broker that Metadata named."""
        if node_id not in self._connections:
            if node_id not in self._brokers:
                raise ClientError(f"broker {node_id} is not in the metadata")
            self._connections[node_id] = self._connect(*self._brokers[node_id])
        return self._connections[node_id]

    # -- metadata and topics

    def metadata(self, topics: Iterable[str] | None = None, *, auto_create: bool = False,
                 version: int | None = None) -> Any:
        """A MetadataResponse for ``topics`` (None: every topic); remembers the brokers.

        Before v4 the request cannot say whether to auto-create (the broker's setting decides),
        and v0 has no null: an empty list asks for every topic.
        """
        version = self.bootstrap.version(METADATA) if version is None else version
        names = None if topics is None else [MetadataRequestTopic(name=name) for name in topics]
        request = MetadataRequest(topics=[] if names is None and version == 0 else names)
        if version >= 4:
            request.allow_auto_topic_creation = auto_create
        response = self.bootstrap.request(request, version)
        self._brokers.update({b.node_id: (b.host, b.port) for b in response.brokers})
        return response

    def create_topics(self, names: Iterable[str], *, partitions: int = 1, replication_factor: int = 1,
                      timeout_ms: int = 10_000) -> Any:
        """Create topics; one that already exists is not an error."""
        request = CreateTopicsRequest(
            topics=[CreatableTopic(name=name, num_partitions=partitions, replication_factor=replication_factor)
                    for name in names],
            timeout_ms=timeout_ms)
        response = self.bootstrap.request(request)
        for result in response.topics:
            if result.error_code not in (0, ErrorCode.TOPIC_ALREADY_EXISTS):
                raise _refused(f"creating topic {result.name!r} failed", result.error_code, result.error_message)
        return response

    def partition(self, topic: str, partition: int = 0, *, create: bool = True, attempts: int = 20) -> PartitionInfo:
        """Where ``topic``'s partition lives.

        A missing topic is created with CreateTopics where the broker has it, else by letting
        Metadata auto-create it (librdkafka's mock has no CreateTopics).
        """
        create_explicitly = create and CREATE_TOPICS in self.bootstrap.versions
        created = False
        for _ in range(attempts):
            response = self.metadata([topic], auto_create=create and not create_explicitly)
            found = next((t for t in response.topics if t.name == topic), None)
            code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION if found is None else found.error_code
            if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION and create_explicitly and not created:
                self.create_topics([topic])
                created = True
                continue
            if code in (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.LEADER_NOT_AVAILABLE) and create:
                time.sleep(0.05)  # a new topic's leader takes a moment to appear
                continue
            if code or found is None:
                raise _refused(f"metadata for {topic!r}", code)
            for p in found.partitions:
                if p.partition_index == partition and p.error_code == 0 and p.leader_id >= 0:
                    return PartitionInfo(topic, found.topic_id, partition, p.leader_id)
            time.sleep(0.05)
        raise ClientError(f"no leader for {topic!r} partition {partition} after {attempts} Metadata requests")

    # -- produce and fetch

    def produce(self, where: PartitionInfo, batch: bytes, *, acks: int = -1, timeout_ms: int = 10_000,
                version: int | None = None) -> int:
        """Append one record batch (wire form, e.g. from RecordBatchBuilder); return its base offset."""
        connection = self.connection(where.leader)
        version = connection.version(PRODUCE) if version is None else version
        topic = TopicProduceData(partition_data=[PartitionProduceData(index=where.partition, records=batch)],
                                 **_topic_reference("name", where, version))
        request = ProduceRequest(acks=acks, timeout_ms=timeout_ms, topic_data=[topic])
        response = connection.request(request, version)
        if response is None:
            return -1  # acks=0: nothing comes back
        result = _only_partition(response.responses, "name", "partition_responses", "index", where, version)
        if result.error_code:
            raise _refused(f"producing to {where.topic}[{where.partition}] with Produce v{version} failed",
                           result.error_code, getattr(result, "error_message", None))
        return result.base_offset

    def fetch(self, where: PartitionInfo, offset: int = 0, *, until: int | None = None, max_wait_ms: int = 100,
              max_bytes: int = 1 << 20, version: int | None = None, max_requests: int = 100) -> FetchedPartition:
        """Records from ``offset`` up to ``until`` (default: the high watermark of the first answer)."""
        connection = self.connection(where.leader)
        version = connection.version(FETCH) if version is None else version
        records: list[Record] = []
        batches: list[Any] = []
        high_watermark = -1
        for _ in range(max_requests):
            partition = FetchPartition(partition=where.partition, fetch_offset=offset, partition_max_bytes=max_bytes)
            topic = FetchTopic(partitions=[partition], **_topic_reference("topic", where, version))
            request = FetchRequest(max_wait_ms=max_wait_ms, min_bytes=1, max_bytes=max_bytes, topics=[topic])
            response = connection.request(request, version)
            if response.error_code:
                raise _refused(f"Fetch v{version} failed", response.error_code)
            data = _only_partition(response.responses, "topic", "partitions", "partition_index", where, version)
            if data.error_code:
                raise _refused(f"fetching {where.topic}[{where.partition}] at offset {offset}", data.error_code)
            high_watermark = data.high_watermark
            until = high_watermark if until is None else until
            for batch in _batches(data.records):
                if batch.last_offset < offset:
                    continue  # a broker may return a batch that starts before the asked offset
                batches.append(batch)
                records += [r for r in batch.records if offset <= r.offset < until]
                offset = batch.last_offset + 1
            if offset >= until:
                return FetchedPartition(records, batches, high_watermark)
        raise ClientError(f"fetching {where.topic}[{where.partition}] stopped at offset {offset} of {until} "
                          f"after {max_requests} requests")


def _topic_reference(name_field: str, where: PartitionInfo, version: int) -> dict:
    """How a Produce or Fetch request of ``version`` names the topic: its name, or its id."""
    if version < TOPIC_IDS_FROM:
        return {name_field: where.topic}
    if where.topic_id == NO_TOPIC_ID:
        raise ClientError(f"v{version} needs the id of topic {where.topic!r}, and Metadata gave none")
    return {"topic_id": where.topic_id}


def _only_partition(topics: Any, name_attr: str, partitions_attr: str, index_attr: str, where: PartitionInfo,
                    version: int) -> Any:
    """The partition asked for, found in a response by topic (name or id) and index."""
    for topic in topics:
        by_id = version >= TOPIC_IDS_FROM
        if (topic.topic_id != where.topic_id) if by_id else (getattr(topic, name_attr) != where.topic):
            continue
        for partition in getattr(topic, partitions_attr):
            if getattr(partition, index_attr) == where.partition:
                return partition
    raise ClientError(f"the response does not mention {where.topic}[{where.partition}]")


def _batches(records: Any) -> list[Any]:
    """The complete batches of a ``records`` field (bytes, a RecordsView, or None)."""
    return [] if records is None else list(BatchReader(bytes(records)))
