"""kwire's SCRAM client against a second implementation: ``scramp`` (PyPI) as the server.

The RFC vectors (test_sasl.py) fix SHA-1/SHA-256 at 4,096 iterations; here scramp checks
SCRAM-SHA-256 and SCRAM-SHA-512 at every iteration count Kafka allows a credential to have
(ScramMechanism.java: 4096..16384 for both), and a whole login runs over loopback against
:class:`tests.network.kio_broker.ScramBroker` (kwire's BlockingConnection and asyncio adapter as
the client; scramp verifying the proof; kio encoding every broker reply). The failure paths are a
wrong password (the broker's SASL_AUTHENTICATION_FAILED, worded as Kafka words it), a server nonce
that does not extend the client's, and a server signature made without the password.
"""
from __future__ import annotations

import asyncio

import pytest

from kwire.network.sasl import (
    SCRAM_MAX_ITERATIONS,
    SCRAM_MIN_ITERATIONS,
    SaslCredentials,
    SaslError,
    mechanism_for,
)
from tests.optional import need_module

MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
# Kafka 4.0's ScramMechanism (apache/kafka clients/.../scram/internals/ScramMechanism.java):
# minIterations 4096 and maxIterations 16384 for both mechanisms.
KAFKA_MIN_ITERATIONS, KAFKA_MAX_ITERATIONS = 4096, 16384
ITERATIONS = (KAFKA_MIN_ITERATIONS, 8192, KAFKA_MAX_ITERATIONS)


@pytest.fixture
def scramp():
    return need_module("scramp")


@pytest.fixture
def kio_broker():
    need_module("kio")
    need_module("scramp")
    from tests.network import kio_broker

    return kio_broker


def scramp_server(scramp, mechanism: str, password: str, iterations: int, *, server_key_password: str | None = None):
    scram = scramp.ScramMechanism(mechanism)
    salt, stored_key, server_key, i = scram.make_auth_info(password, iteration_count=iterations)
    if server_key_password is not None:
        server_key = scram.make_auth_info(server_key_password, iteration_count=i, salt=salt)[2]
    return scram.make_server(lambda user: (salt, stored_key, server_key, i) if user == "alice" else None)


def test_kafka_iteration_bounds_are_kwire_bounds():
    assert (SCRAM_MIN_ITERATIONS, SCRAM_MAX_ITERATIONS) == (KAFKA_MIN_ITERATIONS, KAFKA_MAX_ITERATIONS)


# --- the mechanism alone, scramp on the other side ---------------------------------------------

@pytest.mark.parametrize("iterations", ITERATIONS)
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_scramp_accepts_kwires_proof_and_kwire_accepts_scramps_signature(scramp, mechanism, iterations):
    server = scramp_server(scramp, mechanism, "pencil", iterations)
    client = mechanism_for(mechanism, "alice", "pencil")
    server.set_client_first(client.initial().decode())
    server_first = server.get_server_first()
    assert f",i={iterations}" in server_first
    server.set_client_final(client.respond(server_first.encode()).decode())  # raises on a wrong proof
    assert client.respond(server.get_server_final().encode()) is None and client.done


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_wrong_password_is_refused_by_scramp(scramp, mechanism):
    server = scramp_server(scramp, mechanism, "pencil", 4096)
    client = mechanism_for(mechanism, "alice", "crayon")
    server.set_client_first(client.initial().decode())
    client_final = client.respond(server.get_server_first().encode())
    with pytest.raises(scramp.ScramException, match="invalid-proof|proof"):
        server.set_client_final(client_final.decode())
    # scramp's error message (e=invalid-proof, RFC 5802 server-error) is refused by the client by name
    with pytest.raises(SaslError, match="refused SCRAM authentication: invalid-proof"):
        client.respond(server.get_server_final().encode())


@pytest.mark.parametrize("iterations", [KAFKA_MIN_ITERATIONS - 1, KAFKA_MAX_ITERATIONS + 1])
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_iteration_counts_just_past_kafkas_bounds_are_refused(scramp, mechanism, iterations):
    server = scramp_server(scramp, mechanism, "pencil", 4096)
    client = mechanism_for(mechanism, "alice", "pencil")
    server.set_client_first(client.initial().decode())
    server_first = server.get_server_first().replace(",i=4096", f",i={iterations}")
    with pytest.raises(SaslError, match=f"iteration count '{iterations}' is outside 4096..16384"):
        client.respond(server_first.encode())


# --- a whole login over loopback -----------------------------------------------------------------

@pytest.mark.parametrize("iterations", ITERATIONS)
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_full_login_over_loopback(kio_broker, mechanism, iterations):
    from kwire.network.blocking import BlockingConnection
    from kwire.network.connection import State

    with kio_broker.ScramBroker(mechanism=mechanism, iterations=iterations) as broker:
        credentials = SaslCredentials(mechanism, "alice", "alice-secret")
        with BlockingConnection(kio_broker.LOOPBACK, broker.port, sasl=credentials, timeout=20) as conn:
            assert conn.protocol.state is State.READY
            assert conn.versions == {18: 4, 17: 1, 36: 2}
    assert broker.errors == [] and broker.authenticated == ["alice"]
    # ApiVersions, SaslHandshake, client-first and client-final: four replies, all encoded by kio
    assert len(broker.replies) == 4


