"""Frames, the api-key registry and the correlator.

Expected frames are worked out by hand from the wire rules (size prefix, header version rules,
compact encodings) or produced by kafka-python 3.0.12, which shares no code with kwire.
"""
from __future__ import annotations

import random

import pytest

from kwire.generated import (
    ApiVersionsRequest,
    ApiVersionsResponse,
    ControlledShutdownRequest,
    MetadataRequest,
    MetadataResponse,
    ProduceRequest,
)
from kwire.generated.api_versions_response import ApiVersion
from kwire.generated.metadata_request import MetadataRequestTopic
from kwire.network.framing import (
    DEFAULT_MAX_FRAME_BYTES,
    CorrelationError,
    Correlator,
    UnknownApiKeyError,
    UnsupportedApiVersions,
    build_request_frame,
    build_response_frame,
    iter_frames,
    parse_request_frame,
    parse_response_frame,
    read_frame,
)
from kwire.wire.errors import DecodeError, EncodeError, KwireError, UnsupportedVersionError
from kwire.wire.index import load
from tests.optional import later
from tests.packages import KpMetadataRequest
from tests.paths import CAPTURES

KpApiVersionsRequest, KpApiVersionsResponse = (later("kafka.protocol.metadata", name)
                                              for name in ("ApiVersionsRequest", "ApiVersionsResponse"))



def h(text: str) -> bytes:
    """Hex with spaces, and `#` comments to the end of each line."""
    return bytes.fromhex("".join(line.split("#", 1)[0] for line in text.splitlines()))


API_VERSIONS_V3_REQUEST = h("""
    0000001b                  # size 27
    0012 0003 00000001        # RequestHeader v2 (flexible request): ApiVersions v3, correlation id 1
    0005 6b77697265           #   client id "kwire", int16 length
    00                        #   no tagged fields
    06 6b77697265             # ClientSoftwareName "kwire" (compact: length + 1)
    04 302e31                 # ClientSoftwareVersion "0.1"
    00                        # no tagged fields
""")

API_VERSIONS_V3_RESPONSE = h("""
    00000013                  # size 19
    00000001                  # ResponseHeader v0: ApiVersions never uses v1
    0000                      # ErrorCode 0
    02 0012 0000 0004 00      # ApiKeys: compact count 1+1; ApiVersions 0..4, no tags
    00000000                  # ThrottleTimeMs
    00                        # no tagged fields (all four at their defaults)
""")

METADATA_V12_RESPONSE = h("""
    00000011                  # size 17
    00000005 00               # ResponseHeader v1 (flexible response): correlation id 5, no tags
    00000000                  # ThrottleTimeMs
    01                        # Brokers: empty compact array
    00                        # ClusterId: null compact string
    ffffffff                  # ControllerId -1
    01                        # Topics: empty
    00                        # no tagged fields
""")

CONTROLLED_SHUTDOWN_V0_REQUEST = h("""
    0000000c                  # size 12
    0007 0000 0000002a        # RequestHeader v0: no client id, no tags
    00000001                  # BrokerId 1
""")

# An UNSUPPORTED_VERSION answer the way Kafka's brokers send it: a v0 body, whatever was asked.
REFUSAL_AT_V0 = h("""
    00000010                  # size 16
    00000001                  # ResponseHeader v0
    0023                      # ErrorCode 35 UNSUPPORTED_VERSION
    00000001 0012 0000 0003   # ApiKeys (v0: int32 count): ApiVersions 0..3
""")


# --- building --------------------------------------------------------------------------------

def test_build_flexible_request_frame():
    body = ApiVersionsRequest(client_software_name="kwire", client_software_version="0.1")
    assert build_request_frame(body, 3, 1, "kwire") == API_VERSIONS_V3_REQUEST


def test_build_request_frame_matches_kafka_python():
    theirs = KpApiVersionsRequest(client_software_name="kwire", client_software_version="0.1", version=3)
    theirs.with_header(correlation_id=1, client_id="kwire")
    assert theirs.encode(header=True, framed=True) == API_VERSIONS_V3_REQUEST

    kp = KpMetadataRequest(topics=[KpMetadataRequest.MetadataRequestTopic(name="t-kp", topic_id=None)],
                           allow_auto_topic_creation=True, include_topic_authorized_operations=False, version=8)
    kp.with_header(correlation_id=3, client_id="kafka-python")
    ours = build_request_frame(MetadataRequest(topics=[MetadataRequestTopic(name="t-kp")],
                                               allow_auto_topic_creation=True), 8, 3, "kafka-python")
    assert ours == kp.encode(header=True, framed=True)


