"""The asyncio adapter: a :class:`~kwire.network.connection.Connection` over asyncio streams.

``conn = await connect(host, port, ssl=context, sasl=SaslCredentials(...))`` returns once the
connection has negotiated versions (and authenticated); ``await conn.request(body)`` sends a request
and returns its decoded response. Several requests may wait at once (up to ``max_in_flight``;
a caller above the limit waits for a free slot). One task reads the stream and hands each answer to
its waiter; a timer task enforces the connection's deadlines. When the peer goes away, every
waiter gets the same clear :class:`~kwire.network.connection.ConnectionClosed`.
"""
from __future__ import annotations

import asyncio
import ssl as ssl_module
from typing import Any

from kwire.wire.errors import KwireError
from kwire.wire.index import ProtocolIndex

from .connection import (
    DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_REQUEST_TIMEOUT,
    Connection,
    ConnectionClosed,
    Event,
    Ready,
    RequestFailed,
    Response,
    State,
)
from .errors import ClientError
from .framing import DEFAULT_MAX_FRAME_BYTES, ResponseFrame
from .sasl import Mechanism, SaslCredentials

_READ_SIZE = 1 << 16


class AioConnection:
    """Made by :func:`connect`."""

    def __init__(self, protocol: Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 address: tuple[str, int]) -> None:
        self.protocol = protocol
        self.address = address
        self._reader = reader
        self._writer = writer
        self._loop = asyncio.get_running_loop()
        self._waiters: dict[int, asyncio.Future[ResponseFrame]] = {}
        self._ready: asyncio.Future[None] = self._loop.create_future()
        self._slots = asyncio.Semaphore(protocol.max_in_flight)
        self._wake = asyncio.Event()  # a new deadline exists
        self._closed = False
        self._tasks = [asyncio.create_task(self._read_loop()), asyncio.create_task(self._timer_loop())]

    @property
    def versions(self) -> dict[int, int]:
        return self.protocol.versions

    async def _start(self) -> None:
        self.protocol.start(self._loop.time())
        await self._flush()
        self._wake.set()
        await self._ready

    async def request(self, body: Any, version: int | None = None, *, timeout: float | None = None) -> Any:
        """Send ``body``; return the decoded response body (None for Produce with acks=0)."""
        frame = await self.exchange(body, version, timeout=timeout)
        return None if frame is None else frame.body

    async def exchange(self, body: Any, version: int | None = None, *,
                       timeout: float | None = None) -> ResponseFrame | None:
        """Send ``body``; return its whole response frame."""
        async with self._slots:
            self._raise_if_closed()
            correlation_id = self.protocol.send(body, self._loop.time(), version=version, timeout=timeout)
            await self._flush()
            if correlation_id < 0:
                return None
            waiter: asyncio.Future[ResponseFrame] = self._loop.create_future()
            self._waiters[correlation_id] = waiter
            self._wake.set()
            return await waiter

    def _raise_if_closed(self) -> None:
        if self.protocol.state is State.CLOSED:
            raise self.protocol.failure or ConnectionClosed("connection is closed")

    async def _flush(self) -> None:
        data = self.protocol.data_to_send()
        if data:
            try:
                self._writer.write(data)
                await self._writer.drain()
            except OSError as exc:
                self._dispatch(self.protocol.connection_lost(f"writing to {self._where()} failed: {exc}"))

    def _where(self) -> str:
        return f"{self.address[0]}:{self.address[1]}"

    async def _read_loop(self) -> None:
        try:
            while self.protocol.state is not State.CLOSED:
                try:
                    chunk = await self._reader.read(_READ_SIZE)
                except OSError as exc:
                    self._dispatch(self.protocol.connection_lost(f"reading from {self._where()} failed: {exc}"))
                    break
                if not chunk:
                    self._dispatch(self.protocol.connection_lost(f"{self._where()} closed the connection"))
                    break
                self._dispatch(self.protocol.receive_data(chunk, self._loop.time()))
                await self._flush()  # negotiation and SASL answer from inside receive_data
                self._wake.set()
        except KwireError as exc:  # a stream that cannot be read: the connection closed itself
            self._dispatch([], error=exc)
        finally:
            self._finish()

    async def _timer_loop(self) -> None:
        while self.protocol.state is not State.CLOSED:
            deadline = self.protocol.next_deadline()
            self._wake.clear()
            timeout = None if deadline is None else max(0.0, deadline - self._loop.time())
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except TimeoutError:
                self._dispatch(self.protocol.check_timeouts(self._loop.time()))
        self._finish()

    def _dispatch(self, events: list[Event], error: KwireError | None = None) -> None:
        for event in events:
            if isinstance(event, Ready):
                if not self._ready.done():
                    self._ready.set_result(None)
            elif isinstance(event, Response):
                waiter = self._waiters.pop(event.correlation_id, None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(event.frame)
            elif isinstance(event, RequestFailed):
                waiter = self._waiters.pop(event.correlation_id, None)
                if waiter is not None and not waiter.done():
                    waiter.set_exception(event.error)
        if error is not None or self.protocol.state is State.CLOSED:
            self._fail_all(error)

    def _fail_all(self, error: KwireError | None) -> None:
        failure = error or self.protocol.failure or ConnectionClosed("connection is closed")
        if not self._ready.done():
            self._ready.set_exception(failure)
        for waiter in self._waiters.values():
            if not waiter.done():
                waiter.set_exception(failure)
        self._waiters.clear()

    def _finish(self) -> None:
        if self.protocol.state is not State.CLOSED:
            self.protocol.close()
        self._fail_all(None)
        self._wake.set()
        if not self._writer.is_closing():
            self._writer.close()

    async def close(self) -> None:
        self._dispatch(self.protocol.close())
        self._wake.set()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if not self._writer.is_closing():
            self._writer.close()
        try:
            await self._writer.wait_closed()
        except (OSError, ssl_module.SSLError):
            pass  # closing a stream the peer already dropped
        if not self._ready.done():
            self._ready.cancel()

    async def __aenter__(self) -> AioConnection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def connect(host: str, port: int, *, ssl: ssl_module.SSLContext | None = None,
                  sasl: SaslCredentials | Mechanism | None = None, client_id: str = "kwire",
                  timeout: float = DEFAULT_REQUEST_TIMEOUT, max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
                  include_unstable: bool = False, index: ProtocolIndex | None = None,
                  max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
                  client_software_version: str = "unknown") -> AioConnection:
    """Open, negotiate (and authenticate) a connection; each step bounded by ``timeout``."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=ssl, server_hostname=host if ssl is not None else None),
            timeout)
    except (TimeoutError, OSError, ssl_module.SSLError) as exc:
        raise ClientError(f"cannot connect to {host}:{port}: {exc or 'timed out'}") from None
    protocol = Connection(client_id=client_id, sasl=sasl, request_timeout=timeout, max_in_flight=max_in_flight,
                          include_unstable=include_unstable, max_frame_bytes=max_frame_bytes,
                          index=index,
                          client_software_version=client_software_version)
    connection = AioConnection(protocol, reader, writer, (host, port))
    try:
        await connection._start()
    except BaseException:
        await connection.close()
        raise
    return connection
