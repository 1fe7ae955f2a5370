"""The sans-I/O Connection driven by hand: bytes in, bytes and events out, time passed as data.

The broker side of these conversations is built with kwire's generated classes (their bytes are
proven against Kafka elsewhere); what is tested here is the state machine. The KIP-511 refusal is
written by hand, and the SCRAM exchange is RFC 7677's test vector. The same conversations with
replies kio encodes (a codec kwire did not write) are at the end. Real peers: test_live_connection.py.
"""
from __future__ import annotations

import pytest

from kwire.generated import (
    ApiVersionsResponse,
    MetadataRequest,
    MetadataResponse,
    ProduceRequest,
    SaslAuthenticateResponse,
    SaslHandshakeResponse,
)
from kwire.generated.api_versions_response import ApiVersion
from kwire.network.connection import (
    Connection,
    ConnectionClosed,
    NotReady,
    Ready,
    RequestFailed,
    RequestTimedOut,
    Response,
    State,
    TooManyInFlight,
)
from kwire.network.errors import ErrorCode, KafkaApiError
from kwire.network.framing import build_response_frame, iter_frames, parse_request_frame
from kwire.network.sasl import Plain, Scram
from kwire.wire.errors import DecodeError
from tests.network.test_sasl import RFC7677
from tests.optional import need_module

BROKER_APIS = [(0, 0, 11), (1, 0, 17), (3, 0, 12), (17, 0, 1), (18, 0, 4), (36, 0, 2)]


def requests_sent(connection: Connection) -> list:
    return [parse_request_frame(frame) for frame in iter_frames(connection.data_to_send())]


def answer(request, body) -> bytes:
    return build_response_frame(body, request.api_version, request.correlation_id)


def api_versions_answer(apis=BROKER_APIS) -> ApiVersionsResponse:
    return ApiVersionsResponse(api_keys=[ApiVersion(api_key=k, min_version=lo, max_version=hi) for k, lo, hi in apis])


def ready_connection(**options) -> Connection:
    connection = Connection(**options)
    connection.start(0.0)
    [request] = requests_sent(connection)
    events = connection.receive_data(answer(request, api_versions_answer()), 0.0)
    assert events == [Ready({0: 11, 1: 17, 3: 12, 17: 1, 18: 4, 36: 2})] and connection.state is State.READY
    return connection


def test_connect_negotiates_from_bytes_fed_one_at_a_time():
    connection = Connection(client_id="me")
    connection.start(0.0)
    [request] = requests_sent(connection)
    assert (request.api_key, request.api_version, request.header.client_id) == (18, 4, "me")
    assert request.header_version == 2  # ApiVersions v4 is flexible
    data = answer(request, api_versions_answer())
    events = []
    for i in range(len(data)):
        events += connection.receive_data(data[i:i + 1], 0.0)
    assert [type(e) for e in events] == [Ready] and connection.versions[3] == 12


def test_a_refused_api_versions_is_asked_again_at_the_version_the_broker_lists():
    connection = Connection()
    connection.start(0.0)
    [request] = requests_sent(connection)
    # ApiVersionsResponse v0 written by hand: error 35, ApiVersions 0..2, Metadata 0..12 (KIP-511)
    body = bytes.fromhex("0023" "00000002" "001200000002" "00030000000c")
    frame = (4 + len(body)).to_bytes(4, "big") + request.correlation_id.to_bytes(4, "big") + body
    assert connection.receive_data(frame, 0.0) == []
    [again] = requests_sent(connection)
    assert (again.api_key, again.api_version) == (18, 2) and connection.api_versions_asked == [4, 2]
    assert connection.receive_data(answer(again, api_versions_answer([(18, 0, 2), (3, 0, 12)])), 0.0) == \
        [Ready({18: 2, 3: 12})]


def test_requests_before_ready_are_refused():
    connection = Connection()
    with pytest.raises(NotReady):
        connection.send(MetadataRequest(), 0.0)


def test_responses_use_the_versions_and_header_versions_negotiated():
    connection = ready_connection()
    correlation_id = connection.send(MetadataRequest(topics=None), 1.0)
    [request] = requests_sent(connection)
    assert (request.api_version, request.header_version, request.correlation_id) == (12, 2, correlation_id)
    [event] = connection.receive_data(answer(request, MetadataResponse(cluster_id="c")), 1.0)
    assert isinstance(event, Response) and event.correlation_id == correlation_id
    assert event.frame.header_version == 1 and event.body.cluster_id == "c"


def test_answers_out_of_order_reach_their_requests():
    connection = ready_connection()
    first = connection.send(MetadataRequest(topics=None), 0.0)
    second = connection.send(MetadataRequest(topics=None), 0.0, version=1)
    a, b = requests_sent(connection)
    events = connection.receive_data(answer(b, MetadataResponse(controller_id=2)) +
                                     answer(a, MetadataResponse(controller_id=1)), 0.0)
    assert [(e.correlation_id, e.body.controller_id) for e in events] == [(second, 2), (first, 1)]