def test_build_api_versions_response_frame_uses_header_v0():
    body = ApiVersionsResponse(error_code=0, api_keys=[ApiVersion(api_key=18, min_version=0, max_version=4)])
    assert build_response_frame(body, 3, 1) == API_VERSIONS_V3_RESPONSE


def test_build_flexible_response_frame_uses_header_v1():
    assert build_response_frame(MetadataResponse(), 12, 5) == METADATA_V12_RESPONSE


def test_controlled_shutdown_v0_frame_uses_header_v0():
    frame = build_request_frame(ControlledShutdownRequest(broker_id=1), 0, 42, "ignored at v0")
    assert frame == CONTROLLED_SHUTDOWN_V0_REQUEST
    parsed = parse_request_frame(frame)
    assert (parsed.header_version, parsed.api_key, parsed.api_version, parsed.correlation_id) == (0, 7, 0, 42)
    assert parsed.body == ControlledShutdownRequest(broker_id=1)


def test_build_refuses_the_wrong_kind_of_message():
    with pytest.raises(EncodeError):
        build_request_frame(MetadataResponse(), 12, 1)
    with pytest.raises(EncodeError):
        build_response_frame(MetadataRequest(), 12, 1)
    with pytest.raises(UnsupportedVersionError):
        build_request_frame(MetadataRequest(), 99, 1)


# --- parsing ---------------------------------------------------------------------------------

def test_parse_request_frame():
    parsed = parse_request_frame(API_VERSIONS_V3_REQUEST)
    assert (parsed.api_key, parsed.api_version, parsed.correlation_id, parsed.header_version) == (18, 3, 1, 2)
    assert parsed.header.client_id == "kwire"
    assert parsed.body == ApiVersionsRequest(client_software_name="kwire", client_software_version="0.1")
    assert parsed.trailing == b""
    assert parsed.encode() == API_VERSIONS_V3_REQUEST


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_parse_accepts_any_buffer(kind):
    assert parse_request_frame(kind(API_VERSIONS_V3_REQUEST)).encode() == API_VERSIONS_V3_REQUEST


def test_parse_response_frames():
    parsed = parse_response_frame(API_VERSIONS_V3_RESPONSE, 18, 3)
    assert (parsed.correlation_id, parsed.header_version) == (1, 0)
    assert [(a.api_key, a.min_version, a.max_version) for a in parsed.body.api_keys] == [(18, 0, 4)]
    parsed = parse_response_frame(METADATA_V12_RESPONSE, 3, 12)
    assert (parsed.correlation_id, parsed.header_version) == (5, 1)
    assert parsed.body.controller_id == -1 and parsed.body.cluster_id is None


def with_extra_body_bytes(frame: bytes, extra: bytes) -> bytes:
    size = int.from_bytes(frame[:4], "big") + len(extra)
    return size.to_bytes(4, "big") + frame[4:] + extra


def test_bytes_after_the_body_are_refused_unless_allowed():
    frame = with_extra_body_bytes(METADATA_V12_RESPONSE, b"\x00")
    with pytest.raises(DecodeError, match="1 bytes left after MetadataResponse v12") as info:
        parse_response_frame(frame, 3, 12)
    assert info.value.offset == len(METADATA_V12_RESPONSE)
    parsed = parse_response_frame(frame, 3, 12, allow_trailing_bytes=True)
    assert parsed.trailing == b"\x00"
    assert parsed.encode() == METADATA_V12_RESPONSE


def test_bytes_after_the_frame_are_refused():
    with pytest.raises(DecodeError, match="bytes after the frame"):
        parse_request_frame(API_VERSIONS_V3_REQUEST + b"\x00")


def test_body_errors_name_the_message_and_field():
    frame = resized(API_VERSIONS_V3_REQUEST[4:-3])  # "0.1" cut to "0"
    with pytest.raises(DecodeError) as info:
        parse_request_frame(frame)
    assert info.value.path == "ApiVersionsRequest.client_software_version"
    assert info.value.offset == 27  # counted from the start of the frame, size prefix included


# --- size prefix -----------------------------------------------------------------------------

def test_read_frame_cuts_one_frame():
    stream = API_VERSIONS_V3_REQUEST + CONTROLLED_SHUTDOWN_V0_REQUEST
    frame, pos = read_frame(stream)
    assert (frame, pos) == (API_VERSIONS_V3_REQUEST, len(API_VERSIONS_V3_REQUEST))
    assert read_frame(stream, pos) == (CONTROLLED_SHUTDOWN_V0_REQUEST, len(stream))


