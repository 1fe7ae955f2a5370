"""Wire primitives shared by the generated codecs.

Generated code inlines the fixed-width work (precompiled ``struct.Struct`` objects); what is
here are the variable-length pieces: unsigned varints, strings, bytes, arrays of primitives and
tagged sections. Readers take ``(buf, pos)`` and return ``(value, new_pos)``; they check every
length against the bytes left *before* slicing or allocating, and raise :class:`DecodeError`
with the offset. Writers append to a ``bytearray``.
"""
from __future__ import annotations

import struct
from collections.abc import Callable, Sequence, Sized
from functools import partial
from typing import Any, TypeVar
from uuid import UUID

from .errors import DecodeError, EncodeError, join_path

# The readers that generated code calls in hot loops live in struct_base, which compiled builds
# compile together with the generated modules; they are the same functions here (generated code
# calls read_length and read_uuid as primitives.*).
from .struct_base import check_room as _check_room  # noqa: F401
from .struct_base import read_count, read_length, read_tag_count, read_tag_header, read_uuid  # noqa: F401

# Unsigned varints (at most 5 bytes and 32 bits, as Kafka's ByteUtils.readUnsignedVarint): kwire.wire.varint.
from .varint import read_uvarint, uvarint, uvarint_size  # noqa: F401  (re-exported)

MAX_STRING_BYTES = 0x7FFF  # Kafka refuses longer strings in both encodings

# The range of each integer type of the definition format, as Kafka's Java types hold it.
INT_RANGES: dict[str, tuple[int, int]] = {
    "int8": (-(1 << 7), (1 << 7) - 1), "int16": (-(1 << 15), (1 << 15) - 1), "uint16": (0, (1 << 16) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1), "uint32": (0, (1 << 32) - 1), "int64": (-(1 << 63), (1 << 63) - 1),
}
INT16_MAX = INT_RANGES["int16"][1]
INT32_MIN, INT32_MAX = INT_RANGES["int32"]
INT64_MIN, INT64_MAX = INT_RANGES["int64"]

_S_INT16 = struct.Struct(">h")
_S_INT32 = struct.Struct(">i")
_S_UINT32 = struct.Struct(">I")

pack_int16 = _S_INT16.pack
pack_int32 = _S_INT32.pack
unpack_int16 = _S_INT16.unpack_from
unpack_int32 = _S_INT32.unpack_from

_T = TypeVar("_T")


def non_null(value: _T | None, refusal: str) -> _T:
    """``value``, or EncodeError(``refusal``) for None: how writers off the hot path refuse a
    null where the field is not nullable (the writer's except names the field path)."""
    if value is None:
        raise EncodeError(refusal)
    return value


# ---------------------------------------------------------------------------------------------
# lengths and counts


def write_count(out: bytearray, n: int | None, compact: bool) -> None:
    """Write an array count; None writes the null marker."""
    if compact:
        out += uvarint(0 if n is None else n + 1)
    else:
        out += pack_int32(-1 if n is None else n)


def count_size(n: int | None, compact: bool) -> int:
    return uvarint_size(0 if n is None else n + 1) if compact else 4


# ---------------------------------------------------------------------------------------------
# strings


def read_string(buf: bytes, pos: int) -> tuple[str | None, int]:
    """Classic string: int16 length (-1 null) then UTF-8."""
    if pos + 2 > len(buf):
        raise DecodeError("truncated string length", offset=pos)
    (n,) = unpack_int16(buf, pos)
    pos += 2
    if n < 0:  # Kafka reads any negative length as null
        return None, pos
    end = _check_room(buf, pos, n, "string")
    return _utf8(buf, pos, end), end


def read_compact_string(buf: bytes, pos: int) -> tuple[str | None, int]:
    """Compact string: unsigned varint length+1 (0 null) then UTF-8."""
    n, pos = read_uvarint(buf, pos, len(buf))
    if n == 0:
        return None, pos
    n -= 1
    if n > MAX_STRING_BYTES:
        raise DecodeError(f"string length {n} exceeds Kafka's limit of {MAX_STRING_BYTES} bytes", offset=pos)
    end = _check_room(buf, pos, n, "string")
    return _utf8(buf, pos, end), end


def _utf8(buf: bytes, start: int, end: int) -> str:
    try:
        return str(buf[start:end], "utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF-8 in string: {exc.reason}", offset=start + exc.start) from None


