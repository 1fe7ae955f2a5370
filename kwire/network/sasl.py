"""SASL client mechanisms for Kafka: PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802, RFC 7677).

Sans-I/O: a mechanism turns the server's challenge bytes into the next response bytes; the
connection carries them in SaslAuthenticate requests (after a SaslHandshake naming the
mechanism, KIP-152). The SCRAM proof is computed with :mod:`hashlib` and :mod:`hmac` only.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from kwire.wire.errors import KwireError

# Kafka's own bounds on SCRAM iterations (ScramMechanism: 4096..16384). A server asking for more
# is refused rather than letting it make the client hash for minutes.
SCRAM_MIN_ITERATIONS = 4096
SCRAM_MAX_ITERATIONS = 16384

_SCRAM_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}


class SaslError(KwireError):
    """SASL authentication failed on the client's side: a malformed or dishonest server message."""


@dataclass
class SaslCredentials:
    """What :func:`kwire.network.aio.connect` and the blocking adapter take as ``sasl=``."""

    mechanism: str  # PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
    username: str
    password: str = field(repr=False)

    def mechanism_object(self) -> Mechanism:
        return mechanism_for(self.mechanism, self.username, self.password)


class Mechanism:
    """One authentication exchange: ``initial()`` first, then ``respond(challenge)`` until ``done``."""

    name: str
    done: bool = False

    def initial(self) -> bytes:
        raise NotImplementedError

    def respond(self, challenge: bytes) -> bytes | None:
        """The next message for ``challenge``, or None when the exchange is complete."""
        raise NotImplementedError


class Plain(Mechanism):
    """RFC 4616: one message, ``authzid NUL authcid NUL passwd`` (no authzid)."""

    name = "PLAIN"

    def __init__(self, username: str, password: str) -> None:
        if "\0" in username or "\0" in password:
            raise SaslError("PLAIN user names and passwords cannot contain NUL")
        self._message = b"\0" + username.encode() + b"\0" + password.encode()

    def initial(self) -> bytes:
        return self._message

    def respond(self, challenge: bytes) -> bytes | None:
        self.done = True  # the server's answer to PLAIN is empty; success is its error code
        return None


def _escape_name(name: str) -> str:
    """RFC 5802 saslname: ``=`` and ``,`` written as ``=3D`` and ``=2C``."""
    return name.replace("=", "=3D").replace(",", "=2C")


def _attributes(message: bytes, what: str) -> dict[str, str]:
    try:
        text = message.decode("utf-8")
    except UnicodeDecodeError:
        raise SaslError(f"SCRAM {what} is not UTF-8") from None
    attributes: dict[str, str] = {}
    for part in text.split(","):
        if len(part) < 2 or part[1] != "=":
            raise SaslError(f"SCRAM {what} has a malformed attribute {part[:40]!r}")
        attributes.setdefault(part[0], part[2:])
    if "e" in attributes:
        raise SaslError(f"the server refused SCRAM authentication: {attributes['e']}")
    return attributes


class Scram(Mechanism):
    """SCRAM client (RFC 5802) with the hash of RFC 7677 (SHA-256) or SHA-512; no channel binding.

    ``hash_name`` is any :func:`hashlib.new` name, so the RFC 5802 SHA-1 vector can be checked too.
    """

    def __init__(self, username: str, password: str, *, hash_name: str = "sha256",
                 nonce: str | None = None, name: str | None = None) -> None:
        self.name = name or f"SCRAM-{hash_name.upper().replace('SHA', 'SHA-')}"
        self.hash_name = hash_name
        self._password = password.encode("utf-8")
        self._nonce = nonce if nonce is not None else secrets.token_urlsafe(24)
        self._client_first_bare = f"n={_escape_name(username)},r={self._nonce}"
        self._server_signature: bytes | None = None

    def _hmac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self.hash_name).digest()

    def initial(self) -> bytes:
        return ("n,," + self._client_first_bare).encode()

    def respond(self, challenge: bytes) -> bytes | None:
        if self._server_signature is None:
            return self._client_final(challenge)
        self._verify_server_final(challenge)
        self.done = True
        return None

    def _client_final(self, server_first: bytes) -> bytes:
        attributes = _attributes(server_first, "server-first-message")
        try:
            nonce, salt_text, iterations_text = attributes["r"], attributes["s"], attributes["i"]
        except KeyError as missing:
            raise SaslError(f"SCRAM server-first-message lacks attribute {missing}") from None
        if not nonce.startswith(self._nonce) or len(nonce) == len(self._nonce):
            raise SaslError("SCRAM server nonce does not extend the client's nonce")
        if not iterations_text.isdigit() or not SCRAM_MIN_ITERATIONS <= int(iterations_text) <= SCRAM_MAX_ITERATIONS:
            raise SaslError(f"SCRAM iteration count {iterations_text[:20]!r} is outside "
                            f"{SCRAM_MIN_ITERATIONS}..{SCRAM_MAX_ITERATIONS}")
        try:
            salt = base64.b64decode(salt_text, validate=True)
        except ValueError:
            raise SaslError("SCRAM salt is not base64") from None
        salted = hashlib.pbkdf2_hmac(self.hash_name, self._password, salt, int(iterations_text))
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self.hash_name, client_key).digest()
        without_proof = f"c=biws,r={nonce}"  # biws = base64("n,,"): no channel binding, no authzid
        auth_message = ",".join((self._client_first_bare, server_first.decode(), without_proof)).encode()
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=False))
        self._server_signature = self._hmac(self._hmac(salted, b"Server Key"), auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def _verify_server_final(self, server_final: bytes) -> None:
        attributes = _attributes(server_final, "server-final-message")
        assert self._server_signature is not None
        try:
            verifier = base64.b64decode(attributes.get("v", ""), validate=True)
        except ValueError:
            raise SaslError("SCRAM server signature is not base64") from None
        if not hmac.compare_digest(verifier, self._server_signature):
            raise SaslError("SCRAM server signature does not match: the server does not know the password")


def mechanism_for(name: str, username: str, password: str) -> Mechanism:
    """The client side of ``name`` (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)."""
    if name == "PLAIN":
        return Plain(username, password)
    if name in _SCRAM_HASHES:
        return Scram(username, password, hash_name=_SCRAM_HASHES[name], name=name)
    raise SaslError(f"unsupported SASL mechanism {name!r}: kwire has PLAIN, SCRAM-SHA-256, SCRAM-SHA-512")
