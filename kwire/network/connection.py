"""A sans-I/O Kafka connection: a state machine over bytes, with no socket inside.

The caller owns the transport and the clock. It hands received bytes to :meth:`Connection.receive_data`
(with the time, ``now``, from any monotonic clock), writes out what :meth:`Connection.data_to_send`
returns, calls :meth:`Connection.check_timeouts` by :meth:`Connection.next_deadline`, and reports the
end of the stream with :meth:`Connection.connection_lost`. The connection does the rest:

- framing (``int32 size | header | body``) and a bound on the frame size before anything is kept;
- correlation ids, and the request/response header version of each API version (headers.py);
- on :meth:`start`: ApiVersions at kwire's newest version, the KIP-511 retry when the broker refuses
  it, then :func:`~kwire.network.versions.negotiate`; then SASL when credentials were given
  (SaslHandshake v1 naming the mechanism, SaslAuthenticate rounds until the mechanism is done);
- a limit on requests in flight, and a deadline per request (timeouts are data: a request past its
  deadline fails and the connection closes, since its answer may still be on its way).

What comes out are events: :class:`Ready` once negotiation and authentication are over,
:class:`Response` for each answer, :class:`RequestFailed` for each request that will get none.
Bytes that cannot be a frame, or a frame that does not decode, raise kwire's DecodeError and leave
the connection closed: a stream cut wrongly once cannot be read again.
"""
from __future__ import annotations

import enum
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kwire.generated import ApiVersionsRequest, SaslAuthenticateRequest, SaslHandshakeRequest
from kwire.wire.errors import DecodeError, KwireError
from kwire.wire.index import API_VERSIONS_KEY, ProtocolIndex, load

from .errors import ClientError, ErrorCode, KafkaApiError, exception_for, raise_for
from .framing import DEFAULT_MAX_FRAME_BYTES, CorrelationError, Correlator, ResponseFrame
from .headers import peek_correlation_id
from .sasl import Mechanism, SaslCredentials
from .versions import ApiVersionsRefused, broker_versions, negotiate

CLIENT_SOFTWARE_NAME = "kwire"
DEFAULT_REQUEST_TIMEOUT = 30.0  # seconds; Kafka's request.timeout.ms default
DEFAULT_MAX_IN_FLIGHT = 5  # Kafka's max.in.flight.requests.per.connection default
SASL_HANDSHAKE_VERSION = 1  # v1: the tokens travel in SaslAuthenticate requests (KIP-152)
_SIZE = struct.Struct(">i")
_MAX_CORRELATION_ID = 0x7FFFFFFF


class State(enum.Enum):
    NEW = "new"                    # nothing sent yet: call start()
    NEGOTIATING = "negotiating"    # waiting for ApiVersions
    AUTHENTICATING = "authenticating"
    READY = "ready"
    CLOSED = "closed"


class ConnectionClosed(ClientError):
    """The connection is closed (by the peer, by a timeout, or by a stream that could not be read)."""


class RequestTimedOut(ClientError):
    """A request's deadline passed before its response arrived."""


class TooManyInFlight(ClientError):
    """``max_in_flight`` requests already wait for answers; read some responses first."""


class NotReady(ClientError):
    """A request before the connection finished negotiating (and authenticating)."""


# --- events --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ready:
    """Negotiation (and SASL) finished; ``versions`` is api key -> the version to use."""

    versions: dict[int, int]


@dataclass(frozen=True)
class Response:
    """The answer to the request with ``correlation_id``."""

    correlation_id: int
    frame: ResponseFrame

    @property
    def body(self) -> Any:
        return self.frame.body


@dataclass(frozen=True)
class RequestFailed:
    """The request with ``correlation_id`` will get no answer: ``error`` says why."""

    correlation_id: int
    error: KwireError


Event = Ready | Response | RequestFailed


@dataclass
class _Pending:
    api_key: int
    deadline: float
    internal: bool  # sent by the connection itself (ApiVersions, SASL): not reported as an event