def encode_string(value: str) -> bytes:
    try:
        data = value.encode("utf-8")
    except (AttributeError, UnicodeEncodeError) as exc:
        raise EncodeError(f"not a valid string: {exc}") from None
    if len(data) > MAX_STRING_BYTES:
        raise EncodeError(f"string of {len(data)} UTF-8 bytes exceeds Kafka's limit of {MAX_STRING_BYTES}")
    return data


def write_string(out: bytearray, value: str | None) -> None:
    if value is None:
        out += b"\xff\xff"
        return
    data = encode_string(value)
    out += pack_int16(len(data))
    out += data


def write_compact_string(out: bytearray, value: str | None) -> None:
    if value is None:
        out.append(0)
        return
    data = encode_string(value)
    out += uvarint(len(data) + 1)
    out += data


# ---------------------------------------------------------------------------------------------
# bytes and records


def read_bytes(buf: bytes, pos: int) -> tuple[bytes | None, int]:
    """Classic bytes: int32 length (-1 null)."""
    if pos + 4 > len(buf):
        raise DecodeError("truncated bytes length", offset=pos)
    (n,) = unpack_int32(buf, pos)
    pos += 4
    if n < 0:  # Kafka reads any negative length as null
        return None, pos
    end = _check_room(buf, pos, n, "bytes")
    return buf[pos:end], end


def read_compact_bytes(buf: bytes, pos: int) -> tuple[bytes | None, int]:
    n, pos = read_uvarint(buf, pos, len(buf))
    if n == 0:
        return None, pos
    end = _check_room(buf, pos, n - 1, "bytes")
    return buf[pos:end], end


def _non_null(read: Callable[[bytes, int], tuple[_T | None, int]],
              null: str) -> Callable[[bytes, int], tuple[_T, int]]:
    """``read`` for a field that must not be null: a null is a DecodeError at the value's start."""

    def read_non_null(buf: bytes, pos: int) -> tuple[_T, int]:
        value, end = read(buf, pos)
        if value is None:
            raise DecodeError(f"non-nullable {null}", offset=pos)
        return value, end

    return read_non_null


read_string_nn = _non_null(read_string, "string was null")
read_compact_string_nn = _non_null(read_compact_string, "string was null")
read_bytes_nn = _non_null(read_bytes, "bytes were null")
read_compact_bytes_nn = _non_null(read_compact_bytes, "bytes were null")


def write_records(out: bytearray, value: object, compact: bool) -> None:
    """Write a records field given as bytes, a RecordsView (its ``raw`` memoryview), or None."""
    if value is None:
        out += b"\x00" if compact else b"\xff\xff\xff\xff"
        return
    data = getattr(value, "raw", value)
    n = len(data)  # type: ignore[arg-type]
    out += uvarint(n + 1) if compact else pack_int32(n)
    out += data  # type: ignore[arg-type]


def records_size(value: Sized | None, compact: bool) -> int:
    if value is None:
        return 1 if compact else 4
    return (uvarint_size(len(value) + 1) if compact else 4) + len(value)


def write_bytes(out: bytearray, value: bytes | None) -> None:
    if value is None:
        out += b"\xff\xff\xff\xff"
        return
    out += pack_int32(len(value))
    out += value


def write_compact_bytes(out: bytearray, value: bytes | None) -> None:
    if value is None:
        out.append(0)
        return
    out += uvarint(len(value) + 1)
    out += value


# ---------------------------------------------------------------------------------------------
# uuid

_ZERO_UUID = UUID(int=0)


def uuid_bytes(value: UUID) -> bytes:
    try:
        return value.bytes
    except AttributeError:
        raise EncodeError(f"expected a uuid.UUID, got {type(value).__name__}") from None


# ---------------------------------------------------------------------------------------------
# arrays of fixed-width primitives, in one struct call

_ARRAY_FORMATS: dict[tuple[str, int], struct.Struct] = {}


def _array_struct(code: str, n: int) -> struct.Struct:
    key = (code, n)
    s = _ARRAY_FORMATS.get(key)
    if s is None:
        s = struct.Struct(f">{n}{code}")
        if len(_ARRAY_FORMATS) < 4096:
            _ARRAY_FORMATS[key] = s
    return s


