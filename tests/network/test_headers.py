"""Request/response headers and the rules for which header version a message uses.

Expected bytes are worked out by hand from the wire rules (WIRE_FACTS.md, "Headers and frames");
the header-version rules are checked against kio, whose schemas name the header class of every
(api, version) it knows, and the encodings against kafka-python's header classes.
"""
from __future__ import annotations

import pytest

from kwire.generated import (
    ApiVersionsRequest,
    ApiVersionsResponse,
    ControlledShutdownRequest,
    ControlledShutdownResponse,
    MetadataRequest,
    MetadataResponse,
    RequestHeader,
    ResponseHeader,
)
from kwire.network.headers import (
    encode_request_header,
    encode_response_header,
    peek_correlation_id,
    peek_request_key,
    read_request_header,
    read_response_header,
)
from kwire.wire.errors import DecodeError, KwireError, UnsupportedVersionError
from kwire.wire.index import load
from tests.optional import later, need_module, params_from

KpRequestHeader = later("kafka.protocol.api_header", "RequestHeader")
KpResponseHeader = later("kafka.protocol.api_header", "ResponseHeader")


def request_header_version(cls, version: int) -> int:
    """The RequestHeader version framing writes before ``version`` of ``cls``: the index's answer."""
    return load().api(cls.API_KEY).request_header_version(version)


def response_header_version(cls, version: int) -> int:
    return load().api(cls.API_KEY).response_header_version(version)


def h(text: str) -> bytes:
    """Hex with spaces, and `#` comments to the end of each line."""
    return bytes.fromhex("".join(line.split("#", 1)[0] for line in text.splitlines()))


# --- which header version --------------------------------------------------------------------

def kio_header_version(api_key: int, version: int, kind: str) -> int | None:
    """The header version kio's schema for (api key, version) declares, or None if kio lacks it."""
    index = need_module("kio.index")
    loader = index.load_request_schema if kind == "request" else index.load_response_schema
    try:
        schema = loader(api_key, version)
    except index.KioIndexError:
        return None
    # e.g. kio.schema.request_header.v2.header
    return int(schema.__header_schema__.__module__.split(".")[-2][1:])


def all_versions():
    index = load()
    for api_key in sorted(index.apis):
        for kind, cls in (("request", index.request_class(api_key)), ("response", index.response_class(api_key))):
            low, high = cls.VALID_VERSIONS
            for version in range(low, high + 1):
                yield cls, kind, version


@pytest.mark.parametrize("cls, kind, version", params_from("kio.index", lambda _: [
    pytest.param(cls, kind, version, id=f"{cls.NAME}-v{version}")
    for cls, kind, version in all_versions() if kio_header_version(cls.API_KEY, version, kind) is not None
], width=3))
def test_header_version_agrees_with_kio(cls, kind, version):
    rule = request_header_version if kind == "request" else response_header_version
    assert rule(cls, version) == kio_header_version(cls.API_KEY, version, kind)


def test_versions_kio_lacks_are_few_and_known():
    # The comparison above must not quietly shrink. kio 0.6.5 is built from Kafka 4.x, which retired
    # ControlledShutdown, LeaderAndIsr, StopReplica and UpdateMetadata (checked by hand below) and,
    # with KIP-896, the oldest
    # versions of AlterPartition and the delegation-token APIs (and of Produce, Fetch and the other
    # APIs whose versions kwire restored from Kafka 3.8.0: message_defs/README.md); BrokerRegistration v5 and
    # AddRaftVoterResponse v2 are newer than kio.
    missing = {f"{cls.NAME}-v{version}" for cls, kind, version in all_versions()
               if kio_header_version(cls.API_KEY, version, kind) is None}
    both = ("Request", "Response")
    assert missing == (
        {f"ControlledShutdown{kind}-v{v}" for kind in both for v in range(4)}
        | {f"LeaderAndIsr{kind}-v{v}" for kind in both for v in range(8)}
        | {f"StopReplica{kind}-v{v}" for kind in both for v in range(5)}
        | {f"UpdateMetadata{kind}-v{v}" for kind in both for v in range(9)}
        | {f"AlterPartition{kind}-v{v}" for kind in both for v in range(2)}
        | {f"{api}DelegationToken{kind}-v0" for api in ("Create", "Describe", "Expire") for kind in both}
        | {f"Produce{kind}-v{v}" for kind in both for v in range(3)}
        | {f"Fetch{kind}-v{v}" for kind in both for v in range(4)}
        | {f"{api}{kind}-v0" for kind in both for api in (
            "AlterReplicaLogDirs", "CreateAcls", "DeleteAcls", "DeleteTopics", "DescribeAcls", "DescribeConfigs",
            "DescribeLogDirs", "ListOffsets", "OffsetFetch", "RenewDelegationToken", "WriteTxnMarkers")}
        | {f"{api}{kind}-v{v}" for kind in both for api in ("CreateTopics", "OffsetCommit", "OffsetForLeaderEpoch")
           for v in range(2)}
        | {"BrokerRegistrationRequest-v5", "BrokerRegistrationResponse-v5", "AddRaftVoterResponse-v2"})


