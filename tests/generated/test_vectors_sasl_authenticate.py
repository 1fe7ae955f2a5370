"""Hand-worked byte vectors for SaslAuthenticate (API key 36), worked from the wire rules.

v0 and v1 are not flexible: bytes carry an int32 length, a nullable string an int16 length (-1
for null). v2 is flexible: compact lengths are n + 1 as unsigned varints (0 for null) and the
body ends with an empty tagged-field section (0x00). The token is the PLAIN mechanism's
"\\0alice\\0pw": 00 61 6c 69 63 65 00 70 77, 9 bytes.
"""
from __future__ import annotations

import pytest

from kwire.generated import SaslAuthenticateRequest, SaslAuthenticateResponse
from tests.generated.vectors import check, h

PLAIN_TOKEN = b"\x00alice\x00pw"


@pytest.mark.parametrize("version", [0, 1])
def test_sasl_authenticate_request_not_flexible(version: int) -> None:
    check(SaslAuthenticateRequest(auth_bytes=PLAIN_TOKEN), version,
          h("00000009", "00 616c696365 00 7077"))  # AuthBytes: int32 length 9, then the token


def test_sasl_authenticate_request_v2_flexible() -> None:
    check(SaslAuthenticateRequest(auth_bytes=PLAIN_TOKEN), 2,
          h("0a", "00 616c696365 00 7077", "00"))  # compact length 9 + 1, token, no tags


def test_sasl_authenticate_response_v0_success() -> None:
    response = SaslAuthenticateResponse(error_code=0, error_message=None, auth_bytes=b"")
    check(response, 0, h(
        "0000",       # ErrorCode 0
        "ffff",       # ErrorMessage null: int16 length -1
        "00000000",   # AuthBytes: empty, int32 length 0
    ))


def test_sasl_authenticate_response_v1_session_lifetime() -> None:
    # v1 adds SessionLifetimeMs: one hour = 3 600 000 ms = 0x36ee80
    response = SaslAuthenticateResponse(error_code=0, error_message=None, auth_bytes=b"",
                                        session_lifetime_ms=3_600_000)
    check(response, 1, h("0000", "ffff", "00000000", "00000000 0036ee80"))


def test_sasl_authenticate_response_v2_failure() -> None:
    # SASL_AUTHENTICATION_FAILED is error 58 = 0x3a; the message "bad" = 62 61 64
    response = SaslAuthenticateResponse(error_code=58, error_message="bad", auth_bytes=b"")
    check(response, 2, h(
        "003a",                 # ErrorCode 58
        "04 626164",            # ErrorMessage: compact string, length 3 + 1
        "01",                   # AuthBytes: compact, empty (0 + 1)
        "0000000000000000",     # SessionLifetimeMs 0
        "00",                   # no tagged fields
    ))


def test_sasl_authenticate_response_v2_null_message_is_zero_length() -> None:
    response = SaslAuthenticateResponse(error_code=0, error_message=None, auth_bytes=b"\x01\x02")
    check(response, 2, h("0000", "00", "03 0102", "0000000000000000", "00"))