def test_the_in_flight_limit():
    connection = ready_connection(max_in_flight=2)
    connection.send(MetadataRequest(), 0.0)
    connection.send(MetadataRequest(), 0.0)
    with pytest.raises(TooManyInFlight):
        connection.send(MetadataRequest(), 0.0)
    assert connection.in_flight == 2


def test_produce_with_acks_0_expects_no_answer():
    connection = ready_connection()
    assert connection.send(ProduceRequest(acks=0, timeout_ms=1, topic_data=[]), 0.0) == -1
    assert connection.in_flight == 0 and connection.next_deadline() is None


def test_timeouts_are_data():
    connection = ready_connection(request_timeout=30.0)
    correlation_id = connection.send(MetadataRequest(), 100.0, timeout=2.0)
    assert connection.next_deadline() == 102.0
    assert connection.check_timeouts(101.9) == [] and connection.state is State.READY
    [failed] = connection.check_timeouts(102.0)
    assert isinstance(failed, RequestFailed) and failed.correlation_id == correlation_id
    assert isinstance(failed.error, RequestTimedOut) and "timed out" in str(failed.error)
    assert connection.state is State.CLOSED
    with pytest.raises(ConnectionClosed):
        connection.send(MetadataRequest(), 103.0)


def test_a_peer_that_drops_the_connection_mid_response():
    connection = ready_connection()
    correlation_id = connection.send(MetadataRequest(), 0.0)
    [request] = requests_sent(connection)
    data = answer(request, MetadataResponse(cluster_id="c"))
    assert connection.receive_data(data[:10], 0.0) == []
    [failed] = connection.connection_lost("the broker closed the connection")
    assert failed.correlation_id == correlation_id and isinstance(failed.error, ConnectionClosed)
    assert f"with {len(data) - 10} of {len(data) - 4} bytes unread" in str(failed.error)


def test_an_impossible_frame_size_closes_the_connection():
    connection = ready_connection()
    connection.send(MetadataRequest(), 0.0)
    with pytest.raises(DecodeError, match="response frame size"):
        connection.receive_data(b"\xff\xff\xff\xff", 0.0)
    assert connection.state is State.CLOSED and isinstance(connection.failure, ConnectionClosed)


def test_a_body_that_does_not_decode_fails_only_its_request():
    connection = ready_connection()
    correlation_id = connection.send(MetadataRequest(), 0.0, version=1)
    [request] = requests_sent(connection)
    frame = (6).to_bytes(4, "big") + request.correlation_id.to_bytes(4, "big") + b"\x00\x01"
    [failed] = connection.receive_data(frame, 0.0)
    assert failed.correlation_id == correlation_id and isinstance(failed.error, DecodeError)
    assert connection.state is State.READY


def test_an_answer_nobody_asked_for_closes_the_connection():
    connection = ready_connection()
    with pytest.raises(DecodeError, match="no request with correlation id"):
        connection.receive_data((8).to_bytes(4, "big") + (99).to_bytes(4, "big") + b"\0\0\0\0", 0.0)
    assert connection.state is State.CLOSED


def sasl_connection(mechanism) -> tuple[Connection, list]:
    connection = Connection(sasl=mechanism)
    connection.start(0.0)
    [request] = requests_sent(connection)
    assert connection.receive_data(answer(request, api_versions_answer()), 0.0) == []
    assert connection.state is State.AUTHENTICATING
    return connection, requests_sent(connection)


def test_scram_sha_256_through_the_connection_with_the_rfc_7677_vector():
    connection, [handshake] = sasl_connection(Scram("user", "pencil", nonce=RFC7677["nonce"], name="SCRAM-SHA-256"))
    assert (handshake.api_key, handshake.api_version, handshake.body.mechanism) == (17, 1, "SCRAM-SHA-256")
    connection.receive_data(answer(handshake, SaslHandshakeResponse(mechanisms=["SCRAM-SHA-256"])), 0.0)
    [first] = requests_sent(connection)
    assert (first.api_key, first.api_version, first.body.auth_bytes) == (36, 2, RFC7677["client_first"])
    connection.receive_data(answer(first, SaslAuthenticateResponse(auth_bytes=RFC7677["server_first"])), 0.0)
    [final] = requests_sent(connection)
    assert final.body.auth_bytes == RFC7677["client_final"]
    events = connection.receive_data(answer(final, SaslAuthenticateResponse(auth_bytes=RFC7677["server_final"])), 0.0)
    assert [type(e) for e in events] == [Ready] and connection.state is State.READY