def test_controlled_shutdown_v0_alone_uses_request_header_v0():
    assert [request_header_version(ControlledShutdownRequest, v) for v in range(4)] == [0, 1, 1, 2]
    assert [response_header_version(ControlledShutdownResponse, v) for v in range(4)] == [0, 0, 0, 1]


def test_leader_and_isr_headers_follow_its_flexible_versions():
    # not in kio: LeaderAndIsr is flexible from v4 (KIP-482), so its headers change there
    from kwire.generated import LeaderAndIsrRequest, LeaderAndIsrResponse

    assert [request_header_version(LeaderAndIsrRequest, v) for v in range(8)] == [1, 1, 1, 1, 2, 2, 2, 2]
    assert [response_header_version(LeaderAndIsrResponse, v) for v in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]


def test_stop_replica_and_update_metadata_headers_follow_their_flexible_versions():
    # not in kio either: StopReplica is flexible from v2, UpdateMetadata from v6
    from kwire.generated import StopReplicaRequest, StopReplicaResponse, UpdateMetadataRequest, UpdateMetadataResponse

    assert [request_header_version(StopReplicaRequest, v) for v in range(5)] == [1, 1, 2, 2, 2]
    assert [response_header_version(StopReplicaResponse, v) for v in range(5)] == [0, 0, 1, 1, 1]
    assert [request_header_version(UpdateMetadataRequest, v) for v in range(9)] == [1] * 6 + [2] * 3
    assert [response_header_version(UpdateMetadataResponse, v) for v in range(9)] == [0] * 6 + [1] * 3


def test_api_versions_response_header_is_always_v0():
    # even at versions kwire does not know, so the error of a too-new request can be read
    assert [response_header_version(ApiVersionsResponse, v) for v in range(10)] == [0] * 10
    assert [request_header_version(ApiVersionsRequest, v) for v in range(6)] == [1, 1, 1, 2, 2, 2]


def test_flexible_messages_use_the_newer_headers():
    assert request_header_version(MetadataRequest, 8) == 1
    assert request_header_version(MetadataRequest, 9) == 2
    assert response_header_version(MetadataResponse, 8) == 0
    assert response_header_version(MetadataResponse, 9) == 1


# --- request header bytes --------------------------------------------------------------------

V1_KAFKA_PYTHON = h("""
    0003                      # api key 3 (Metadata)
    0008                      # api version 8
    00000002                  # correlation id 2
    000c 6b61666b612d707974686f6e  # client id: int16 length 12, "kafka-python"
""")

V2_CAP_NONE = h("""
    0012 0003 00000001        # ApiVersions v3, correlation id 1
    0008 6361702d6e6f6e65     # client id "cap-none": int16 length even in v2 (flexibleVersions none)
    00                        # empty tagged section
""")


def test_request_header_v1_bytes():
    header = RequestHeader(request_api_key=3, request_api_version=8, correlation_id=2, client_id="kafka-python")
    assert encode_request_header(header, 1) == V1_KAFKA_PYTHON
    assert read_request_header(V1_KAFKA_PYTHON, 0, 1) == (header, len(V1_KAFKA_PYTHON))


def test_request_header_v1_null_client_id():
    wire = h("0001 000b 7fffffff ffff")
    header = RequestHeader(request_api_key=1, request_api_version=11, correlation_id=0x7FFFFFFF, client_id=None)
    assert encode_request_header(header, 1) == wire
    assert read_request_header(wire, 0, 1) == (header, 10)


def test_request_header_v2_keeps_int16_client_id_length():
    header = RequestHeader(request_api_key=18, request_api_version=3, correlation_id=1, client_id="cap-none")
    assert encode_request_header(header, 2) == V2_CAP_NONE
    assert read_request_header(V2_CAP_NONE, 0, 2) == (header, len(V2_CAP_NONE))


def test_request_header_v2_long_client_id_is_not_compact():
    # 200 bytes: int16 length 00c8; a compact string would start with the varint c9 01.
    name = "c" * 200
    wire = encode_request_header(RequestHeader(request_api_key=0, request_api_version=9, correlation_id=5,
                                               client_id=name), 2)
    assert wire == h("0000 0009 00000005 00c8") + name.encode() + b"\x00"


