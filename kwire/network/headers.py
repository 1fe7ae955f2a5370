"""Request and response headers, read and written at a given header version.

Which header version a message's version takes is decided when its package is generated and held
by the package's index (:meth:`kwire.wire.index.Api.request_header_version`); Kafka's rule for it is
:func:`kwire.wire.index.kafka_header_version`.

Header v0 (Kafka 4.0 dropped it; kwire's definition has it again as Kafka 3.8.0 spoke it) is read
and written here: it is just the three fixed fields. 3.8.0's ClientId was ignorable, so a header
with a client id is written at v0 without it, as Kafka's Java client did; the generated class,
which follows 4.x (ClientId not ignorable), would refuse that.
"""
from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from kwire.wire.errors import DecodeError, EncodeError, UnsupportedVersionError

if TYPE_CHECKING:
    from kwire.generated.request_header import RequestHeader
    from kwire.generated.response_header import ResponseHeader

# api key, api version, correlation id: the start of every request header version.
_REQUEST_HEADER_V0 = struct.Struct(">hhi")
REQUEST_HEADER_V0_SIZE = _REQUEST_HEADER_V0.size
_CORRELATION_ID = struct.Struct(">i")


def request_header_class() -> type[RequestHeader]:
    """The generated RequestHeader, imported when a request is first read or written (a program
    that only reads responses never imports it)."""
    from kwire.generated.request_header import RequestHeader

    return RequestHeader


def response_header_class() -> type[ResponseHeader]:
    """The generated ResponseHeader, imported when a response is first read or written."""
    from kwire.generated.response_header import ResponseHeader

    return ResponseHeader


# --- request headers -------------------------------------------------------------------------

def write_request_header(out: bytearray, header: RequestHeader, header_version: int) -> None:
    """Append ``header`` at ``header_version`` (0, 1 or 2) to ``out``."""
    if header_version == 0:
        # v0 has no client id and no tagged section; upstream's ClientId is ignorable there.
        if header.unknown_tagged_fields:
            raise UnsupportedVersionError("RequestHeader version 0 cannot carry tagged fields")
        try:
            out += _REQUEST_HEADER_V0.pack(header.request_api_key, header.request_api_version,
                                           header.correlation_id)
        except struct.error as exc:
            raise EncodeError(f"request header field out of range: {exc}", path="RequestHeader") from None
        return
    header.write(out, header_version)


def encode_request_header(header: RequestHeader, header_version: int) -> bytes:
    out = bytearray()
    write_request_header(out, header, header_version)
    return bytes(out)


def peek_request_key(buf: bytes, pos: int = 0) -> tuple[int, int, int]:
    """(api key, api version, correlation id) of the request header at ``pos``.

    These three fields open every header version, so they can be read before the header version
    is known (it depends on them).
    """
    if pos < 0 or len(buf) - pos < REQUEST_HEADER_V0_SIZE:
        raise DecodeError("request header is shorter than its 8 fixed bytes", path="RequestHeader", offset=pos)
    return _REQUEST_HEADER_V0.unpack_from(buf, pos)


def read_request_header(buf: bytes, pos: int, header_version: int) -> tuple[RequestHeader, int]:
    """Read a RequestHeader at ``header_version``; return it and the position after it."""
    if header_version == 0:
        api_key, api_version, correlation_id = peek_request_key(buf, pos)
        header = request_header_class()(request_api_key=api_key, request_api_version=api_version,
                                        correlation_id=correlation_id)
        return header, pos + REQUEST_HEADER_V0_SIZE
    try:
        return request_header_class().read(buf, pos, header_version)
    except DecodeError as exc:
        raise exc.with_context(path="RequestHeader") from None


# --- response headers ------------------------------------------------------------------------

def write_response_header(out: bytearray, header: ResponseHeader, header_version: int) -> None:
    header.write(out, header_version)


def encode_response_header(header: ResponseHeader, header_version: int) -> bytes:
    return header.encode(header_version)


def peek_correlation_id(buf: bytes, pos: int = 0) -> int:
    """The correlation id opening the response header at ``pos`` (first field of every version)."""
    if pos < 0 or len(buf) - pos < 4:
        raise DecodeError("response header is shorter than its 4-byte correlation id",
                          path="ResponseHeader", offset=pos)
    return _CORRELATION_ID.unpack_from(buf, pos)[0]


def read_response_header(buf: bytes, pos: int, header_version: int) -> tuple[ResponseHeader, int]:
    try:
        return response_header_class().read(buf, pos, header_version)
    except DecodeError as exc:
        raise exc.with_context(path="ResponseHeader") from None
