"""KafkaClient against a loopback broker whose every answer kio encodes and whose every request kio reads.

The broker (:class:`FetchingBroker`) offers ApiVersions 0-3, Metadata v1, Fetch v4 and Produce v7-8 only, so
the client speaks those versions. It names itself as node 0 in Metadata, so the client's leader connection comes
back to it. Each partition holds a record batch built by kafka-python's ``DefaultRecordBatchBuilder``
(values of the partition's own), and a Fetch is answered for the partition it asks for, as a broker
answers: a client that asks for the wrong partition gets the wrong records, or none of the one it
meant. kwire's codec is not involved on the broker's side.
"""
from __future__ import annotations

import csv
import socket
import struct
import sys
from typing import Any

import pytest

from kwire.network.client import ClientError, KafkaClient, PartitionInfo
from tests.network.livepeers import LOOPBACK, LoopbackPeer
from tests.optional import need_module
from tests.paths import DATA

API_VERSIONS, METADATA, FETCH, PRODUCE = 18, 3, 1, 0
# Produce v8 added a partition's ErrorMessage (Kafka's ProduceResponse.json); v7 is the last without it
OFFERED = ((API_VERSIONS, 0, 3), (METADATA, 1, 1), (FETCH, 4, 4), (PRODUCE, 7, 8))
LEADER_NOT_AVAILABLE = 5  # Kafka's Errors.LEADER_NOT_AVAILABLE
TOPIC = "kio-topic"
# partition -> the values of its one batch, offsets 0.. (the high watermark is their count)
CONTENTS = {0: (b"zero",), 1: (b"one-a", b"one-b")}


def kafka_python_batch(values: tuple[bytes, ...]) -> bytes:
    from kafka.record.default_records import DefaultRecordBatchBuilder

    builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    for offset, value in enumerate(values):
        builder.append(offset, 1_700_000_000_000, None, value, [])
    return bytes(builder.build())


class FetchingBroker(LoopbackPeer):
    """A broker that reads each request with kio and answers it with kio, so no kwire codec is on
    its side (unlike :class:`tests.network.kio_broker.KioBroker`, which parses requests with kwire's
    framing). Serves each connection in a thread of its own until closed. ``metadata_codes``: the topic error code of
    each Metadata answer in turn (the last repeats; 0 names the partitions of ``CONTENTS``, node 0 leading).
    ``fetched`` collects (topic, partition, offset) of every partition a Fetch asked for. ``produce_error``:
    the (error code, error message) every Produce is refused with (the message sent from v8 on)."""

    def __init__(self, kio_broker: Any, metadata_codes: tuple[int, ...] = (0,),
                 produce_error: tuple[int, str | None] = (0, None)) -> None:
        from kio.index import load_request_schema, load_response_schema
        from kio.schema.errors import ErrorCode
        from kio.serial import entity_reader

        self._kio = kio_broker
        self._load_request_schema, self._load_response_schema = load_request_schema, load_response_schema
        self._error_code, self._entity_reader = ErrorCode, entity_reader
        self.metadata_codes = metadata_codes
        self.metadata_asked = 0
        self.fetched: list[tuple[str, int, int]] = []
        self.produce_error = produce_error
        self.batches = {p: kafka_python_batch(values) for p, values in CONTENTS.items()}
        super().__init__()

    # the client keeps its bootstrap connection open while it connects to the leader
    concurrent = True

    def _converse(self, conn: socket.socket) -> None:
        while (prefix := self._kio._read_exactly(conn, 4)) is not None:
            frame = self._kio._read_exactly(conn, struct.unpack(">i", prefix)[0])
            if frame is None:
                return
            # RequestHeader v1 (every version offered here is below its API's flexible versions)
            api_key, version, cid, id_length = struct.unpack_from(">hhih", frame)
            body = frame[10 + max(id_length, 0):]
            if api_key == API_VERSIONS:
                fields = self._kio.api_versions_fields(version, OFFERED)
            elif api_key == METADATA:
                fields = self._metadata(version)
            elif api_key == FETCH:
                fields = self._fetch(version, self._read(api_key, version, body))
            elif api_key == PRODUCE:
                fields = self._produce(version, self._read(api_key, version, body))
            else:
                raise AssertionError(f"api key {api_key} was not offered")
            conn.sendall(self._kio.kio_response_frame(api_key, version, cid, **fields))

    def _read(self, api_key: int, version: int, body: bytes) -> Any:
        schema = self._load_request_schema(api_key, version)
        request, size = self._entity_reader(schema)(body, 0)
        assert size == len(body), f"{size} of {len(body)} bytes read"
        return request

    def _module(self, api_key: int, version: int) -> Any:
        return sys.modules[self._load_response_schema(api_key, version).__module__]

    def _metadata(self, version: int) -> dict[str, Any]:
        from kio.schema.types import BrokerId, TopicName
        from kio.static.primitive import i32

        m = self._module(METADATA, version)
        code = self.metadata_codes[min(self.metadata_asked, len(self.metadata_codes) - 1)]
        self.metadata_asked += 1
        partitions = () if code else tuple(
            m.MetadataResponsePartition(error_code=self._error_code.none, partition_index=i32(p),
                                        leader_id=BrokerId(0), replica_nodes=(BrokerId(0),), isr_nodes=(BrokerId(0),))
            for p in CONTENTS)
        topic = m.MetadataResponseTopic(error_code=self._error_code(code), name=TopicName(TOPIC), is_internal=False,
                                        partitions=partitions)
        broker = m.MetadataResponseBroker(node_id=BrokerId(0), host=LOOPBACK, port=i32(self.port), rack=None)
        return {"brokers": (broker,), "controller_id": BrokerId(0), "topics": (topic,)}

    def _fetch(self, version: int, request: Any) -> dict[str, Any]:
        from kio.static.primitive import i32, i32Timedelta, i64

        m = self._module(FETCH, version)
        topics = []
        for topic in request.topics:
            answers = []
            for asked in topic.partitions:
                partition, offset = int(asked.partition), int(asked.fetch_offset)
                self.fetched.append((str(topic.topic), partition, offset))
                end = len(CONTENTS[partition])
                answers.append(m.PartitionData(
                    partition_index=i32(partition), error_code=self._error_code.none, high_watermark=i64(end),
                    last_stable_offset=i64(end), aborted_transactions=(),
                    records=self.batches[partition] if offset < end else None))
            topics.append(m.FetchableTopicResponse(topic=topic.topic, partitions=tuple(answers)))
        return {"throttle_time": i32Timedelta.parse(self._kio.ZERO), "responses": tuple(topics)}

    def _produce(self, version: int, request: Any) -> dict[str, Any]:
        from kio.static.primitive import i32Timedelta, i64

        m = self._module(PRODUCE, version)
        code, message = self.produce_error
        since_v8 = {"record_errors": (), "error_message": message} if version >= 8 else {}
        topics = tuple(m.TopicProduceResponse(name=topic.name, partition_responses=tuple(
            m.PartitionProduceResponse(index=asked.index, error_code=self._error_code(code), base_offset=i64(-1),
                                       **since_v8)
            for asked in topic.partition_data)) for topic in request.topic_data)
        return {"responses": topics, "throttle_time": i32Timedelta.parse(self._kio.ZERO)}


