"""Size-prefixed frames: building and parsing requests, and pairing responses with requests.

On the wire every request and response is ``int32 size | header | body``. A request frame says
what it is (api key and version open its header); a response frame only carries the correlation
id, so it can be decoded only by whoever saw the request: that is the :class:`Correlator`, one per
connection.

Kafka's own readers stop at the end of the message and ignore bytes after it; kwire refuses them
unless ``allow_trailing_bytes`` is set, and then hands them back as ``trailing`` so a caller can
see that a peer sent more than the message.
"""
from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kwire.wire.errors import DecodeError, EncodeError, KwireError
from kwire.wire.index import API_VERSIONS_KEY, ProtocolIndex, UnknownApiKeyError, load
from kwire.wire.primitives import INT32_MAX

from .headers import (
    peek_correlation_id,
    peek_request_key,
    read_request_header,
    read_response_header,
    request_header_class,
    response_header_class,
    write_request_header,
    write_response_header,
)

if TYPE_CHECKING:
    from kwire.generated.request_header import RequestHeader
    from kwire.generated.response_header import ResponseHeader
    from kwire.wire.message import GeneratedStruct

# Kafka's socket.request.max.bytes default; a size prefix above it is refused before any allocation.
DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024
PRODUCE_KEY = 0

_SIZE = struct.Struct(">i")
_INT16 = struct.Struct(">h")


class CorrelationError(DecodeError):
    """A response whose correlation id no request is waiting for, or an id reused while in flight."""


# --- cutting frames out of a byte stream --------------------------------------------------------