def test_a_mechanism_the_broker_lacks_is_its_error_code():
    connection, [handshake] = sasl_connection(Scram("user", "pencil", name="SCRAM-SHA-256"))
    reply = SaslHandshakeResponse(error_code=33, mechanisms=["PLAIN"])
    with pytest.raises(KafkaApiError, match="UNSUPPORTED_SASL_MECHANISM.*PLAIN") as raised:
        connection.receive_data(answer(handshake, reply), 0.0)
    assert raised.value.code is ErrorCode.UNSUPPORTED_SASL_MECHANISM and connection.state is State.CLOSED


def test_failed_authentication_is_its_error_code_with_the_brokers_message():
    connection, [handshake] = sasl_connection(Scram("user", "pencil", name="SCRAM-SHA-256"))
    connection.receive_data(answer(handshake, SaslHandshakeResponse(mechanisms=["SCRAM-SHA-256"])), 0.0)
    [first] = requests_sent(connection)
    reply = SaslAuthenticateResponse(error_code=58, error_message="Authentication failed: Invalid user credentials")
    with pytest.raises(KafkaApiError, match="SASL_AUTHENTICATION_FAILED.*Invalid user") as raised:
        connection.receive_data(answer(first, reply), 0.0)
    assert not raised.value.retriable and connection.state is State.CLOSED


def test_plain_through_the_connection():
    connection, [handshake] = sasl_connection(Plain("alice", "secret"))
    assert handshake.body.mechanism == "PLAIN"
    connection.receive_data(answer(handshake, SaslHandshakeResponse(mechanisms=["PLAIN"])), 0.0)
    [authenticate] = requests_sent(connection)
    assert authenticate.body.auth_bytes == b"\0alice\0secret"  # RFC 4616: authzid NUL authcid NUL passwd
    events = connection.receive_data(answer(authenticate, SaslAuthenticateResponse(auth_bytes=b"")), 0.0)
    assert [type(e) for e in events] == [Ready]


def test_a_second_refusal_of_api_versions_is_final():
    connection = Connection()
    connection.start(0.0)
    [request] = requests_sent(connection)
    body = bytes.fromhex("0023" "00000001" "001200000002")
    frame = (4 + len(body)).to_bytes(4, "big") + request.correlation_id.to_bytes(4, "big") + body
    connection.receive_data(frame, 0.0)
    [again] = requests_sent(connection)
    frame = (4 + len(body)).to_bytes(4, "big") + again.correlation_id.to_bytes(4, "big") + body
    with pytest.raises(KafkaApiError, match="UNSUPPORTED_VERSION") as raised:
        connection.receive_data(frame, 0.0)
    assert raised.value.code is ErrorCode.UNSUPPORTED_VERSION and connection.state is State.CLOSED


# --- the same conversations, the broker's replies encoded by kio ---------------------------------

@pytest.fixture
def kio_broker():
    need_module("kio")
    need_module("scramp")
    from tests.network import kio_broker

    return kio_broker


def kio_answer(kio_broker, request, **fields) -> bytes:
    return kio_broker.kio_response_frame(request.api_key, request.api_version, request.correlation_id, **fields)


def kio_ready_connection(kio_broker, **options) -> Connection:
    connection = Connection(**options)
    connection.start(0.0)
    [request] = requests_sent(connection)
    offered = [(k, lo, hi) for k, lo, hi in BROKER_APIS]
    reply = kio_answer(kio_broker, request, **kio_broker.api_versions_fields(request.api_version, offered))
    events = []
    for i in range(len(reply)):  # one byte at a time
        events += connection.receive_data(reply[i:i + 1], 0.0)
    assert events == [Ready({0: 11, 1: 17, 3: 12, 17: 1, 18: 4, 36: 2})] and connection.state is State.READY
    return connection


def kio_metadata(controller_id: int, cluster_id: str) -> dict:
    import datetime

    from kio.static.primitive import i32, i32Timedelta

    return {"throttle_time": i32Timedelta.parse(datetime.timedelta(milliseconds=7)), "brokers": (),
            "cluster_id": cluster_id, "controller_id": i32(controller_id), "topics": ()}


def test_kio_encoded_answers_out_of_order_reach_their_requests(kio_broker):
    connection = kio_ready_connection(kio_broker)
    first = connection.send(MetadataRequest(topics=None), 0.0)
    second = connection.send(MetadataRequest(topics=None), 0.0)
    a, b = requests_sent(connection)
    assert (a.api_version, b.api_version) == (12, 12)
    events = connection.receive_data(kio_answer(kio_broker, b, **kio_metadata(2, "c2")) +
                                     kio_answer(kio_broker, a, **kio_metadata(1, "c1")), 0.0)
    assert [(e.correlation_id, e.body.controller_id, e.body.cluster_id, e.body.throttle_time_ms) for e in events] == \
        [(second, 2, "c2", 7), (first, 1, "c1", 7)]
    assert all(e.frame.header_version == 1 and e.frame.trailing == b"" for e in events)


