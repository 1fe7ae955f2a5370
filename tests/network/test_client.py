"""kwire.network.client against scripted brokers on loopback: version fallback, timeouts, broken peers.

The scripted answers are written by hand from Kafka's ApiVersions, Metadata and Produce layouts,
so the client is tested against bytes kwire did not produce. Real brokers: test_live_peers.py.
"""
from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Callable

import pytest

from kwire.network.client import BrokerConnection, ClientError, KafkaClient, PartitionInfo, parse_address
from kwire.network.headers import peek_request_key
from kwire.wire.errors import DecodeError, KwireError, UnsupportedVersionError


def h(text: str) -> bytes:
    """Hex with spaces, and `#` comments to the end of each line."""
    return bytes.fromhex("".join(line.split("#", 1)[0] for line in text.splitlines()))


def framed(correlation_id: int, body: bytes) -> bytes:
    """A response frame with ResponseHeader v0 (what ApiVersions and non-flexible versions use)."""
    payload = correlation_id.to_bytes(4, "big") + body
    return len(payload).to_bytes(4, "big") + payload


class ScriptedBroker:
    """Accepts one connection per script on 127.0.0.1 and runs ``script(broker, connection)`` on
    each in turn; ``requests`` collects (api key, api version) of every request frame read."""

    def __init__(self, *scripts: Callable[[ScriptedBroker, socket.socket], None]) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.requests: list[tuple[int, int]] = []
        self.failure: BaseException | None = None
        self.done = threading.Event()
        self._scripts = scripts
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        try:
            self.listener.settimeout(10)
            for script in self._scripts:
                connection, _ = self.listener.accept()
                with connection:
                    connection.settimeout(10)
                    script(self, connection)
        except BaseException as exc:  # reported by close()
            self.failure = exc
        finally:
            self.done.set()

    def read_request(self, connection: socket.socket) -> int:
        """Read one request frame; return its correlation id."""
        size = int.from_bytes(self._read(connection, 4), "big")
        frame = self._read(connection, size)
        api_key, api_version, correlation_id = peek_request_key(frame, 0)
        self.requests.append((api_key, api_version))
        return correlation_id

    @staticmethod
    def _read(connection: socket.socket, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = connection.recv(size - len(data))
            if not chunk:
                raise EOFError("client closed")
            data += chunk
        return data

    def hold(self, connection: socket.socket) -> None:
        """Keep the connection open, silent, until the client closes it."""
        while connection.recv(4096):
            pass

    def answer(self, connection: socket.socket, body: bytes) -> None:
        """Read a request and send ``body`` back with a v0 response header."""
        connection.sendall(framed(self.read_request(connection), body))

    def close(self) -> None:
        self.listener.close()
        self.done.wait(10)
        if self.failure is not None and not isinstance(self.failure, EOFError):
            raise self.failure


@pytest.fixture
def scripted():
    brokers = []

    def start(*scripts):
        broker = ScriptedBroker(*scripts)
        brokers.append(broker)
        return broker

    yield start
    for broker in brokers:
        broker.close()


# ApiVersionsResponse v0 refusing the request: error 35 and the ranges this broker has.
REFUSAL_V0_LISTING_API_VERSIONS_0_TO_2 = h("""
    0023                  # error_code 35 UNSUPPORTED_VERSION
    00000001              # api_keys: 1 entry
    0012 0000 0002        #   ApiVersions 0..2
""")
REFUSAL_V0_WITHOUT_API_VERSIONS = h("""
    0023 00000001
    0003 0000 000c        # Metadata 0..12 only
""")
API_VERSIONS_V2_ANSWER = h("""
    0000                  # no error
    00000002              # two entries
    0012 0000 0002        #   ApiVersions 0..2
    0003 0000 000c        #   Metadata 0..12
    00000000              # throttle_time_ms (v1+)
""")
API_VERSIONS_V0_ANSWER = h("""
    0000 00000002
    0012 0000 0000        # ApiVersions 0..0
    0000 0003 0005        # Produce 3..5
""")


@pytest.mark.parametrize(("refusal", "answer", "retry", "ranges", "api_key", "chosen"), [
    # the refusal lists ApiVersions 0..2: asked again at v2
    (REFUSAL_V0_LISTING_API_VERSIONS_0_TO_2, API_VERSIONS_V2_ANSWER, 2, {18: (0, 2), 3: (0, 12)}, 3, 12),
    # the refusal does not list ApiVersions: asked again at v0, which every broker reads
    (REFUSAL_V0_WITHOUT_API_VERSIONS, API_VERSIONS_V0_ANSWER, 0, {18: (0, 0), 0: (3, 5)}, 0, 5),
], ids=["retry at the listed version", "retry at v0"])
def test_refused_api_versions_is_asked_again(scripted, refusal, answer, retry, ranges, api_key, chosen):
    def script(broker, connection):
        broker.answer(connection, refusal)
        broker.answer(connection, answer)
        broker.hold(connection)

    broker = scripted(script)
    with BrokerConnection("127.0.0.1", broker.port, timeout=5) as connection:
        assert connection.api_versions_used == [4, retry]
        assert connection.api_versions_version == retry
        assert connection.versions == ranges
        assert connection.version(api_key) == chosen
        assert list(connection.common_versions(api_key)) == list(range(ranges[api_key][0], chosen + 1))
        with pytest.raises(UnsupportedVersionError):
            connection.version(19)  # CreateTopics: not offered by either broker
    broker.close()
    assert broker.requests == [(18, 4), (18, retry)]


def test_a_second_refusal_is_a_client_error(scripted):
    def script(broker, connection):
        for _ in range(2):
            broker.answer(connection, REFUSAL_V0_WITHOUT_API_VERSIONS)
        broker.hold(connection)

    broker = scripted(script)
    with pytest.raises(ClientError, match="UNSUPPORTED_VERSION") as refused:
        BrokerConnection("127.0.0.1", broker.port, timeout=5)
    assert refused.value.error_code == 35


def test_a_silent_broker_times_out(scripted):
    broker = scripted(lambda broker, connection: broker.hold(connection))
    with pytest.raises(ClientError, match="timed out reading"):
        BrokerConnection("127.0.0.1", broker.port, timeout=0.3)


def test_a_connection_closed_inside_a_frame_is_a_client_error(scripted):
    def script(broker, connection):
        broker.read_request(connection)
        connection.sendall(b"\x00\x00\x00\x40" + b"\x00" * 10)  # promises 64 bytes, sends 10

    broker = scripted(script)
    with pytest.raises(ClientError, match="closed the connection with 54 of 64 bytes unread"):
        BrokerConnection("127.0.0.1", broker.port, timeout=5)


@pytest.mark.parametrize("prefix", [b"\xff\xff\xff\xfe", b"\x7f\xff\xff\xff"], ids=["negative", "2 GiB"])
def test_an_impossible_frame_size_is_refused_before_reading_it(scripted, prefix):
    def script(broker, connection):
        broker.read_request(connection)
        connection.sendall(prefix)
        broker.hold(connection)

    broker = scripted(script)
    with pytest.raises(DecodeError, match="response frame size"):
        BrokerConnection("127.0.0.1", broker.port, timeout=5, max_frame_bytes=1 << 20)


def test_a_response_to_another_request_is_a_decode_error(scripted):
    def script(broker, connection):
        correlation_id = broker.read_request(connection)
        connection.sendall(framed(correlation_id + 7, API_VERSIONS_V0_ANSWER))
        broker.hold(connection)

    broker = scripted(script)
    with pytest.raises(DecodeError, match="no request with correlation id"):
        BrokerConnection("127.0.0.1", broker.port, timeout=5)


API_VERSIONS_V0_METADATA_0_PRODUCE_3 = h("""
    0000 00000003
    0012 0000 0000        # ApiVersions 0..0
    0003 0000 0000        # Metadata 0..0
    0000 0003 0003        # Produce 3..3
""")


def metadata_v0_answer(port: int) -> bytes:
    """Broker 1 at 127.0.0.1:port leads partition 0 of topic "t"."""
    return h(f"""
        00000001                      # brokers: 1
        00000001                      #   node_id 1
        0009 3132372e302e302e31       #   host "127.0.0.1"
        {port:08x}                    #   port
        00000001                      # topics: 1
        0000                          #   error_code
        0001 74                       #   name "t"
        00000001                      #   partitions: 1
        0000 00000000 00000001        #     error_code, index 0, leader 1
        00000001 00000001             #     replicas [1]
        00000001 00000001             #     isr [1]
    """)


def negotiate_v0(broker, connection):
    """What a broker without ApiVersions v4 says: a refusal, then its v0 list to the v0 retry."""
    broker.answer(connection, REFUSAL_V0_WITHOUT_API_VERSIONS)
    broker.answer(connection, API_VERSIONS_V0_METADATA_0_PRODUCE_3)


def produce_v3_answer(error_code: int, base_offset: int) -> bytes:
    return h(f"""
        00000001 0001 74 00000001 00000000    # topic "t", partition 0
        {error_code:04x} {base_offset & (1 << 64) - 1:016x}
        ffffffffffffffff 00000000             # log_append_time_ms -1, throttle_time_ms 0
    """)


def test_api_versions_is_asked_once_per_connection_however_many_requests_follow(scripted):
    def bootstrap(broker, connection):
        negotiate_v0(broker, connection)
        for _ in range(3):
            broker.answer(connection, metadata_v0_answer(broker.port))  # then closes: the leader's turn

    def leader(broker, connection):
        negotiate_v0(broker, connection)
        for offset in (40, 41):
            broker.answer(connection, produce_v3_answer(0, offset))
        broker.hold(connection)

    broker = scripted(bootstrap, leader)
    with KafkaClient(f"127.0.0.1:{broker.port}", timeout=5) as client:
        for _ in range(2):
            where = client.partition("t", create=False)
        client.metadata(["t"])
        assert [client.produce(where, b""), client.produce(where, b"")] == [40, 41]
        assert client.bootstrap.api_versions_used == client.connection(1).api_versions_used == [4, 0]
        assert [entry.api_key for entry in client.connection(1).api_versions.api_keys] == [18, 3, 0]
    broker.close()
    negotiation = [(18, 4), (18, 0)]
    assert broker.requests == negotiation + [(3, 0)] * 3 + negotiation + [(0, 3)] * 2


def test_produce_goes_to_the_leader_and_its_error_codes_become_client_errors(scripted):
    def bootstrap(broker, connection):
        negotiate_v0(broker, connection)
        broker.answer(connection, metadata_v0_answer(broker.port))

    def leader(broker, connection):
        negotiate_v0(broker, connection)
        broker.answer(connection, produce_v3_answer(6, -1))  # NOT_LEADER_OR_FOLLOWER
        broker.hold(connection)

    broker = scripted(bootstrap, leader)
    with KafkaClient(f"127.0.0.1:{broker.port}", timeout=5) as client:
        where = client.partition("t", create=False)
        assert where == PartitionInfo("t", uuid.UUID(int=0), 0, 1)
        with pytest.raises(ClientError, match="NOT_LEADER_OR_FOLLOWER") as refused:
            client.produce(where, b"")
        assert refused.value.error_code == 6
    broker.close()
    assert broker.requests == [(18, 4), (18, 0), (3, 0), (18, 4), (18, 0), (0, 3)]


def test_nothing_listening_is_a_client_error():
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    with pytest.raises(ClientError, match="cannot connect"):
        KafkaClient(f"127.0.0.1:{port}", timeout=2)


@pytest.mark.parametrize("address", ["localhost", "127.0.0.1:", ":9092", "127.0.0.1:0", "127.0.0.1:x", "h:70000"])
def test_malformed_bootstrap_addresses_are_client_errors(address):
    with pytest.raises(ClientError, match="not a host:port"):
        parse_address(address)


def test_ipv6_bootstrap_address():
    assert parse_address("[::1]:9092") == ("::1", 9092)


@pytest.mark.parametrize(("port", "valid"), [(0, False), (1, True), (65535, True), (65536, False)])
def test_bootstrap_ports_at_and_past_their_bounds(port, valid):
    if valid:
        assert parse_address(f"h:{port}") == ("h", port)
    else:
        with pytest.raises(ClientError, match=rf"^not a host:port address: 'h:{port}'$"):
            parse_address(f"h:{port}")


def test_client_error_is_a_kwire_error():
    assert issubclass(ClientError, KwireError)


def test_refusing_a_field_names_the_versions_that_lack_it():
    # Met by the client: MetadataRequest has AllowAutoTopicCreation from v4 only.
    from kwire.generated import MetadataRequest

    with pytest.raises(UnsupportedVersionError, match="versions 1-3 have no such field"):
        MetadataRequest(topics=[], allow_auto_topic_creation=False).encode(3)


def metadata_ranges_answer(low: int, high: int) -> bytes:
    """ApiVersionsResponse v0 listing ApiVersions 0..0 and Metadata low..high."""
    return h(f"0000 00000002 0012 0000 0000 0003 {low:04x} {high:04x}")


@pytest.mark.parametrize("offset", [0, 1], ids=["meets at kwire's newest", "just past it"])
def test_the_version_used_is_the_newest_both_have_at_the_bound(scripted, offset):
    from kwire.generated import MetadataRequest

    newest = MetadataRequest.VALID_VERSIONS[1]
    low = newest + offset

    def script(broker, connection):
        broker.answer(connection, REFUSAL_V0_WITHOUT_API_VERSIONS)
        broker.answer(connection, metadata_ranges_answer(low, low + 5))
        broker.hold(connection)

    broker = scripted(script)
    with BrokerConnection("127.0.0.1", broker.port, timeout=5) as connection:
        if offset == 0:
            assert connection.version(3) == newest
        else:
            with pytest.raises(UnsupportedVersionError, match=rf"^api key 3: kwire has versions 0-{newest}, "
                                                              rf"127\.0\.0\.1:{broker.port} {low}-{low + 5}$"):
                connection.version(3)
        with pytest.raises(UnsupportedVersionError, match=rf"^127\.0\.0\.1:{broker.port} does not support api key 0$"):
            connection.version(0)