def test_iter_frames():
    stream = API_VERSIONS_V3_REQUEST + CONTROLLED_SHUTDOWN_V0_REQUEST + METADATA_V12_RESPONSE
    assert list(iter_frames(memoryview(stream))) == [API_VERSIONS_V3_REQUEST, CONTROLLED_SHUTDOWN_V0_REQUEST,
                                                     METADATA_V12_RESPONSE]
    with pytest.raises(DecodeError, match="truncated frame"):
        list(iter_frames(stream[:-1]))


@pytest.mark.parametrize("data, message", [
    (b"", "truncated frame"),
    (h("000000"), "truncated frame"),
    (h("00000005 0102"), r"size prefix says 5 bytes, 2 follow"),
    (h("ffffffff"), "negative frame size"),
    (h("7fffffff"), "exceeds the limit"),  # refused before anything is allocated or read
])
def test_bad_size_prefix(data, message):
    with pytest.raises(DecodeError, match=message):
        read_frame(data)
    with pytest.raises(DecodeError, match=message):
        parse_request_frame(data)


@pytest.mark.parametrize("tail", [h("000000"), h("00000005 0102"), h("ffffffff"), h("7fffffff")],
                         ids=["short-prefix", "truncated", "negative", "over-limit"])
def test_a_bad_size_prefix_names_the_size_field_and_where_its_frame_starts(tail):
    """Every refusal of a size prefix says which field (the int32 size that opens each frame) and where
    that frame starts in the stream, not where the stream starts (kills
    ``framing.x_read_frame__mutmut_52``: the truncated frame's field path dropped)."""
    stream = API_VERSIONS_V3_REQUEST + tail
    with pytest.raises(DecodeError) as info:
        read_frame(stream, len(API_VERSIONS_V3_REQUEST))
    assert (info.value.path, info.value.offset) == ("frame size", len(API_VERSIONS_V3_REQUEST))


def test_frame_size_limit_is_configurable():
    assert DEFAULT_MAX_FRAME_BYTES == 100 * 1024 * 1024
    limit = len(API_VERSIONS_V3_REQUEST) - 5
    with pytest.raises(DecodeError, match=f"exceeds the limit of {limit} bytes"):
        parse_request_frame(API_VERSIONS_V3_REQUEST, max_frame_bytes=limit)
    with pytest.raises(DecodeError, match="exceeds the limit"):
        Correlator(max_frame_bytes=limit).parse_request(API_VERSIONS_V3_REQUEST)
    assert parse_request_frame(API_VERSIONS_V3_REQUEST, max_frame_bytes=limit + 1).correlation_id == 1


def test_empty_frame_is_a_truncated_header():
    with pytest.raises(DecodeError, match="RequestHeader"):
        parse_request_frame(h("00000000"))
    with pytest.raises(DecodeError, match="ResponseHeader"):
        Correlator().parse_response(h("00000002 0000"))


# --- the index -------------------------------------------------------------------------------

def test_the_index_pairs_every_generated_api():
    from kwire.generated import MESSAGES

    index = load()
    # by name, so ListConfigResourcesRequest comes after its former name (both api key 74)
    requests = {c.API_KEY: c for c in MESSAGES.values() if c.MESSAGE_TYPE == "request"}
    assert set(index.apis) == set(requests)
    for key, cls in requests.items():
        assert index.request_class(key) is cls
        assert index.response_class(key).NAME == cls.NAME.replace("Request", "Response")
    assert 71 in index.apis  # GetTelemetrySubscriptions


def test_the_index_of_kafka_python_definitions(kp_generated):
    index = load(kp_generated)
    assert index.request_class(18).NAME == "ApiVersionsRequest"
    assert 71 not in index.apis
    with pytest.raises(UnknownApiKeyError) as info:
        index.response_class(71)
    assert info.value.api_key == 71


# --- the correlator --------------------------------------------------------------------------

def test_correlator_pairs_out_of_order_responses():
    correlator = Correlator()
    correlator.parse_request(API_VERSIONS_V3_REQUEST)  # correlation id 1
    correlator.build_request(MetadataRequest(topics=None), 12, 5, "kwire")
    assert correlator.pending == {1: (18, 3), 5: (3, 12)}
    metadata = correlator.parse_response(METADATA_V12_RESPONSE)
    api_versions = correlator.parse_response(API_VERSIONS_V3_RESPONSE)
    assert isinstance(metadata.body, MetadataResponse) and (metadata.api_key, metadata.api_version) == (3, 12)
    assert isinstance(api_versions.body, ApiVersionsResponse) and api_versions.api_version == 3
    assert correlator.pending == {}