@dataclass
class Connection:
    """One Kafka connection's protocol state; see the module docstring for how to drive it."""

    client_id: str | None = CLIENT_SOFTWARE_NAME
    sasl: SaslCredentials | Mechanism | None = None  # a Mechanism object: one exchange, set up by the caller
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT
    include_unstable: bool = False
    max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES
    index: ProtocolIndex = field(default_factory=load)  # of the generated package that decodes the frames
    client_software_version: str = "unknown"
    # Peers such as librdkafka's mock cluster pad some responses; Kafka's own readers ignore it.
    allow_trailing_bytes: bool = True

    def __post_init__(self) -> None:
        self.index = load(self.index)  # None (from the adapters) is kwire's own package
        self.state = State.NEW
        self.versions: dict[int, int] = {}
        self.broker_ranges: dict[int, tuple[int, int]] = {}
        self.api_versions_asked: list[int] = []
        # The broker's ApiVersions answer that negotiation used (its features too, v3+): asked once
        # per connection, kept for whoever wants more of it than the versions.
        self.api_versions: ResponseFrame | None = None
        self.close_reason: str | None = None
        self.failure: ClientError | None = None  # why it closed, as the error to raise
        self._correlator = Correlator(self.index, max_frame_bytes=self.max_frame_bytes,
                                      allow_trailing_bytes=self.allow_trailing_bytes)
        self._outbound = bytearray()
        self._inbound = bytearray()
        self._pending: dict[int, _Pending] = {}
        self._next_id = 1
        self._mechanism: Mechanism | None = None

    # -- driving it

    def start(self, now: float) -> None:
        """Begin: queue the ApiVersions request (at kwire's newest version)."""
        if self.state is not State.NEW:
            raise ClientError(f"start() on a connection that is {self.state.value}")
        self.state = State.NEGOTIATING
        self._ask_api_versions(ApiVersionsRequest.VALID_VERSIONS[1], now)

    def data_to_send(self) -> bytes:
        """The bytes to write to the transport now (and forget)."""
        data = bytes(self._outbound)
        self._outbound.clear()
        return data

    def receive_data(self, data: bytes | bytearray | memoryview, now: float) -> list[Event]:
        """Feed bytes read from the transport; return what they completed."""
        if self.state is State.CLOSED:
            raise ConnectionClosed(f"connection is closed ({self.close_reason})")
        self._inbound += data
        events: list[Event] = []
        while len(self._inbound) >= 4:
            (size,) = _SIZE.unpack_from(self._inbound, 0)
            if self._inbound.startswith(b"HTTP"):  # a web server or proxy, not a Kafka listener
                status = bytes(self._inbound[:80]).split(b"\r\n")[0].decode("ascii", "replace")
                reason = f"the peer answered HTTP, not Kafka ({status!r}): is this a Kafka listener's address?"
                self._close(reason, events)
                raise DecodeError(reason, path="frame size", offset=0)
            if not 0 <= size <= self.max_frame_bytes:
                self._close(f"response frame size {size} is outside 0..{self.max_frame_bytes}", events)
                raise DecodeError(f"response frame size {size} is outside 0..{self.max_frame_bytes}",
                                  path="frame size", offset=0)
            if len(self._inbound) < 4 + size:
                break
            frame = bytes(self._inbound[:4 + size])
            del self._inbound[:4 + size]
            try:
                events += self._handle_frame(frame, now)
            except KwireError as exc:
                if not isinstance(exc, KafkaApiError) or self.state is not State.READY:
                    self._close(str(exc), events)
                raise
        return events

    def connection_lost(self, reason: str = "the peer closed the connection") -> list[Event]:
        """The transport ended: every request still waiting fails."""
        if self._inbound:
            size = _SIZE.unpack_from(self._inbound, 0)[0] if len(self._inbound) >= 4 else None
            have = len(self._inbound) - 4
            reason = (f"{reason} with {size - have} of {size} bytes unread" if size is not None
                      else f"{reason} inside a frame's size prefix")
        events: list[Event] = []
        self._close(reason, events)
        return events

    def next_deadline(self) -> float | None:
        """When :meth:`check_timeouts` next has something to do (None: no request is waiting)."""
        return min((p.deadline for p in self._pending.values()), default=None)

    def check_timeouts(self, now: float) -> list[Event]:
        """Fail the requests whose deadline has passed; a late answer cannot be told apart from
        the next one's bytes, so the connection closes (as Kafka's clients do)."""
        late = [cid for cid, p in self._pending.items() if p.deadline <= now]
        if not late:
            return []
        events: list[Event] = []
        api_key = self._pending[late[0]].api_key
        self._close(f"timed out reading the response to api key {api_key} "
                    f"(correlation id {late[0]}, {self.request_timeout} s)", events, timed_out=set(late))
        return events

    # -- requests

    def send(self, body: Any, now: float, *, version: int | None = None,
             timeout: float | None = None) -> int:
        """Queue a request (at the negotiated version unless given); return its correlation id,
        or -1 for one the broker does not answer (Produce with acks=0)."""
        if self.state is State.CLOSED:
            raise ConnectionClosed(f"connection is closed ({self.close_reason})")
        if self.state is not State.READY:
            raise NotReady(f"the connection is {self.state.value}; wait for Ready")
        return self._send(body, now, version=version, timeout=timeout, internal=False)

    def version(self, api_key: int) -> int:
        """The negotiated version of ``api_key``."""
        try:
            return self.versions[api_key]
        except KeyError:
            raise ClientError(f"api key {api_key} has no version both kwire and the broker support") from None

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    def _send(self, body: Any, now: float, *, version: int | None, timeout: float | None,
              internal: bool) -> int:
        cls: Any = type(body)
        version = self.version(cls.API_KEY) if version is None else version
        if len(self._pending) >= self.max_in_flight:
            raise TooManyInFlight(f"{len(self._pending)} requests are in flight (max_in_flight={self.max_in_flight})")
        correlation_id = self._next_id
        self._next_id = correlation_id + 1 if correlation_id < _MAX_CORRELATION_ID else 1
        frame = self._correlator.build_request(body, version, correlation_id, self.client_id)
        self._outbound += frame
        if correlation_id not in self._correlator.pending:
            return -1
        deadline = now + (self.request_timeout if timeout is None else timeout)
        self._pending[correlation_id] = _Pending(cls.API_KEY, deadline, internal)
        return correlation_id

    # -- answers

    def _handle_frame(self, frame: bytes, now: float) -> list[Event]:
        correlation_id = peek_correlation_id(frame, 4)
        expected = self._pending.get(correlation_id)
        try:
            response = self._correlator.parse_response(frame)
        except DecodeError as exc:
            if expected is None or expected.internal or isinstance(exc, CorrelationError):
                raise
            # A whole frame whose body does not decode: that request fails, the stream is still in step.
            del self._pending[correlation_id]
            return [RequestFailed(correlation_id, exc)]
        pending = self._pending.pop(response.correlation_id)
        if not pending.internal:
            return [Response(response.correlation_id, response)]
        if pending.api_key == API_VERSIONS_KEY:
            return self._on_api_versions(response, now)
        return self._on_sasl(response, now)

    def _ask_api_versions(self, version: int, now: float) -> None:
        self.api_versions_asked.append(version)
        request = ApiVersionsRequest(client_software_name=CLIENT_SOFTWARE_NAME,
                                     client_software_version=self.client_software_version)
        self._send(request, now, version=version, timeout=None, internal=True)

    def _on_api_versions(self, response: ResponseFrame, now: float) -> list[Event]:
        try:
            self.versions = negotiate(response.body, include_unstable=self.include_unstable,
                                      asked=response.api_version, index=self.index)
        except ApiVersionsRefused as refused:
            if len(self.api_versions_asked) > 1:
                raise exception_for(ErrorCode.UNSUPPORTED_VERSION, f"ApiVersions v{refused.asked} was "
                                    "refused after a retry") or refused from None
            self._ask_api_versions(refused.retry_version, now)
            return []
        self.broker_ranges = broker_versions(response.body)
        self.api_versions = response
        if self.sasl is None:
            return self._ready()
        self.state = State.AUTHENTICATING
        self._mechanism = self.sasl if isinstance(self.sasl, Mechanism) else self.sasl.mechanism_object()
        self._send(SaslHandshakeRequest(mechanism=self._mechanism.name), now,
                   version=SASL_HANDSHAKE_VERSION, timeout=None, internal=True)
        return []

    def _on_sasl(self, response: ResponseFrame, now: float) -> list[Event]:
        body, mechanism = response.body, self._mechanism
        assert mechanism is not None
        if body.error_code:
            detail = getattr(body, "error_message", None) or (
                f"the broker offers {list(body.mechanisms)}" if getattr(body, "mechanisms", None) else None)
            raise_for(body.error_code, detail)  # every non-zero code has its exception
        if response.api_key == SaslHandshakeRequest.API_KEY:
            token: bytes | None = mechanism.initial()
        else:
            token = mechanism.respond(bytes(body.auth_bytes))
        if token is None:
            return self._ready()
        if SaslAuthenticateRequest.API_KEY not in self.versions:
            raise ClientError("the broker lists no SaslAuthenticate version that kwire has")
        self._send(SaslAuthenticateRequest(auth_bytes=token), now, version=None, timeout=None, internal=True)
        return []

    def _ready(self) -> list[Event]:
        self.state = State.READY
        return [Ready(dict(self.versions))]

    # -- the end

    def _close(self, reason: str, events: list[Event], timed_out: Iterable[int] = ()) -> None:
        if self.state is State.CLOSED:
            return
        self.state = State.CLOSED
        self.close_reason = reason
        late = set(timed_out)
        self.failure = RequestTimedOut(reason) if late else ConnectionClosed(reason)
        for correlation_id, pending in self._pending.items():
            if pending.internal:
                continue
            error: KwireError = (RequestTimedOut(reason) if correlation_id in late else ConnectionClosed(reason))
            events.append(RequestFailed(correlation_id, error))
        self._pending.clear()
        self._inbound.clear()
        self._outbound.clear()

    def close(self) -> list[Event]:
        """Close on purpose: requests still waiting fail."""
        events: list[Event] = []
        self._close("closed by the client", events)
        return events
