"""The records inside a magic 2 batch: the hot decode loop and the encoder.

Wire layout of one record (all varints zigzag)::

    length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
    keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
    headerCount varint | headerCount x (keyLength varint | UTF-8 key | valueLength varint | value)

:func:`read_records` is the one place where speed matters: it inlines the one- and two-byte
varint cases (nearly every length and delta in practice), slices keys and values straight out of
a ``bytes`` object, and checks every length against the end of its record before slicing.
"""
from __future__ import annotations

from kwire.wire.errors import CorruptRecordError, DecodeError, EncodeError
from kwire.records.record import Record
from kwire.wire.primitives import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from kwire.wire.varint import read_zigzag, zigzag

_NULL_LENGTH = zigzag(-1)


def read_records(
    data: bytes,
    pos: int,
    limit: int,
    count: int,
    base_offset: int,
    base_timestamp: int,
    report_base: int = 0,
) -> list[Record]:
    """Decode ``count`` records filling ``data[pos:limit]`` exactly.

    ``data`` must be ``bytes`` (slices of it are the keys and values). Errors carry
    ``offset = report_base + position in data`` so callers can point into their own buffer.
    """
    records: list[Record] = []
    append = records.append
    slow = read_zigzag
    new_record = Record
    rec_start = pos
    try:
        for _ in range(count):
            rec_start = pos
            # -- length (varint)
            b = data[pos]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                c = data[pos + 1]
                if c < 0x80:
                    b = (b & 0x7F) | (c << 7)
                    length = (b >> 1) ^ -(b & 1)
                    pos += 2
                else:
                    length, pos = slow(data, pos, limit, False, report_base)
            end = pos + length
            if length < 6 or end > limit:  # 6: the one-byte minimum of every field after it
                raise DecodeError(
                    f"record length {length} does not fit the {limit - pos} bytes left",
                    offset=report_base + rec_start,
                )
            attributes = data[pos]
            pos += 1
            # -- timestamp delta (varlong)
            b = data[pos]
            if b < 0x80:
                timestamp_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                c = data[pos + 1]
                if c < 0x80:
                    b = (b & 0x7F) | (c << 7)
                    timestamp_delta = (b >> 1) ^ -(b & 1)
                    pos += 2
                else:
                    timestamp_delta, pos = slow(data, pos, end, True, report_base)
            # -- offset delta (varint)
            b = data[pos]
            if b < 0x80:
                offset_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                c = data[pos + 1]
                if c < 0x80:
                    b = (b & 0x7F) | (c << 7)
                    offset_delta = (b >> 1) ^ -(b & 1)
                    pos += 2
                else:
                    offset_delta, pos = slow(data, pos, end, False, report_base)
            # -- key
            b = data[pos]
            if b < 0x80:
                size = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                c = data[pos + 1]
                if c < 0x80:
                    b = (b & 0x7F) | (c << 7)
                    size = (b >> 1) ^ -(b & 1)
                    pos += 2
                else:
                    size, pos = slow(data, pos, end, False, report_base)
            if size >= 0:
                stop = pos + size
                if stop > end:
                    raise _overrun("key", size, end - pos, report_base + pos)
                key = data[pos:stop]
                pos = stop
            elif size == -1:
                key = None
            else:
                raise _negative("key", size, report_base + pos)
            # -- value
            b = data[pos]
            if b < 0x80:
                size = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                c = data[pos + 1]
                if c < 0x80:
                    b = (b & 0x7F) | (c << 7)
                    size = (b >> 1) ^ -(b & 1)
                    pos += 2
                else:
                    size, pos = slow(data, pos, end, False, report_base)
            if size >= 0:
                stop = pos + size
                if stop > end:
                    raise _overrun("value", size, end - pos, report_base + pos)
                value = data[pos:stop]
                pos = stop
            elif size == -1:
                value = None
            else:
                raise _negative("value", size, report_base + pos)
            # -- headers
            b = data[pos]
            if b == 0:
                pos += 1
                headers = []
            else:
                count_pos = pos
                header_count, pos = slow(data, pos, end, False, report_base)
                headers = _read_headers(data, pos, end, header_count, report_base, count_pos)
                pos = end
            if pos != end:
                raise DecodeError(
                    f"record fields take {pos - rec_start} bytes, its length says {end - rec_start}",
                    offset=report_base + rec_start,
                )
            append(
                new_record(
                    base_offset + offset_delta,
                    base_timestamp + timestamp_delta,
                    key,
                    value,
                    headers,
                    offset_delta,
                    timestamp_delta,
                    attributes,
                )
            )
    except IndexError:
        raise DecodeError("record is truncated", offset=report_base + rec_start) from None
    if pos != limit:
        raise CorruptRecordError(
            f"{limit - pos} bytes left over after the batch's {count} records",
            offset=report_base + pos,
        )
    return records


def _read_headers(data: bytes, pos: int, end: int, count: int, report_base: int, count_pos: int) -> list:
    # Each header needs at least two bytes, which bounds a hostile count before the loop.
    if count < 0 or count * 2 > end - pos:
        raise DecodeError(f"header count {count} does not fit the record", offset=report_base + count_pos)
    headers: list[tuple[str, bytes | None]] = []
    for _ in range(count):
        size, pos = read_zigzag(data, pos, end, False, report_base)
        if size < 0:
            raise _negative("header key", size, report_base + pos)
        stop = pos + size
        if stop > end:
            raise _overrun("header key", size, end - pos, report_base + pos)
        try:
            name = data[pos:stop].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(f"header key is not UTF-8: {exc}", offset=report_base + pos) from None
        pos = stop
        size, pos = read_zigzag(data, pos, end, False, report_base)
        if size >= 0:
            stop = pos + size
            if stop > end:
                raise _overrun("header value", size, end - pos, report_base + pos)
            headers.append((name, data[pos:stop]))
            pos = stop
        elif size == -1:
            headers.append((name, None))
        else:
            raise _negative("header value", size, report_base + pos)
    if pos != end:
        raise DecodeError("record headers do not end where the record does", offset=report_base + pos)
    return headers


def _overrun(what: str, size: int, left: int, offset: int) -> DecodeError:
    return DecodeError(f"{what} length {size} exceeds the {left} bytes left in the record", offset=offset)


def _negative(what: str, size: int, offset: int) -> DecodeError:
    return DecodeError(f"{what} length {size} is negative", offset=offset)


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