def test_unknown_correlation_id():
    correlator = Correlator()
    with pytest.raises(CorrelationError, match="correlation id 5") as info:
        correlator.parse_response(METADATA_V12_RESPONSE)
    assert isinstance(info.value, DecodeError)
    # the int32 right after the size prefix: ResponseHeader's CorrelationId (ResponseHeader.json, v0 and v1)
    # (kills framing.xǁCorrelatorǁparse_response__mutmut_21: the field's name in lower case)
    assert (info.value.path, info.value.offset) == ("ResponseHeader.correlation_id", 4)
    correlator.parse_request(API_VERSIONS_V3_REQUEST)
    correlator.parse_response(API_VERSIONS_V3_RESPONSE)
    with pytest.raises(CorrelationError):  # each response settles its request
        correlator.parse_response(API_VERSIONS_V3_RESPONSE)


def test_correlation_id_reused_while_in_flight():
    correlator = Correlator()
    correlator.parse_request(API_VERSIONS_V3_REQUEST)
    with pytest.raises(CorrelationError, match="already waiting"):
        correlator.parse_request(API_VERSIONS_V3_REQUEST)
    with pytest.raises(CorrelationError):
        correlator.expect(1, 3, 12)


def test_produce_with_acks_0_gets_no_response():
    correlator = Correlator()
    correlator.build_request(ProduceRequest(acks=0, timeout_ms=1000), 3, 7, "p")
    assert correlator.pending == {}
    frame = build_request_frame(ProduceRequest(acks=-1, timeout_ms=1000), 3, 8, "p")
    correlator.parse_request(frame)
    assert correlator.pending == {8: (0, 3)}


UNKNOWN_API_REQUEST = h("""
    0000000e                  # size 14
    270f 0000 00000003        # api key 9999, v0, correlation id 3
    0000                      # client id ""
    cafebabe                  # a body kwire cannot know
""")


def test_unknown_api_key_request_and_its_response():
    correlator = Correlator()
    with pytest.raises(UnknownApiKeyError, match="api key 9999") as info:
        correlator.parse_request(UNKNOWN_API_REQUEST)
    assert info.value.api_key == 9999 and isinstance(info.value, KwireError)
    assert correlator.pending == {3: (9999, 0)}  # so that the response is named as well
    with pytest.raises(UnknownApiKeyError, match="api key 9999"):
        correlator.parse_response(h("00000008 00000003 00000000"))
    assert correlator.pending == {}
    with pytest.raises(UnknownApiKeyError):
        parse_request_frame(UNKNOWN_API_REQUEST)


def test_known_api_at_unknown_version():
    frame = build_request_frame(MetadataRequest(), 12, 1)
    frame = frame[:6] + (99).to_bytes(2, "big") + frame[8:]
    with pytest.raises(UnsupportedVersionError):
        parse_request_frame(frame)


# --- ApiVersions refused with UNSUPPORTED_VERSION -------------------------------------------

def test_refusal_with_a_v0_body():
    correlator = Correlator()
    correlator.parse_request(API_VERSIONS_V3_REQUEST)
    parsed = correlator.parse_response(REFUSAL_AT_V0)
    refusal = parsed.body
    assert isinstance(refusal, UnsupportedApiVersions)
    assert (refusal.error_code, refusal.requested_version, parsed.api_version) == (35, 3, 3)
    assert [(a.api_key, a.min_version, a.max_version) for a in refusal.api_keys] == [(18, 0, 3)]
    assert refusal.raw == REFUSAL_AT_V0[8:]
    assert parsed.encode() == REFUSAL_AT_V0
    # kafka-python reads the same bytes the same way (it falls back to v0 on any error)
    theirs = KpApiVersionsResponse.decode(REFUSAL_AT_V0, version=3, header=True, framed=True)
    assert theirs.error_code == 35
    assert [(a.api_key, a.min_version, a.max_version) for a in theirs.api_keys] == [(18, 0, 3)]


