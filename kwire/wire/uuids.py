"""Kafka's text form of a uuid: ``org.apache.kafka.common.Uuid`` ``toString``/``fromString``.

The text is the uuid's 16 bytes in URL-safe base64 without padding (22 characters). Reading is as
strict as ``Uuid.fromString``, which hands the text to the JDK's ``Base64.getUrlDecoder()``: at most
24 characters; only ``A-Z a-z 0-9 - _``; padding optional but, when present, exactly ``==`` at the
end; unused low bits of the last character ignored, as the JDK does; and exactly 16 bytes decoded.
A refusal is a :class:`UuidTextError` carrying the JDK's or Kafka's own message (checked against
Kafka's class: tests/data/kafka-uuid). The one codec: JSON forms, definitions' defaults,
``--initial-controllers`` and the command line all read uuids here.
"""
from __future__ import annotations

import base64
from uuid import UUID

from kwire.wire.errors import KwireError

# the URL-safe alphabet in the order of its values (RFC 4648, table 2)
_SEXTET = {symbol: value for value, symbol in
           enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")}


class UuidTextError(KwireError, ValueError):
    """Text ``Uuid.fromString`` refuses; the message is the one Kafka's code gives. ``wrong_length``:
    the text is too long, or base64url of other than 16 bytes (rather than not base64url at all)."""

    def __init__(self, message: str, *, wrong_length: bool = False) -> None:
        super().__init__(message)
        self.wrong_length = wrong_length


def uuid_to_text(value: UUID) -> str:
    """``Uuid.toString()``: 22 characters of URL-safe base64, no padding."""
    return base64.urlsafe_b64encode(value.bytes).rstrip(b"=").decode("ascii")


def uuid_from_text(text: str) -> UUID:
    """``Uuid.fromString(text)``, refusing what it refuses (with its message)."""
    if not isinstance(text, str):  # (a JSON form's value may be anything: a list, a number)
        raise UuidTextError(f"expected a string, got {type(text).__name__}")
    if len(text.encode("utf-16-le")) // 2 > 24:  # Java counts UTF-16 units
        raise UuidTextError(f"Input string with prefix `{_java_prefix(text)}` is too long to be decoded as a "
                            f"base64 UUID", wrong_length=True)
    raw = url_base64_decode(text.encode("latin-1", errors="replace"))
    if len(raw) != 16:
        raise UuidTextError(f"Input string `{text}` decoded as {len(raw)} bytes, which is not equal to the expected "
                            f"16 bytes of a base64-encoded UUID", wrong_length=True)
    return UUID(bytes=raw)


def _java_prefix(text: str) -> str:
    """``text.substring(0, 24)`` in UTF-16 units (a split surrogate pair prints as U+FFFD)."""
    return text.encode("utf-16-le", errors="surrogatepass")[:48].decode("utf-16-le", errors="replace")


def url_base64_decode(src: bytes) -> bytes:
    """``Base64.getUrlDecoder().decode(String)`` of JDK 17, any length (``decodedOutLength`` then ``decode0``),
    ``src`` being the text's ISO-8859-1 bytes (what the JDK decodes: unmappable characters are ``?``)."""
    if len(src) == 1:
        raise UuidTextError("Input byte[] should at least have 2 bytes for base64 bytes")
    out = bytearray()
    bits, shift, at = 0, 18, 0
    while at < len(src):
        byte = src[at]
        at += 1
        if byte == ord("="):
            # "=" with nothing pending, or "xx=" not followed by a second "=": a broken last unit
            if shift == 18 or (shift == 6 and (at == len(src) or src[(at := at + 1) - 1] != ord("="))):
                raise UuidTextError("Input byte array has wrong 4-byte ending unit")
            break
        if byte not in _SEXTET:
            raise UuidTextError(f"Illegal base64 character {_java_hex(byte)}")
        bits |= _SEXTET[byte] << shift
        shift -= 6
        if shift < 0:
            out += bytes(((bits >> 16) & 0xFF, (bits >> 8) & 0xFF, bits & 0xFF))
            bits, shift = 0, 18
    if shift == 6:
        out.append((bits >> 16) & 0xFF)
    elif shift == 0:
        out += bytes(((bits >> 16) & 0xFF, (bits >> 8) & 0xFF))
    elif shift == 12:
        raise UuidTextError("Last unit does not have enough valid bits")
    if at < len(src):
        raise UuidTextError(f"Input byte array has incorrect ending byte at {at}")
    return bytes(out)


def _java_hex(byte: int) -> str:
    """``Integer.toString(b, 16)`` of a Java (signed) byte: ``2b``, ``-17``."""
    signed = byte - 256 if byte > 127 else byte
    return f"-{-signed:x}" if signed < 0 else f"{signed:x}"

