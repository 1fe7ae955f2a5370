"""Broker replies whose bytes kwire did not write, and loopback brokers built on them.

:func:`kio_response_frame` encodes ``size | ResponseHeader | body`` with kio (an independent codec
generated from Kafka's JSON), choosing the header version kio's schema declares.

:class:`KioBroker` listens on 127.0.0.1, accepts connections one after another, answers ApiVersions
(with features from v3 on, or an error code) and records every request it reads, so a test can
count what a client asked. :class:`ScramBroker` adds what a Kafka broker says before a SASL client
is authenticated: SaslHandshake (v0/v1) and SaslAuthenticate rounds (KIP-152). The SCRAM
server side is ``scramp`` (PyPI), so a login that succeeds proves kwire's client against a second
implementation of RFC 5802/7677. kwire's framing only parses the client's requests; every reply is
encoded by kio. A failed proof is answered as Kafka's SaslServerAuthenticator answers it
(SASL_AUTHENTICATION_FAILED with its message, clients/.../SaslServerAuthenticator.java).

kio and scramp are test-only packages: import this module inside a test after
``need_module("kio")`` / ``need_module("scramp")`` (tests/optional.py).
"""
from __future__ import annotations

import datetime
import io
import socket
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import scramp
from kio.index import load_response_schema
from kio.schema.errors import ErrorCode as KioErrorCode
from kio.serial import entity_writer
from kio.static.primitive import i16, i32, i32Timedelta, i64, i64Timedelta

from kwire.network.framing import parse_request_frame
from tests.network.livepeers import LOOPBACK, LoopbackPeer

API_VERSIONS, SASL_HANDSHAKE, SASL_AUTHENTICATE = 18, 17, 36
# What this broker offers: (api key, min, max).
OFFERED = ((API_VERSIONS, 0, 4), (SASL_HANDSHAKE, 0, 1), (SASL_AUTHENTICATE, 0, 2))
SASL_AUTHENTICATION_FAILED = 58
UNSUPPORTED_SASL_MECHANISM = 33
ZERO = datetime.timedelta(0)


def kafka_auth_failed_message(mechanism: str) -> str:
    # SaslServerAuthenticator.handleSaslToken (Kafka 4.0, apache/kafka 1eb7644), first authentication
    return ("Authentication failed during authentication due to invalid credentials with SASL "
            f"mechanism {mechanism}")


def kio_encode(entity: Any) -> bytes:
    out = io.BytesIO()
    entity_writer(type(entity))(out, entity)
    return out.getvalue()


def kio_response_frame(api_key: int, version: int, correlation_id: int, **fields: Any) -> bytes:
    """A whole response frame encoded by kio: kio's class for (api key, version) built from ``fields``."""
    schema = load_response_schema(api_key, version)
    header = schema.__header_schema__(correlation_id=i32(correlation_id))
    payload = kio_encode(header) + kio_encode(schema(**fields))
    return struct.pack(">i", len(payload)) + payload


def api_versions_fields(version: int, offered=OFFERED, *, error_code: int = 0,
                        supported_features: dict[str, tuple[int, int]] | None = None,
                        finalized_features: dict[str, int] | None = None,
                        finalized_features_epoch: int = -1) -> dict[str, Any]:
    """kio's ApiVersionsResponse fields; the features (tagged fields 0-2) from v3 on."""
    schema = sys.modules[load_response_schema(API_VERSIONS, version).__module__]
    keys = tuple(schema.ApiVersion(api_key=i16(k), min_version=i16(lo), max_version=i16(hi)) for k, lo, hi in offered)
    fields: dict[str, Any] = {"error_code": KioErrorCode(error_code), "api_keys": keys}
    if version >= 1:
        fields["throttle_time"] = i32Timedelta.parse(ZERO)
    if version >= 3:
        fields["supported_features"] = tuple(
            schema.SupportedFeatureKey(name=name, min_version=i16(low), max_version=i16(high))
            for name, (low, high) in (supported_features or {}).items())
        fields["finalized_features"] = tuple(
            schema.FinalizedFeatureKey(name=name, max_version_level=i16(level), min_version_level=i16(level))
            for name, level in (finalized_features or {}).items())
        fields["finalized_features_epoch"] = i64(finalized_features_epoch)
    return fields