def test_refusal_of_a_version_kwire_does_not_know():
    # A client newer than kwire asks for ApiVersions v9; the broker still answers at v0.
    correlator = Correlator()
    correlator.expect(1, 18, 9)
    refusal = correlator.parse_response(REFUSAL_AT_V0).body
    assert isinstance(refusal, UnsupportedApiVersions) and refusal.requested_version == 9
    assert refusal.fallback == ApiVersionsResponse(error_code=35, api_keys=[ApiVersion(api_key=18, max_version=3)])


def test_refusal_whose_body_is_neither_v0_nor_the_requested_version():
    body = h("0023 ff")  # error 35, then one byte that is no array count in any version
    frame = (4 + len(body)).to_bytes(4, "big") + h("00000001") + body
    refusal = parse_response_frame(frame, 18, 3).body
    assert isinstance(refusal, UnsupportedApiVersions)
    assert (refusal.fallback, refusal.api_keys, refusal.raw) == (None, None, body)


def test_error_35_at_the_requested_version_is_an_ordinary_response():
    body = ApiVersionsResponse(error_code=35, api_keys=[ApiVersion(api_key=18, max_version=2)])
    parsed = parse_response_frame(build_response_frame(body, 3, 1), 18, 3)
    assert parsed.body == body


def test_other_errors_get_no_fallback():
    body = h("0029 ff")  # error 41, garbled
    frame = (4 + len(body)).to_bytes(4, "big") + h("00000001") + body
    with pytest.raises(DecodeError):
        parse_response_frame(frame, 18, 3)
    with pytest.raises(DecodeError):  # too short to carry an error code
        parse_response_frame(h("00000005 00000001 00"), 18, 3)


# --- bad input: only kwire's errors ----------------------------------------------------------

def fuzz_inputs() -> list:
    picks = [
        ("tansu/raw/c19_resp_0003_k1_v12_corr4.bin", "resp", 1, 12),
        ("tansu/raw/c13_resp_0001_k3_v12_corr2.bin", "resp", 3, 12),
        ("librdkafka-mock/raw/c15_resp_0002_k3_v8_corr3.bin", "resp", 3, 8),
        ("tansu/raw/c01_resp_0000_k18_v3_corr1.bin", "resp", 18, 3),
        ("librdkafka-mock/raw/c15_req_0002_k3_v8_corr3.bin", "req", 3, 8),
        ("tansu/raw/c17_req_0001_k22_v4_corr2.bin", "req", 22, 4),
        ("librdkafka-mock/raw/c02_req_0002_k0_v10_corr3.bin", "req", 0, 10),
    ]
    return [pytest.param(*p, id=p[0]) for p in picks]


def parse_any(frame: bytes, direction: str, api_key: int, version: int) -> None:
    if direction == "req":
        parse_request_frame(frame)
    else:
        parse_response_frame(frame, api_key, version)


def resized(payload: bytes) -> bytes:
    return len(payload).to_bytes(4, "big") + payload


@pytest.mark.parametrize("name, direction, api_key, version", fuzz_inputs())
def test_truncated_and_corrupted_captures_raise_only_kwire_errors(name, direction, api_key, version):
    frame = (CAPTURES / name).read_bytes()
    parse_any(frame, direction, api_key, version)  # the whole frame decodes
    payload = frame[4:]
    step = max(1, len(payload) // 400)  # every cut point on small frames, a sample on big ones
    for cut in range(0, len(payload), step):
        with pytest.raises(KwireError):  # a strict prefix can never be a whole message
            parse_any(resized(payload[:cut]), direction, api_key, version)
    rng = random.Random(f"{name}")
    for _ in range(300):
        mutated = bytearray(payload)
        for _ in range(rng.randint(1, 4)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        try:
            parse_any(resized(bytes(mutated)), direction, api_key, version)
        except KwireError:
            pass


def test_truncated_refusals_stay_refusals_or_raise():
    # An ApiVersions answer that starts with error 35 is a refusal however little follows it.
    frame = (CAPTURES / "librdkafka-mock/raw/c01_resp_0000_k18_v3_corr1.bin").read_bytes()
    payload = frame[4:]
    for cut in range(len(payload)):
        try:
            parsed = parse_response_frame(resized(payload[:cut]), 18, 3)
        except KwireError:
            assert cut < 6  # no room for the error code
        else:
            # Some prefixes happen to be whole v3 bodies (the requested version is tried first,
            # as Kafka's client does); the rest are refusals carrying the bytes as sent.
            body = parsed.body
            assert body.error_code == 35
            assert isinstance(body, ApiVersionsResponse) or body.raw == payload[4:cut]