# Unpackers/packers for short arrays of each fixed-width type, indexed by element count, so that
# generated code reads a small array with one call and no format string to build.
SMALL_ARRAY = 32
UNPACK_ARRAY = {code: tuple(struct.Struct(f">{n}{code}").unpack_from for n in range(SMALL_ARRAY))
                for code in ("?", "b", "h", "H", "i", "I", "q", "d")}
PACK_ARRAY = {code: tuple(struct.Struct(f">{n}{code}").pack for n in range(SMALL_ARRAY))
              for code in ("?", "b", "h", "H", "i", "I", "q", "d")}


def read_fixed_array(buf: bytes, pos: int, n: int, code: str, width: int) -> tuple[list, int]:
    end = pos + n * width
    if end > len(buf):
        raise DecodeError(f"array of {n} elements runs past the end of the buffer", offset=pos)
    return list(_array_struct(code, n).unpack_from(buf, pos)), end


def write_fixed_array(out: bytearray, values: Sequence, code: str) -> None:
    try:
        out += _array_struct(code, len(values)).pack(*values)
    except struct.error as exc:
        raise EncodeError(f"array element out of range: {exc}") from None


def read_nullable_fixed_array(buf: bytes, pos: int, code: str, width: int) -> tuple[list | None, int]:
    """A nullable compact array of fixed-width elements (count n + 1, 0 for null), read as
    generated code reads one inline: a short array with one precompiled struct. Generated code
    calls it for tagged fields (read at most once per struct), which repeated the inline read
    per field and version."""
    n = buf[pos] - 1
    if n == 0:  # empty: a count byte of 1
        return [], pos + 1
    end = pos + 1 + n * width
    if 0 < n < SMALL_ARRAY and end <= len(buf):  # the usual case: a short array
        return [*UNPACK_ARRAY[code][n](buf, pos + 1)], end
    n, pos = read_count(buf, pos, True)
    if n < 0:
        return None, pos
    return read_fixed_array(buf, pos, n, code, width)


def write_nullable_fixed_array(out: bytearray, values: Sequence | None, code: str) -> None:
    """The write :func:`read_nullable_fixed_array` reads: null, a one-byte count and one
    precompiled struct for a short array, else the runtime's count and elements."""
    if values is None:
        write_count(out, None, True)
    elif len(values) < SMALL_ARRAY:  # the usual case: a short array with a one-byte count
        out.append(len(values) + 1)
        out += PACK_ARRAY[code][len(values)](*values)
    else:
        write_count(out, len(values), True)
        write_fixed_array(out, values, code)


# ---------------------------------------------------------------------------------------------
# code off the hot path
#
# Off the hot path (kwire.generator.emit.plan.on_hot_path) one generated function serves every
# version of a struct in one encoding, taking the version (Kafka's own generated code does the
# same); and arrays of structs, strings or uuids are read, and arrays of structs written, with
# one call here instead of a loop of their own. The bytes and the errors are the same; an error
# inside an element names it (``topics[3].name``), the caller's failure handler the field.


def bind_versions(functions: tuple[Callable[..., Any] | None, ...]) -> tuple[Callable[..., Any] | None, ...]:
    """A class's table of readers or writers by version, from generated functions that take the
    version as their last argument: each entry with its version bound."""
    return tuple(None if function is None else partial(function, version=version)
                 for version, function in enumerate(functions))


def read_array(buf: bytes, pos: int, compact: bool, read_one: Callable[[bytes, int], tuple[Any, int]],
               container: Callable[[], list] = list) -> tuple[Any, int]:
    """An array that is not nullable (a null count is refused), each element read by
    ``read_one`` (a string or uuid reader) into a new ``container``."""
    n, pos = read_count(buf, pos, compact)
    if n < 0:
        raise DecodeError("non-nullable array was null", offset=pos)
    return _read_elements(buf, pos, n, read_one, container())


def read_nullable_array(buf: bytes, pos: int, compact: bool, read_one: Callable[[bytes, int], tuple[Any, int]],
                        container: Callable[[], list] = list) -> tuple[Any, int]:
    """An array that may be null (None), each element read by ``read_one``."""
    n, pos = read_count(buf, pos, compact)
    if n < 0:
        return None, pos
    return _read_elements(buf, pos, n, read_one, container())


def read_struct_array(buf: bytes, pos: int, compact: bool, read_one: Callable[..., tuple[Any, int]], version: int,
                      container: Callable[[], list] = list) -> tuple[Any, int]:
    """An array of structs that is not nullable, each element read by its struct's generated
    reader at ``version`` into a new ``container`` (a KeyedList for structs with map keys)."""
    return read_array(buf, pos, compact, partial(read_one, version=version), container)