def read_frame(data: bytes | bytearray | memoryview, pos: int = 0, *,
               max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> tuple[bytes, int]:
    """The frame starting at ``pos`` (size prefix included) and the position after it."""
    if pos < 0 or len(data) - pos < 4:
        raise DecodeError(f"truncated frame: {max(len(data) - pos, 0)} bytes, the size prefix alone is 4",
                          path="frame size", offset=pos)
    (size,) = _SIZE.unpack_from(data, pos)
    if size < 0:
        raise DecodeError(f"negative frame size {size}", path="frame size", offset=pos)
    if size > max_frame_bytes:
        raise DecodeError(f"frame size {size} exceeds the limit of {max_frame_bytes} bytes",
                          path="frame size", offset=pos)
    end = pos + 4 + size
    if end > len(data):
        raise DecodeError(f"truncated frame: size prefix says {size} bytes, {len(data) - pos - 4} follow",
                          path="frame size", offset=pos)
    if pos == 0 and end == len(data) and type(data) is bytes:
        return data, end
    return bytes(data[pos:end]), end


def iter_frames(data: bytes | bytearray | memoryview, *,
                max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> Iterator[bytes]:
    """Every frame of a buffer holding whole frames back to back; a cut-off last frame is an error."""
    pos = 0
    while pos < len(data):
        frame, pos = read_frame(data, pos, max_frame_bytes=max_frame_bytes)
        yield frame


def _one_frame(data: bytes | bytearray | memoryview, max_frame_bytes: int) -> bytes:
    frame, end = read_frame(data, 0, max_frame_bytes=max_frame_bytes)
    if end != len(data):
        raise DecodeError(f"{len(data) - end} bytes after the frame", offset=end)
    return frame


def _seal(out: bytearray) -> bytes:
    """Fill in the size prefix reserved at the start of ``out``."""
    size = len(out) - 4
    if size > INT32_MAX:
        raise EncodeError(f"frame of {size} bytes does not fit an int32 size prefix")
    _SIZE.pack_into(out, 0, size)
    return bytes(out)


# --- decoded frames ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class UnsupportedApiVersions:
    """An ApiVersionsResponse refusing the request's version with UNSUPPORTED_VERSION (35).

    Brokers answer a too-new ApiVersions request at v0 so the client can read the error and the
    ranges it does support; ``fallback`` is that v0 body when the bytes are one, else None (some
    peers send a body that is neither v0 nor the requested version). ``raw`` is the body as sent.
    """

    requested_version: int
    fallback: Any  # ApiVersionsResponse decoded at v0, or None
    raw: bytes

    @property
    def error_code(self) -> int:
        return _unsupported_version()

    @property
    def api_keys(self) -> Any:
        return None if self.fallback is None else self.fallback.api_keys


def index_of(cls: Any) -> ProtocolIndex:
    """The index of the generated package that defines ``cls`` (kwire's own or a user's)."""
    return load(cls.__module__.rpartition(".")[0])


@dataclass(frozen=True, slots=True)
class RequestFrame:
    header: RequestHeader
    header_version: int
    body: GeneratedStruct
    trailing: bytes = b""  # bytes after the body (only with allow_trailing_bytes)

    @property
    def api_key(self) -> int:
        return self.header.request_api_key

    @property
    def api_version(self) -> int:
        return self.header.request_api_version

    @property
    def correlation_id(self) -> int:
        return self.header.correlation_id

    def encode(self) -> bytes:
        """The frame in Kafka's canonical encoding (trailing bytes left out)."""
        out = bytearray(4)
        write_request_header(out, self.header, self.header_version)
        self.body.write(out, self.api_version)
        return _seal(out)


@dataclass(frozen=True, slots=True)
class ResponseFrame:
    header: ResponseHeader
    header_version: int
    api_key: int
    api_version: int
    body: Any  # the generated response, or UnsupportedApiVersions
    trailing: bytes = b""

    @property
    def correlation_id(self) -> int:
        return self.header.correlation_id

    def encode(self) -> bytes:
        """The frame in Kafka's canonical encoding; a refused ApiVersions body is written back as sent."""
        out = bytearray(4)
        write_response_header(out, self.header, self.header_version)
        if isinstance(self.body, UnsupportedApiVersions):
            out += self.body.raw
        else:
            self.body.write(out, self.api_version)
        return _seal(out)


# --- building frames --------------------------------------------------------------------------

def build_request_frame(body: GeneratedStruct, api_version: int, correlation_id: int,
                        client_id: str | None = "", *,
                        header_tagged_fields: tuple[tuple[int, bytes], ...] = ()) -> bytes:
    """``size | RequestHeader | body`` for a generated request, header version chosen by Kafka's rules."""
    cls: Any = type(body)
    if getattr(cls, "MESSAGE_TYPE", None) != "request":
        raise EncodeError(f"{type(body).__name__} is not a request message")
    header = request_header_class()(request_api_key=cls.API_KEY, request_api_version=api_version,
                                    correlation_id=correlation_id, client_id=client_id,
                                    unknown_tagged_fields=tuple(header_tagged_fields))
    header_version = index_of(cls).api(cls.API_KEY).request_header_version(api_version)
    return RequestFrame(header, header_version, body).encode()


def build_response_frame(body: GeneratedStruct, api_version: int, correlation_id: int, *,
                         header_tagged_fields: tuple[tuple[int, bytes], ...] = ()) -> bytes:
    """``size | ResponseHeader | body`` for a generated response."""
    cls: Any = type(body)
    if getattr(cls, "MESSAGE_TYPE", None) != "response":
        raise EncodeError(f"{type(body).__name__} is not a response message")
    header = response_header_class()(correlation_id=correlation_id,
                                      unknown_tagged_fields=tuple(header_tagged_fields))
    header_version = index_of(cls).api(cls.API_KEY).response_header_version(api_version)
    return ResponseFrame(header, header_version, cls.API_KEY, api_version, body).encode()


# --- parsing frames ---------------------------------------------------------------------------

def _read_body(cls: Any, frame: bytes, pos: int, version: int, allow_trailing: bool) -> tuple[Any, bytes]:
    try:
        body, end = cls.read(frame, pos, version)
    except DecodeError as exc:
        raise exc.with_context(path=cls.NAME) from None
    if end != len(frame) and not allow_trailing:
        raise DecodeError(f"{len(frame) - end} bytes left after {cls.NAME} v{version}", path=cls.NAME, offset=end)
    return body, frame[end:]


def parse_request_frame(data: bytes | bytearray | memoryview, index: ProtocolIndex | None = None, *,
                        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
                        allow_trailing_bytes: bool = False) -> RequestFrame:
    """Decode one whole request frame (size prefix included); ``index``: of the generated package
    whose classes decode it (kwire's own when None)."""
    frame = _one_frame(data, max_frame_bytes)
    api_key, api_version, correlation_id = peek_request_key(frame, 4)
    api = load(index).apis.get(api_key)
    if api is None:
        raise UnknownApiKeyError(api_key, f" (request v{api_version}, correlation id {correlation_id})")
    header_version = api.request_header_version(api_version)
    cls = api.request_class
    header, pos = read_request_header(frame, 4, header_version)
    body, trailing = _read_body(cls, frame, pos, api_version, allow_trailing_bytes)
    return RequestFrame(header, header_version, body, trailing)


def parse_response_frame(data: bytes | bytearray | memoryview, api_key: int, api_version: int,
                         index: ProtocolIndex | None = None, *,
                         max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
                         allow_trailing_bytes: bool = False) -> ResponseFrame:
    """Decode one whole response frame, given the api key and version of its request."""
    frame = _one_frame(data, max_frame_bytes)
    api = load(index).api(api_key)
    header_version = api.response_header_version(api_version)
    cls = api.response_class
    header, pos = read_response_header(frame, 4, header_version)
    if api_key == API_VERSIONS_KEY and _refuses_the_version(frame, pos):
        return ResponseFrame(header, header_version, api_key, api_version,
                             _read_refused_api_versions(cls, frame, pos, api_version))
    body, trailing = _read_body(cls, frame, pos, api_version, allow_trailing_bytes)
    return ResponseFrame(header, header_version, api_key, api_version, body, trailing)


def _unsupported_version() -> int:
    """Kafka's UNSUPPORTED_VERSION; the error table is imported only when an ApiVersions answer is
    read (it costs more to import than the rest of framing)."""
    from .errors import ErrorCode

    return ErrorCode.UNSUPPORTED_VERSION


def _refuses_the_version(frame: bytes, pos: int) -> bool:
    """Whether the ApiVersionsResponse body at ``pos`` opens with UNSUPPORTED_VERSION."""
    code = _INT16.unpack_from(frame, pos)[0] if len(frame) - pos >= 2 else 0
    return code != 0 and code == _unsupported_version()


def _read_refused_api_versions(cls: Any, frame: bytes, pos: int, api_version: int) -> Any:
    """An ApiVersionsResponse carrying error 35, which need not be at the requested version.

    As Kafka's client does: the requested version first, then v0. Both tries are strict (no
    trailing bytes), or a v0 body would pass for a garbled newer one.
    """
    try:
        return _read_body(cls, frame, pos, api_version, allow_trailing=False)[0]
    except KwireError:
        pass
    raw = frame[pos:]
    fallback = None
    if api_version != 0:
        try:
            fallback = cls.decode(raw, 0)
        except DecodeError:
            fallback = None
    return UnsupportedApiVersions(requested_version=api_version, fallback=fallback, raw=raw)


# --- one connection ---------------------------------------------------------------------------

def expects_response(api_key: int, body: Any) -> bool:
    """Whether a broker answers this request: not a Produce with acks=0."""
    return not (api_key == PRODUCE_KEY and getattr(body, "acks", None) == 0)


class Correlator:
    """Remembers (api key, version) per correlation id from the requests on one connection, and
    decodes the responses with it. Each response settles its request."""

    def __init__(self, index: ProtocolIndex | None = None, *,
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, allow_trailing_bytes: bool = False) -> None:
        self.index = load(index)  # of the generated package whose classes decode the frames
        self.max_frame_bytes = max_frame_bytes
        self.allow_trailing_bytes = allow_trailing_bytes
        self._pending: dict[int, tuple[int, int]] = {}

    @property
    def pending(self) -> dict[int, tuple[int, int]]:
        """Correlation id -> (api key, api version) of the requests still waiting for an answer."""
        return dict(self._pending)

    def expect(self, correlation_id: int, api_key: int, api_version: int) -> None:
        """Record a request sent by other means, so that its response can be parsed."""
        if correlation_id in self._pending:
            key, version = self._pending[correlation_id]
            raise CorrelationError(f"correlation id {correlation_id} is already waiting for a response "
                                   f"(api key {key} v{version})")
        self._pending[correlation_id] = (api_key, api_version)

    def build_request(self, body: GeneratedStruct, api_version: int, correlation_id: int,
                      client_id: str | None = "") -> bytes:
        """Build a request frame and expect its response."""
        frame = build_request_frame(body, api_version, correlation_id, client_id)
        cls: Any = type(body)
        api_key = cls.API_KEY
        if expects_response(api_key, body):
            self.expect(correlation_id, api_key, api_version)
        return frame

    def parse_request(self, data: bytes | bytearray | memoryview) -> RequestFrame:
        """Decode a request frame seen on the connection and expect its response.

        A request of an unknown API is still recorded before UnknownApiKeyError is raised, so
        that its response is reported as the same unknown API rather than an unknown id.
        """
        try:
            request = parse_request_frame(data, self.index, max_frame_bytes=self.max_frame_bytes,
                                          allow_trailing_bytes=self.allow_trailing_bytes)
        except UnknownApiKeyError:
            frame = _one_frame(data, self.max_frame_bytes)
            api_key, api_version, correlation_id = peek_request_key(frame, 4)
            self.expect(correlation_id, api_key, api_version)
            raise
        if expects_response(request.api_key, request.body):
            self.expect(request.correlation_id, request.api_key, request.api_version)
        return request

    def parse_response(self, data: bytes | bytearray | memoryview) -> ResponseFrame:
        """Decode a response frame with the api key and version of the request it answers."""
        frame = _one_frame(data, self.max_frame_bytes)
        correlation_id = peek_correlation_id(frame, 4)
        try:
            api_key, api_version = self._pending.pop(correlation_id)
        except KeyError:
            raise CorrelationError(f"no request with correlation id {correlation_id} is waiting for a response",
                                   path="ResponseHeader.correlation_id", offset=4) from None
        if api_key not in self.index.apis:
            raise UnknownApiKeyError(api_key, f" (response v{api_version}, correlation id {correlation_id})")
        return parse_response_frame(frame, api_key, api_version, self.index,
                                    max_frame_bytes=self.max_frame_bytes,
                                    allow_trailing_bytes=self.allow_trailing_bytes)