def _read_exactly(sock: socket.socket, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


@dataclass
class KioBroker(LoopbackPeer):
    """A broker on loopback (a :class:`LoopbackPeer`: a context manager whose exit fails the test if
    a conversation broke), whose replies kio encodes.

    It accepts connections one after another and answers ApiVersions at the version asked, listing
    ``offered`` with ``api_versions_error`` as its error code and, from v3 on, the features given.
    ``requests`` holds (api key, version) of every request read, over all connections, and
    ``frames`` each request frame as it came (size prefix included); a request it cannot answer
    ends that connection and is kept in ``errors``.
    """

    offered: tuple[tuple[int, int, int], ...] = OFFERED
    api_versions_error: int = 0
    supported_features: dict[str, tuple[int, int]] = field(default_factory=dict)
    finalized_features: dict[str, int] = field(default_factory=dict)
    finalized_features_epoch: int = -1
    requests: list[tuple[int, int]] = field(default_factory=list)
    frames: list[bytes] = field(default_factory=list)       # every request frame read, as it came
    replies: list[bytes] = field(default_factory=list)      # every frame sent, for the record

    def __post_init__(self) -> None:
        LoopbackPeer.__init__(self)  # the listener and its accept loop

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def _converse(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        self._connected()
        while True:
            prefix = _read_exactly(conn, 4)
            if prefix is None:
                return
            rest = _read_exactly(conn, struct.unpack(">i", prefix)[0])
            if rest is None:
                return
            self.frames.append(prefix + rest)
            request = parse_request_frame(prefix + rest)
            self.requests.append((request.api_key, request.api_version))
            reply = self._reply(request)
            self.replies.append(reply)
            conn.sendall(reply)

    def _connected(self) -> None:
        """A new connection begins (a subclass resets its per-connection state here)."""

    def _reply(self, request: Any) -> bytes:
        if request.api_key != API_VERSIONS:
            raise AssertionError(f"the client sent api key {request.api_key} out of turn")
        version = request.api_version
        return kio_response_frame(API_VERSIONS, version, request.correlation_id, **api_versions_fields(
            version, self.offered, error_code=self.api_versions_error, supported_features=self.supported_features,
            finalized_features=self.finalized_features, finalized_features_epoch=self.finalized_features_epoch))


@dataclass
class ScramBroker(KioBroker):
    """A :class:`KioBroker` that authenticates with SCRAM.

    ``users`` maps user name to password; ``iterations`` is what the server asks the client for.
    The hooks make it dishonest in one named way: ``tamper_server_first`` rewrites scramp's
    server-first message, ``server_key_password`` derives the ServerKey from another password (a
    server that stole the StoredKey but does not know the password).
    """

    mechanism: str = "SCRAM-SHA-256"
    users: dict[str, str] = field(default_factory=lambda: {"alice": "alice-secret"})
    iterations: int = 4096
    mechanisms_offered: tuple[str, ...] = ("SCRAM-SHA-256", "SCRAM-SHA-512")
    tamper_server_first: Callable[[str], str] | None = None
    server_key_password: str | None = None
    authenticated: list[str] = field(default_factory=list)  # user names whose proof scramp accepted

    def __post_init__(self) -> None:
        self._auth_info: dict[str, tuple] = {}
        self._user: str | None = None
        self._server: Any = None  # scramp's server side of the connection's exchange
        scram = scramp.ScramMechanism(self.mechanism)
        for user, password in self.users.items():
            salt, stored_key, server_key, iterations = scram.make_auth_info(password, iteration_count=self.iterations)
            if self.server_key_password is not None:
                _, _, server_key, _ = scram.make_auth_info(self.server_key_password, iteration_count=iterations,
                                                           salt=salt)
            self._auth_info[user] = (salt, stored_key, server_key, iterations)
        super().__post_init__()  # listen only once the state a conversation reads exists

    def _connected(self) -> None:
        self._server = None

    def _reply(self, request: Any) -> bytes:
        version, cid = request.api_version, request.correlation_id
        if request.api_key == SASL_HANDSHAKE:
            offered = request.body.mechanism in self.mechanisms_offered and request.body.mechanism == self.mechanism
            code = KioErrorCode.none if offered else KioErrorCode.unsupported_sasl_mechanism
            if offered:
                self._server = scramp.ScramMechanism(self.mechanism).make_server(self._look_up)
            return kio_response_frame(SASL_HANDSHAKE, version, cid, error_code=code,
                                      mechanisms=self.mechanisms_offered)
        if request.api_key == SASL_AUTHENTICATE and self._server is not None:
            reply, done = self._scram_round(self._server, bytes(request.body.auth_bytes), version, cid)
            if done:
                self._server = None
            return reply
        return super()._reply(request)

    def _look_up(self, user: str) -> tuple | None:
        self._user = user
        return self._auth_info.get(user)

    def _scram_round(self, server: Any, token: bytes, version: int, cid: int) -> tuple[bytes, bool]:
        def answer(auth_bytes: bytes, code: KioErrorCode = KioErrorCode.none, message: str | None = None) -> bytes:
            fields: dict[str, Any] = {"error_code": code, "error_message": message, "auth_bytes": auth_bytes}
            if version >= 1:
                fields["session_lifetime"] = i64Timedelta.parse(ZERO)
            return kio_response_frame(SASL_AUTHENTICATE, version, cid, **fields)

        failed = (b"", KioErrorCode.sasl_authentication_failed, kafka_auth_failed_message(self.mechanism))
        if server.stage is None:
            try:
                server.set_client_first(token.decode())
            except scramp.ScramException:  # an unknown user: Kafka fails it the same way as a wrong proof
                return answer(*failed), True
            server_first = server.get_server_first()
            if self.tamper_server_first is not None:
                server_first = self.tamper_server_first(server_first)
                server.server_first = server_first  # keep scramp's AuthMessage the one the client saw
            return answer(server_first.encode()), False
        try:
            server.set_client_final(token.decode())
        except scramp.ScramException:
            return answer(*failed), True
        self.authenticated.append(self._user)
        return answer(server.get_server_final().encode()), True
