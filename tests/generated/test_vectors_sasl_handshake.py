"""Hand-worked byte vectors for SaslHandshake (API key 17), worked from the wire rules.

SaslHandshake is never flexible: strings carry an int16 length, arrays an int32 count. v0 and v1
have the same body (v1 only means that SASL tokens then travel in SaslAuthenticate requests).
"""
from __future__ import annotations

import pytest

from kwire.generated import SaslHandshakeRequest, SaslHandshakeResponse
from tests.generated.vectors import check, h


@pytest.mark.parametrize("version", [0, 1])
def test_sasl_handshake_request(version: int) -> None:
    # Mechanism "PLAIN": length 5, then P L A I N = 50 4c 41 49 4e
    check(SaslHandshakeRequest(mechanism="PLAIN"), version, h("0005 504c41494e"))


@pytest.mark.parametrize("version", [0, 1])
def test_sasl_handshake_response_ok(version: int) -> None:
    response = SaslHandshakeResponse(error_code=0, mechanisms=["PLAIN", "SCRAM-SHA-256"])
    wire = h(
        "0000",                              # ErrorCode 0
        "00000002",                          # Mechanisms: 2 strings
        "0005 504c41494e",                   #   "PLAIN"
        "000d 5343 52 41 4d 2d 53 48 41 2d 32 35 36",  # "SCRAM-SHA-256", 13 bytes
    )
    check(response, version, wire)


def test_sasl_handshake_response_unsupported_mechanism() -> None:
    # The broker refuses a mechanism with UNSUPPORTED_SASL_MECHANISM (33 = 0x21) and lists its own.
    response = SaslHandshakeResponse(error_code=33, mechanisms=["GSSAPI"])
    check(response, 1, h("0021", "00000001", "0006 475353415049"))