@pytest.mark.parametrize("hash_name", ["sha256", "sha512"])
def test_a_scram_client_made_from_its_hash_name_asks_for_kafkas_mechanism(kio_broker, hash_name):
    """``Scram(hash_name=...)`` without a name: the handshake must name the mechanism as Kafka does
    (``ScramMechanism.mechanismName``: SCRAM-SHA-256, SCRAM-SHA-512), or the broker refuses it
    (kills ``sasl.xǁScramǁ__init____mutmut_9``: the name in lower case)."""
    from kwire.network.blocking import BlockingConnection
    from kwire.network.sasl import Scram

    mechanism = f"SCRAM-SHA-{hash_name[3:]}"
    client = Scram("alice", "alice-secret", hash_name=hash_name)
    with kio_broker.ScramBroker(mechanism=mechanism) as broker, \
            BlockingConnection(kio_broker.LOOPBACK, broker.port, sasl=client, timeout=20):
        pass
    assert broker.errors == [] and broker.authenticated == ["alice"] and client.done


def test_a_full_login_with_the_asyncio_adapter(kio_broker):
    from kwire.network.aio import connect

    async def login() -> dict[int, int]:
        conn = await connect(kio_broker.LOOPBACK, broker.port, timeout=20,
                             sasl=SaslCredentials("SCRAM-SHA-512", "alice", "alice-secret"))
        try:
            return dict(conn.versions)
        finally:
            await conn.close()

    with kio_broker.ScramBroker(mechanism="SCRAM-SHA-512", iterations=8192) as broker:
        assert asyncio.run(login()) == {18: 4, 17: 1, 36: 2}
    assert broker.errors == [] and broker.authenticated == ["alice"]


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_wrong_password_fails_the_login_with_kafkas_error(kio_broker, mechanism):
    from kwire.network.blocking import BlockingConnection
    from kwire.network.errors import ErrorCode, SaslAuthenticationFailedError

    with kio_broker.ScramBroker(mechanism=mechanism) as broker, \
            pytest.raises(SaslAuthenticationFailedError) as raised:
        BlockingConnection(kio_broker.LOOPBACK, broker.port, timeout=20,
                           sasl=SaslCredentials(mechanism, "alice", "not-the-password"))
    assert raised.value.code is ErrorCode.SASL_AUTHENTICATION_FAILED
    assert raised.value.error_message == kio_broker.kafka_auth_failed_message(mechanism)
    assert broker.errors == [] and broker.authenticated == []


def test_an_unknown_user_fails_the_login_like_a_wrong_password(kio_broker):
    from kwire.network.blocking import BlockingConnection
    from kwire.network.errors import SaslAuthenticationFailedError

    with kio_broker.ScramBroker() as broker, \
            pytest.raises(SaslAuthenticationFailedError, match="invalid credentials with SASL mechanism SCRAM-SHA-256"):
        BlockingConnection(kio_broker.LOOPBACK, broker.port, timeout=20,
                           sasl=SaslCredentials("SCRAM-SHA-256", "mallory", "alice-secret"))


def test_a_mechanism_the_broker_does_not_offer(kio_broker):
    from kwire.network.blocking import BlockingConnection
    from kwire.network.errors import UnsupportedSaslMechanismError

    with kio_broker.ScramBroker(mechanism="SCRAM-SHA-256", mechanisms_offered=("SCRAM-SHA-256",)) as broker, \
            pytest.raises(UnsupportedSaslMechanismError, match=r"offers \['SCRAM-SHA-256'\]"):
        BlockingConnection(kio_broker.LOOPBACK, broker.port, timeout=20,
                           sasl=SaslCredentials("SCRAM-SHA-512", "alice", "alice-secret"))


def _nonce_of(server_first: str) -> str:
    return server_first.split(",")[0][2:]


@pytest.mark.parametrize(("tamper", "why"), [
    # a nonce of the server's own that does not start with the client's
    (lambda first, client: first.replace(_nonce_of(first), "x" + _nonce_of(first)[1:]), "unrelated nonce"),
    # the client's nonce sent back with nothing added
    (lambda first, client: first.replace(_nonce_of(first), client), "nonce not extended"),
], ids=["unrelated", "not-extended"])
def test_a_server_nonce_that_does_not_extend_the_clients_is_refused(kio_broker, tamper, why):
    from kwire.network.blocking import BlockingConnection
    from kwire.network.sasl import Scram

    client = Scram("alice", "alice-secret", hash_name="sha256", name="SCRAM-SHA-256", nonce="kwireClientNonce")
    with kio_broker.ScramBroker(tamper_server_first=lambda first: tamper(first, "kwireClientNonce")) as broker, \
            pytest.raises(SaslError, match="server nonce does not extend the client's nonce"):
        BlockingConnection(kio_broker.LOOPBACK, broker.port, sasl=client, timeout=20)
    assert broker.errors == [] and broker.authenticated == [], why


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_server_that_does_not_know_the_password_is_refused(kio_broker, mechanism):
    from kwire.network.blocking import BlockingConnection

    # The server holds the right StoredKey (so it accepts the proof) but a ServerKey derived from
    # another password: its signature is wrong, and the client must not count the login as done.
    with kio_broker.ScramBroker(mechanism=mechanism, server_key_password="guessed") as broker, \
            pytest.raises(SaslError, match="server signature does not match"):
        BlockingConnection(kio_broker.LOOPBACK, broker.port, timeout=20,
                           sasl=SaslCredentials(mechanism, "alice", "alice-secret"))
    assert broker.authenticated == ["alice"]