def test_request_header_v2_null_client_id_and_unknown_tag():
    wire = h("""
        0003 000c 00000009
        ffff              # null client id, int16 -1
        01 05 02 abcd     # one tagged field: tag 5, 2 bytes
    """)
    header = RequestHeader(request_api_key=3, request_api_version=12, correlation_id=9, client_id=None,
                           unknown_tagged_fields=((5, b"\xab\xcd"),))
    assert encode_request_header(header, 2) == wire
    assert read_request_header(wire, 0, 2) == (header, len(wire))


def test_request_header_v0_has_no_client_id():
    wire = h("0007 0000 0000002a")  # ControlledShutdown v0, correlation id 42
    header, pos = read_request_header(wire + b"\xee", 0, 0)
    assert pos == 8
    assert (header.request_api_key, header.request_api_version, header.correlation_id) == (7, 0, 42)
    assert header.client_id == ""  # absent at v0: its default
    assert encode_request_header(header, 0) == wire
    # upstream's ClientId is ignorable, so v0 drops it rather than failing
    header.client_id = "broker-1"
    assert encode_request_header(header, 0) == wire


def test_request_header_v0_refuses_tagged_fields():
    header = RequestHeader(request_api_key=7, request_api_version=0, correlation_id=1,
                           unknown_tagged_fields=((0, b"x"),))
    with pytest.raises(UnsupportedVersionError):
        encode_request_header(header, 0)


@pytest.mark.parametrize("flexible, version", [(False, 1), (True, 2)])
def test_request_header_matches_kafka_python(flexible, version):
    theirs = KpRequestHeader(request_api_key=3, request_api_version=12, correlation_id=77,
                             client_id="kafka-python-3.0.12").encode(flexible=flexible)
    ours = encode_request_header(RequestHeader(request_api_key=3, request_api_version=12, correlation_id=77,
                                               client_id="kafka-python-3.0.12"), version)
    assert ours == theirs


def test_peek_request_key():
    assert peek_request_key(V2_CAP_NONE) == (18, 3, 1)
    assert peek_request_key(b"\x00" * 3 + V1_KAFKA_PYTHON, 3) == (3, 8, 2)


@pytest.mark.parametrize("version, cut", [(0, 0), (0, 7), (1, 1), (1, 9), (1, 17), (2, 12), (2, 18)])
def test_truncated_request_header_is_a_decode_error(version, cut):
    wire = V2_CAP_NONE[:cut]
    with pytest.raises(DecodeError) as info:
        read_request_header(wire, 0, version)
    assert "RequestHeader" in info.value.path


def test_request_header_version_out_of_range():
    with pytest.raises(UnsupportedVersionError):
        read_request_header(V2_CAP_NONE, 0, 3)
    with pytest.raises(KwireError):
        encode_request_header(RequestHeader(), 3)


# --- response header bytes -------------------------------------------------------------------

def test_response_header_v0_and_v1_bytes():
    header = ResponseHeader(correlation_id=258)
    assert encode_response_header(header, 0) == h("00000102")
    assert encode_response_header(header, 1) == h("00000102 00")
    assert read_response_header(h("00000102 00"), 0, 1) == (header, 5)
    assert read_response_header(h("00000102 00"), 0, 0) == (header, 4)


def test_response_header_v1_unknown_tag_round_trips():
    wire = h("fffffffe 01 00 03 616263")  # correlation id -2; tag 0, 3 bytes "abc"
    header, pos = read_response_header(wire, 0, 1)
    assert (header.correlation_id, header.unknown_tagged_fields, pos) == (-2, ((0, b"abc"),), len(wire))
    assert encode_response_header(header, 1) == wire


@pytest.mark.parametrize("flexible, version", [(False, 0), (True, 1)])
def test_response_header_matches_kafka_python(flexible, version):
    assert encode_response_header(ResponseHeader(correlation_id=12345), version) == \
        KpResponseHeader(correlation_id=12345).encode(flexible=flexible)


def test_truncated_response_header():
    with pytest.raises(DecodeError):
        read_response_header(h("000001"), 0, 0)
    with pytest.raises(DecodeError):
        read_response_header(h("00000001"), 0, 1)  # the tagged section is missing
    with pytest.raises(DecodeError):
        read_response_header(h("00000001 02 00"), 0, 1)  # two tags announced, no room
    with pytest.raises(DecodeError):
        peek_correlation_id(h("0000"))
    assert peek_correlation_id(h("ffffffff")) == -1