@pytest.fixture
def start_broker():
    need_module("kio")
    need_module("kafka")
    need_module("scramp")  # tests/network/kio_broker.py imports it
    from tests.network import kio_broker

    brokers: list[FetchingBroker] = []

    def start(**options: Any) -> FetchingBroker:
        brokers.append(FetchingBroker(kio_broker, **options))
        return brokers[-1]

    yield start
    for broker in brokers:
        broker.close()


def test_fetch_asks_for_the_partition_it_was_given(start_broker):
    """Partition 1, not partition 0 (kills ``client.xǁKafkaClientǁfetch__mutmut_21``: the request's
    partition index left at its default, 0)."""
    broker = start_broker()
    with KafkaClient(f"{LOOPBACK}:{broker.port}", timeout=20) as client:
        where = client.partition(TOPIC, 1)
        assert where == PartitionInfo(TOPIC, where.topic_id, 1, 0)
        fetched = client.fetch(where)
    assert broker.fetched == [(TOPIC, 1, 0)]
    assert [r.value for r in fetched.records] == list(CONTENTS[1])
    assert [r.offset for r in fetched.records] == [0, 1] and fetched.high_watermark == 2


@pytest.mark.parametrize("attempts, found", [(2, True), (1, False)])
def test_a_leader_not_yet_available_is_asked_again_up_to_the_attempts_given(start_broker, attempts, found):
    """A topic whose leader is not elected yet (LEADER_NOT_AVAILABLE) is asked about again, within
    ``attempts`` Metadata requests: the second answer names the leader (kills
    ``client.xǁKafkaClientǁpartition__mutmut_38``: the retry became the end of the loop)."""
    broker = start_broker(metadata_codes=(LEADER_NOT_AVAILABLE, 0))
    with KafkaClient(f"{LOOPBACK}:{broker.port}", timeout=20) as client:
        if found:
            assert client.partition(TOPIC, 0, attempts=attempts).leader == 0
        else:
            with pytest.raises(ClientError, match=f"no leader for '{TOPIC}' partition 0 after 1 Metadata requests"):
                client.partition(TOPIC, 0, attempts=attempts)
    assert broker.metadata_asked == attempts


# Kafka's ProduceRequestTest.testProduceWithInvalidTimestamp (apache/kafka 1eb7644): a partition refused with
# INVALID_TIMESTAMP and this ErrorMessage
KAFKA_INVALID_TIMESTAMP = (32, "One or more records have been rejected due to invalid timestamp")


@pytest.mark.parametrize("version", [8, 7])
def test_a_produce_refusal_carries_the_broker_s_error_message_from_v8_on(start_broker, version):
    """Produce v8 (the first with a partition's ErrorMessage) passes the broker's message on in the error,
    after the code's name in Kafka's Errors (tests/data/kafka-errors); v7, one below, has none to pass on
    (kills ``client.xǁKafkaClientǁproduce__mutmut_65``: the message looked up on None, so dropped)."""
    code, message = KAFKA_INVALID_TIMESTAMP
    with (DATA / "kafka-errors" / "errors.tsv").open() as table:
        name = next(row["name"] for row in csv.DictReader(table, delimiter="\t") if int(row["code"]) == code)
    assert name == "INVALID_TIMESTAMP"
    broker = start_broker(produce_error=KAFKA_INVALID_TIMESTAMP)
    with KafkaClient(f"{LOOPBACK}:{broker.port}", timeout=20) as client:
        where = client.partition(TOPIC, 1)
        with pytest.raises(ClientError) as refused:
            client.produce(where, kafka_python_batch((b"late",)), version=version)
    error = refused.value
    assert error.error_code == code and error.__cause__.code == code
    head = f"producing to {TOPIC}[1] with Produce v{version} failed: {name} ({code}): "
    assert str(error).startswith(head)
    if version >= 8:
        assert error.__cause__.error_message == message and str(error) == head + message
    else:
        assert error.__cause__.error_message is None and message not in str(error)