def read_nullable_struct_array(buf: bytes, pos: int, compact: bool, read_one: Callable[..., tuple[Any, int]],
                               version: int, container: Callable[[], list] = list) -> tuple[Any, int]:
    """An array of structs that may be null (None)."""
    return read_nullable_array(buf, pos, compact, partial(read_one, version=version), container)


def _read_elements(buf: bytes, pos: int, n: int, read_one: Callable[[bytes, int], tuple[Any, int]],
                   items: list) -> tuple[list, int]:
    index = 0
    try:
        for index in range(n):  # noqa: B007 - the except handler below names the failing element by it
            item, pos = read_one(buf, pos)
            items.append(item)
    except DECODE_FAILURES as error:  # named as a generated reader names an element
        raise decode_failure(error, "[]", index, pos) from None
    return items, pos


def write_struct_array(out: bytearray, items: Sequence[Any] | None, compact: bool,
                       write_one: Callable[[Any, bytearray, int], None], version: int) -> None:
    """An array of structs, each written by its struct's generated writer at ``version``; None
    writes null (writers refuse it first where the array is not nullable: ``non_null``)."""
    if items is None:
        write_count(out, None, compact)
        return
    write_count(out, len(items), compact)
    index = 0
    try:
        for index, item in enumerate(items):  # noqa: B007 - the except handler below names the element by it
            write_one(item, out, version)
    except ENCODE_FAILURES as error:
        raise encode_failure(error, f"[{index}]") from None


# ---------------------------------------------------------------------------------------------
# tagged sections


def write_tagged(out: bytearray, known: list[tuple[int, bytes | bytearray]],
                 unknown: Sequence[tuple[int, bytes]]) -> None:
    """Write a tagged section: known and unknown fields merged in ascending tag order."""
    fields = known + list(unknown) if unknown else known
    if unknown:
        fields.sort(key=_tag_of)
    out += uvarint(len(fields))
    for tag, payload in fields:
        out += uvarint(tag)
        out += uvarint(len(payload))
        out += payload


def _tag_of(item: tuple[int, bytes | bytearray]) -> int:
    return item[0]


def read_unknown_tagged_fields(buf: bytes, pos: int) -> tuple[tuple[tuple[int, bytes], ...], int]:
    """A tagged section whose tags the struct version does not know, each kept as (tag, payload).

    Generated readers test for the usual empty section inline and call this for the rest.
    """
    count, pos = read_tag_count(buf, pos)
    unknown = []
    for _ in range(count):
        tag, end, pos = read_tag_header(buf, pos)
        unknown.append((tag, buf[pos:end]))
        pos = end
    return tuple(unknown), pos


# ---------------------------------------------------------------------------------------------
# turning low-level failures into kwire errors that name the field

DECODE_FAILURES = (ValueError, IndexError, struct.error)
ENCODE_FAILURES = (ValueError, TypeError, AttributeError, OverflowError, struct.error)


def _join(label: str, index: int, inner: str) -> str:
    """``label`` with its ``[]`` filled by the element ``index`` (when >= 0), then ``inner``."""
    return join_path(label.replace("[]", f"[{index}]" if index >= 0 else ""), inner)


def decode_failure(exc: BaseException, label: str, index: int, pos: int) -> DecodeError:
    """Re-raise ``exc`` as a DecodeError whose path starts with the failing field: ``label``,
    whose ``[]`` the element ``index`` fills (-1: no element, or a reader that names none)."""
    if isinstance(exc, DecodeError):
        err = DecodeError(exc.reason, path=_join(label, index, exc.path),
                          offset=exc.offset if exc.offset is not None else pos)
        err.__class__ = type(exc)
        return err
    if isinstance(exc, (IndexError, struct.error)):
        return DecodeError("input ends in the middle of a field", path=_join(label, index, ""), offset=pos)
    return DecodeError(f"invalid data: {exc}", path=_join(label, index, ""), offset=pos)


def encode_failure(exc: BaseException, label: str) -> EncodeError:
    if isinstance(exc, EncodeError):
        return EncodeError(exc.reason, path=join_path(label, exc.path))
    return EncodeError(f"cannot encode value: {exc}", path=label)
