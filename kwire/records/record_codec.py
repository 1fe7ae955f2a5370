"""The records inside a magic 2 batch: the hot decode loop and the encoder.

Wire layout of one record (all varints zigzag)::

    length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
    keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
    headerCount varint | headerCount x (keyLength varint | UTF-8 key | valueLength varint | value)

:func:`read_records` is the one place where speed matters: it inlines the one- and two-byte
varint cases (nearly every length and delta in practice), slices keys and values straight out of
a ``bytes`` object, and checks every length against the end of its record before slicing. It is
emitted, with the column decoder (:mod:`kwire.records.column_decoder`), from the one description
of this layout in ``generator/records/layout.py`` by ``python -m kwire.generator.records.decoders``
into the wholly generated :mod:`kwire.records._generated_record_codec`: edit those, not it.
"""
from __future__ import annotations

from kwire.records._generated_record_codec import read_records
from kwire.wire.errors import EncodeError
from kwire.wire.primitives import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from kwire.wire.varint import zigzag

__all__ = ["encode_record", "read_records"]

_NULL_LENGTH = zigzag(-1)


# ------------------------------------------------------------------------------------ encode


def encode_record(
    offset_delta: int,
    timestamp_delta: int,
    key,
    value,
    headers,
    attributes: int = 0,
) -> bytes:
    """One record in wire form, length prefix included. Raises EncodeError on bad values."""
    zz = zigzag
    if not INT32_MIN <= offset_delta <= INT32_MAX:
        raise EncodeError(f"offset delta {offset_delta} is out of int32 range", path="offset_delta")
    if not INT64_MIN <= timestamp_delta <= INT64_MAX:
        raise EncodeError(
            f"timestamp delta {timestamp_delta} is out of int64 range", path="timestamp_delta"
        )
    parts = [bytes((attributes & 0xFF,)), zz(timestamp_delta), zz(offset_delta)]
    _append_bytes(parts, key, "key")
    _append_bytes(parts, value, "value")
    parts.append(zz(len(headers)))
    for index, header in enumerate(headers):
        try:
            name, header_value = header
        except (TypeError, ValueError):
            raise EncodeError("a header must be a (str, bytes | None) pair", path=f"headers[{index}]") from None
        if not isinstance(name, str):
            raise EncodeError("header key must be a str", path=f"headers[{index}]")
        try:
            encoded_name = name.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise EncodeError(f"header key is not encodable as UTF-8: {exc}", path=f"headers[{index}]") from None
        parts.append(zz(len(encoded_name)))
        parts.append(encoded_name)
        _append_bytes(parts, header_value, f"headers[{index}]")
    body = b"".join(parts)
    return zz(len(body)) + body


def _append_bytes(parts: list, data, what: str) -> None:
    if data is None:
        parts.append(_NULL_LENGTH)
        return
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise EncodeError(f"{what} must be bytes or None, not {type(data).__name__}", path=what)
    data = bytes(data)
    if len(data) > INT32_MAX:
        raise EncodeError(f"{what} is longer than an int32 length allows", path=what)
    parts.append(zigzag(len(data)))
    parts.append(data)
