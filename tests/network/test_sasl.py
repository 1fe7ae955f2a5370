"""SASL mechanisms against the RFCs' own test vectors (not kwire's output).

RFC 7677 section 3 (SCRAM-SHA-256) and RFC 5802 section 5 (SCRAM-SHA-1, the same math with SHA-1):
user "user", password "pencil", the client nonce, the server's first message, and the expected
client-final and server-final messages, copied from the RFC text.
"""
from __future__ import annotations

import pytest

from kwire.network.sasl import Plain, SaslError, Scram, mechanism_for
from kwire.wire.errors import KwireError

RFC7677 = dict(
    nonce="rOprNGfwEbeRWgbNEkqO",
    client_first=b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
    server_first=b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
    client_final=b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                 b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
    server_final=b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
    hash_name="sha256",
)
RFC5802 = dict(
    nonce="fyko+d2lbbFgONRv9qkxdawL",
    client_first=b"n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL",
    server_first=b"r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
    client_final=b"c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
    server_final=b"v=rmF9pqV8S7suAoZWja4dJRkFsKQ=",
    hash_name="sha1",
)


@pytest.mark.parametrize("vector", [RFC7677, RFC5802], ids=["rfc7677-sha256", "rfc5802-sha1"])
def test_scram_client_proof_and_server_check_match_the_rfc(vector):
    scram = Scram("user", "pencil", hash_name=vector["hash_name"], nonce=vector["nonce"])
    assert scram.initial() == vector["client_first"]
    assert scram.respond(vector["server_first"]) == vector["client_final"]
    assert scram.respond(vector["server_final"]) is None and scram.done


def test_a_wrong_server_signature_is_refused():
    scram = Scram("user", "pencil", nonce=RFC7677["nonce"])
    scram.initial()
    scram.respond(RFC7677["server_first"])
    with pytest.raises(SaslError, match="does not match"):
        scram.respond(b"v=" + b"A" * 44)


@pytest.mark.parametrize(("server_first", "reason"), [
    (b"r=someoneelse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", "nonce"),
    (b"r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", "nonce"),
    (b"r=rOprNGfwEbeRWgbNEkqOx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=100000000", "iteration"),
    (b"r=rOprNGfwEbeRWgbNEkqOx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=12", "iteration"),
    (b"r=rOprNGfwEbeRWgbNEkqOx,s=***,i=4096", "base64"),
    (b"r=rOprNGfwEbeRWgbNEkqOx,i=4096", "lacks"),
    (b"e=invalid-proof", "refused"),
    (b"\xff\xfe", "UTF-8"),
    (b"garbage", "malformed"),
])
def test_a_bad_server_first_message_is_a_sasl_error(server_first, reason):
    scram = Scram("user", "pencil", nonce=RFC7677["nonce"])
    scram.initial()
    with pytest.raises(SaslError, match=reason):
        scram.respond(server_first)


def test_user_names_are_escaped():
    assert Scram("a=b,c", "p", nonce="n").initial() == b"n,,n=a=3Db=2Cc,r=n"


def test_plain_is_one_message():
    plain = Plain("alice", "secret")
    assert plain.initial() == b"\0alice\0secret"
    assert plain.respond(b"") is None and plain.done


def test_mechanisms_by_name():
    assert mechanism_for("SCRAM-SHA-512", "u", "p").name == "SCRAM-SHA-512"
    assert mechanism_for("SCRAM-SHA-256", "u", "p").name == "SCRAM-SHA-256"
    with pytest.raises(KwireError, match="unsupported SASL mechanism"):
        mechanism_for("GSSAPI", "u", "p")
