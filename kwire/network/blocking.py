"""The blocking adapter: a :class:`~kwire.network.connection.Connection` over a plain socket.

One request at a time from the caller's point of view (:meth:`BlockingConnection.request` sends and
waits for its answer); the deadline of each wait comes from the connection's own timeouts.
"""
from __future__ import annotations

import socket
import ssl as ssl_module
import time
from typing import Any

from kwire.wire.closing import Closing
from kwire.wire.errors import DecodeError
from kwire.wire.index import ProtocolIndex

from .connection import (
    DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_REQUEST_TIMEOUT,
    Connection,
    ConnectionClosed,
    Event,
    RequestFailed,
    RequestTimedOut,
    Response,
    State,
)
from .errors import ClientError
from .framing import DEFAULT_MAX_FRAME_BYTES, ResponseFrame
from .sasl import Mechanism, SaslCredentials

_READ_SIZE = 1 << 16


class BlockingConnection(Closing):
    """Connects, negotiates (and authenticates) in the constructor; then :meth:`request`."""

    def __init__(self, host: str, port: int, *, ssl: ssl_module.SSLContext | None = None,
                 sasl: SaslCredentials | Mechanism | None = None, client_id: str = "kwire",
                 timeout: float = DEFAULT_REQUEST_TIMEOUT, max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
                 include_unstable: bool = False, index: ProtocolIndex | None = None,
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, client_software_version: str = "unknown") -> None:
        self.address = (host, port)
        self.protocol = Connection(client_id=client_id, sasl=sasl, request_timeout=timeout,
                                   max_in_flight=max_in_flight, include_unstable=include_unstable,
                                   max_frame_bytes=max_frame_bytes,
                                   index=index,
                                   client_software_version=client_software_version)
        self._answers: dict[int, Response | RequestFailed] = {}
        try:
            sock = socket.create_connection(self.address, timeout=timeout)
        except OSError as exc:
            raise ClientError(f"cannot connect to {host}:{port}: {exc}") from None
        if ssl is not None:
            try:
                sock = ssl.wrap_socket(sock, server_hostname=host)
            except (OSError, ssl_module.SSLError) as exc:
                sock.close()
                raise ClientError(f"TLS handshake with {host}:{port} failed: {exc}") from None
        self._sock: socket.socket | None = sock
        try:
            self.protocol.start(time.monotonic())
            self._pump(lambda: self.protocol.state is State.READY)
        except BaseException:
            self.close()
            raise

    @property
    def versions(self) -> dict[int, int]:
        return self.protocol.versions

    def request(self, body: Any, version: int | None = None, *, timeout: float | None = None) -> Any:
        """Send ``body`` and return the decoded response body (None for Produce with acks=0)."""
        frame = self.exchange(body, version, timeout=timeout)
        return None if frame is None else frame.body

    def exchange(self, body: Any, version: int | None = None, *, timeout: float | None = None) -> ResponseFrame | None:
        """Send ``body``; return its whole response frame (header, body, trailing bytes)."""
        correlation_id = self.protocol.send(body, time.monotonic(), version=version, timeout=timeout)
        if correlation_id < 0:
            self._flush()
            return None
        self._pump(lambda: correlation_id in self._answers)
        answer = self._answers.pop(correlation_id)
        if isinstance(answer, RequestFailed):
            raise answer.error
        return answer.frame

    def _where(self) -> str:
        return f"{self.address[0]}:{self.address[1]}"

    def _flush(self) -> None:
        data = self.protocol.data_to_send()
        if data:
            self._io(lambda sock: sock.sendall(data), "sending")

    def _pump(self, done: Any) -> None:
        """Write, read and tick the clock until ``done()`` or the connection closes."""
        while True:
            self._flush()
            if done():
                return
            if self.protocol.state is State.CLOSED:
                self._fail()
            deadline = self.protocol.next_deadline()
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if remaining is not None and remaining <= 0:
                self._record(self.protocol.check_timeouts(time.monotonic()))
                continue
            chunk = self._io(lambda sock, remaining=remaining: _recv(sock, remaining), "reading")
            now = time.monotonic()
            if chunk is None:  # the wait ran out
                self._record(self.protocol.check_timeouts(now))
            elif not chunk:
                self._record(self.protocol.connection_lost(f"{self._where()} closed the connection"))
            else:
                self._record(self.protocol.receive_data(chunk, now))

    def _record(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, (Response, RequestFailed)):
                self._answers[event.correlation_id] = event

    def _fail(self) -> None:
        self.close()
        failure = self.protocol.failure
        raise failure if failure is not None else ConnectionClosed(f"connection to {self._where()} is closed")

    def _io(self, operation: Any, doing: str) -> Any:
        sock = self._sock
        if sock is None:
            raise ConnectionClosed(f"connection to {self._where()} is closed")
        try:
            return operation(sock)
        except OSError as exc:
            self._record(self.protocol.connection_lost(f"{doing} on {self._where()} failed: {exc}"))
            self._fail()

    def close(self) -> None:
        self._record(self.protocol.close())
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _recv(sock: socket.socket, timeout: float | None) -> bytes | None:
    """Up to 64 KiB, or None when ``timeout`` seconds pass first."""
    sock.settimeout(timeout)
    try:
        return sock.recv(_READ_SIZE)
    except TimeoutError:
        return None


__all__ = ["BlockingConnection", "ClientError", "ConnectionClosed", "DecodeError", "RequestTimedOut"]