def test_kio_encoded_scram_exchange_with_the_rfc_7677_vector(kio_broker):
    from kio.schema.errors import ErrorCode as KioErrorCode

    connection, [handshake] = sasl_connection(Scram("user", "pencil", nonce=RFC7677["nonce"], name="SCRAM-SHA-256"))
    connection.receive_data(kio_answer(kio_broker, handshake, error_code=KioErrorCode.none,
                                       mechanisms=("SCRAM-SHA-256",)), 0.0)
    [first] = requests_sent(connection)
    assert first.body.auth_bytes == RFC7677["client_first"]
    connection.receive_data(kio_answer(kio_broker, first, error_code=KioErrorCode.none, error_message=None,
                                       auth_bytes=RFC7677["server_first"]), 0.0)
    [final] = requests_sent(connection)
    assert final.body.auth_bytes == RFC7677["client_final"]
    events = connection.receive_data(kio_answer(kio_broker, final, error_code=KioErrorCode.none, error_message=None,
                                                auth_bytes=RFC7677["server_final"]), 0.0)
    assert [type(e) for e in events] == [Ready] and connection.state is State.READY


def test_kio_encoded_refusals_are_their_error_codes(kio_broker):
    from kio.schema.errors import ErrorCode as KioErrorCode

    connection, [handshake] = sasl_connection(Plain("alice", "secret"))
    with pytest.raises(KafkaApiError,
                       match=r"^UNSUPPORTED_SASL_MECHANISM \(33\): the broker offers \['SCRAM-SHA-512'\]$"):
        connection.receive_data(kio_answer(kio_broker, handshake, error_code=KioErrorCode.unsupported_sasl_mechanism,
                                           mechanisms=("SCRAM-SHA-512",)), 0.0)
    assert connection.state is State.CLOSED

    connection, [handshake] = sasl_connection(Plain("alice", "secret"))
    connection.receive_data(kio_answer(kio_broker, handshake, error_code=KioErrorCode.none, mechanisms=("PLAIN",)), 0.0)
    [authenticate] = requests_sent(connection)
    message = "Authentication failed: Invalid username or password"  # PlainSaslServer's words
    with pytest.raises(KafkaApiError, match=rf"^SASL_AUTHENTICATION_FAILED \(58\): {message}$") as raised:
        connection.receive_data(kio_answer(kio_broker, authenticate, error_code=KioErrorCode.sasl_authentication_failed,
                                           error_message=message, auth_bytes=b""), 0.0)
    assert raised.value.code is ErrorCode.SASL_AUTHENTICATION_FAILED and connection.state is State.CLOSED


def test_correlation_ids_wrap_at_the_end_of_int32():
    connection = ready_connection()
    connection._next_id = 2**31 - 1  # where it stands after 2**31 - 2 requests
    last = connection.send(MetadataRequest(topics=None), 0.0)
    wrapped = connection.send(MetadataRequest(topics=None), 0.0)
    # never 2**31 (not an int32) nor negative; kwire starts again at 1 (Kafka's NetworkClient at 0)
    assert last == 2**31 - 1 and 0 <= wrapped < last
    data = connection.data_to_send()
    a, b = iter_frames(data)
    assert a[8:12] == b"\x7f\xff\xff\xff" and b[8:12] == wrapped.to_bytes(4, "big")  # after size, key, version
    a, b = parse_request_frame(a), parse_request_frame(b)
    events = connection.receive_data(answer(b, MetadataResponse(controller_id=2)) +
                                     answer(a, MetadataResponse(controller_id=1)), 0.0)
    assert [(e.correlation_id, e.body.controller_id) for e in events] == [(wrapped, 2), (2**31 - 1, 1)]


@pytest.mark.parametrize("slack", [0, -1])
def test_a_response_frame_at_and_just_past_max_frame_bytes(slack):
    connection = Connection()
    connection.start(0.0)
    [request] = requests_sent(connection)
    frame = answer(request, api_versions_answer())
    size = len(frame) - 4  # what the size prefix says
    connection = Connection(max_frame_bytes=size + slack)
    connection.start(0.0)
    [request] = requests_sent(connection)
    frame = answer(request, api_versions_answer())
    if slack == 0:
        assert [type(e) for e in connection.receive_data(frame, 0.0)] == [Ready]
        return
    with pytest.raises(DecodeError, match=rf"^response frame size {size} is outside 0\.\.{size - 1}") as raised:
        connection.receive_data(frame, 0.0)
    assert raised.value.offset == 0 and connection.state is State.CLOSED
