"""Reference codec: `construct` structures interpreted straight from the model.

Slow and declarative on purpose. It shares nothing with the emitter or its templates, so the
generated codecs can be checked against it in property tests, and it is the naive baseline in
benchmarks. Every version question is settled while the structure is built, so one structure
describes exactly one (message, version) pair.

Values use the "plain form": a dict keyed by each present field's ``attr_name`` (bool, int,
float, str, bytes, uuid.UUID, list, nested dicts, None for null), plus, in flexible versions,
``"_unknown_tagged_fields"``: a list of ``(tag, raw payload bytes)`` pairs.
"""
from __future__ import annotations

import io
import uuid
from collections.abc import Mapping
from functools import cache
from typing import Any

from tests.optional import need_module

c = need_module("construct")  # the oracle itself: without it, every module importing this one skips

from kwire.generator.definitions.model import Field, Message, Struct
from kwire.wire.errors import DecodeError, EncodeError, UnsupportedVersionError
from kwire.wire.primitives import MAX_STRING_BYTES

UNKNOWN_TAGGED = "_unknown_tagged_fields"

# Kafka refuses strings longer than this in either encoding.
# Unsigned varints carry a 32-bit value in at most 5 bytes.
MAX_UVARINT_BYTES = 5
MAX_UVARINT = 0xFFFFFFFF

# Names of helper members inside our own small structs. "$" never occurs in a field's
# attr_name, so these cannot collide with real fields and are easy to drop from error paths.
_COUNT, _BODY, _MARKER, _TAGGED, _TAG, _PAYLOAD = "$count", "$body", "$marker", "$tagged", "$tag", "$payload"


class InvalidWire(c.ConstructError):
    """Bytes or a value that break one of Kafka's wire rules (mapped to Decode/EncodeError)."""


class NotInVersion(c.ConstructError):
    """A value the version being written cannot carry (mapped to UnsupportedVersionError)."""


# --- primitives ------------------------------------------------------------------------------

class _UnsignedVarInt(c.Adapter):
    """construct's VarInt (LEB128, Kafka's unsigned varint) held to Kafka's 5-byte, 32-bit limit."""

    def _decode(self, obj, context, path):
        if obj["$end"] - obj["$start"] > MAX_UVARINT_BYTES:
            raise InvalidWire(f"unsigned varint longer than {MAX_UVARINT_BYTES} bytes", path=path)
        if obj["$value"] > MAX_UVARINT:
            raise InvalidWire(f"unsigned varint {obj['$value']} does not fit in 32 bits", path=path)
        return obj["$value"]

    def _encode(self, obj, context, path):
        if not isinstance(obj, int) or isinstance(obj, bool) or not 0 <= obj <= MAX_UVARINT:
            raise InvalidWire(f"unsigned varint out of range: {obj!r}", path=path)
        return {"$value": obj}


UVARINT = _UnsignedVarInt(c.Struct("$start" / c.Tell, "$value" / c.VarInt, "$end" / c.Tell))


class _Uuid(c.Adapter):
    def _decode(self, obj, context, path):
        return uuid.UUID(bytes=obj)

    def _encode(self, obj, context, path):
        if not isinstance(obj, uuid.UUID):
            raise InvalidWire(f"expected a uuid.UUID, got {type(obj).__name__}", path=path)
        return obj.bytes


FIXED: dict[str, c.Construct] = {
    "bool": c.Flag,  # any non-zero byte reads as true
    "int8": c.Int8sb,
    "int16": c.Int16sb,
    "uint16": c.Int16ub,
    "int32": c.Int32sb,
    "uint32": c.Int32ub,
    "int64": c.Int64sb,
    "float64": c.Float64b,
    "uuid": _Uuid(c.Bytes(16)),
}


# --- lengths, nulls, strings, bytes and arrays ------------------------------------------------

def _remaining(context) -> int | None:
    stream = context.get("_io")
    if stream is None:
        return None
    here = stream.tell()
    end = stream.seek(0, io.SEEK_END)
    stream.seek(here)
    return end - here


class _Count(c.Adapter):
    """A length or element count (negative = null) that cannot promise more than the input holds.

    Checking against the remaining bytes bounds every loop and allocation by the input size,
    as Kafka's readers do for collections.
    """

    def __init__(self, subcon, max_count: int | None):
        super().__init__(subcon)
        self.max_count = max_count

    def _decode(self, obj, context, path):
        if obj >= 0:
            if self.max_count is not None and obj > self.max_count:
                raise InvalidWire(f"length {obj} is over the limit {self.max_count}", path=path)
            left = _remaining(context)
            if left is not None and obj > left:
                raise InvalidWire(f"length {obj} but only {left} bytes remain", path=path)
        return obj

    def _encode(self, obj, context, path):
        if self.max_count is not None and obj > self.max_count:
            raise InvalidWire(f"length {obj} is over the limit {self.max_count}", path=path)
        return obj


def _length_prefix(compact: bool, classic: c.Construct) -> c.Construct:
    """Classic: a signed int where -1 is null. Compact: unsigned varint of n+1 where 0 is null."""
    if compact:
        return c.ExprAdapter(UVARINT, decoder=lambda raw, ctx: raw - 1, encoder=lambda n, ctx: n + 1)
    return classic


class _Nullable(c.Adapter):
    """Maps {$count, $body} to None (negative count) or the body, and back."""

    def __init__(self, subcon, nullable: bool, sequence_types: tuple[type, ...]):
        super().__init__(subcon)
        self.nullable = nullable
        self.sequence_types = sequence_types

    def _decode(self, obj, context, path):
        if obj[_COUNT] < 0:
            if not self.nullable:
                raise InvalidWire("non-nullable field is null", path=path)
            return None
        return obj[_BODY]

    def _encode(self, obj, context, path):
        if obj is None:
            if not self.nullable:
                raise InvalidWire("null given for a non-nullable field", path=path)
            return {_COUNT: -1, _BODY: None}
        if not isinstance(obj, self.sequence_types):
            raise InvalidWire(f"unexpected {type(obj).__name__} value", path=path)
        return {_COUNT: len(obj), _BODY: obj}


def _counted(prefix: c.Construct, body, *, nullable: bool, max_count: int | None,
             sequence_types: tuple[type, ...]) -> c.Construct:
    """A count prefix followed by ``body(count)`` unless the count says null."""
    return _Nullable(
        c.Struct(
            _COUNT / _Count(prefix, max_count),
            _BODY / c.If(c.this[_COUNT] >= 0, body(c.this[_COUNT])),
        ),
        nullable,
        sequence_types,
    )


class _Utf8(c.Adapter):
    def _decode(self, obj, context, path):
        if obj is None:
            return None
        try:
            return obj.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidWire(f"string is not valid UTF-8: {exc.reason}", path=path) from None

    def _encode(self, obj, context, path):
        if obj is None:
            return None
        if not isinstance(obj, str):
            raise InvalidWire(f"expected a str, got {type(obj).__name__}", path=path)
        return obj.encode("utf-8")


class _AsBytes(c.Adapter):
    """Accepts any bytes-like value when building; parses to bytes."""

    def _decode(self, obj, context, path):
        return obj

    def _encode(self, obj, context, path):
        return bytes(obj)


class _AsList(c.Adapter):
    def _decode(self, obj, context, path):
        return list(obj)

    def _encode(self, obj, context, path):
        return list(obj)


_BYTES_LIKE = (bytes, bytearray, memoryview)


def string_con(compact: bool, nullable: bool) -> c.Construct:
    return _Utf8(_counted(_length_prefix(compact, c.Int16sb), c.Bytes, nullable=nullable,
                          max_count=MAX_STRING_BYTES, sequence_types=_BYTES_LIKE))


def bytes_con(compact: bool, nullable: bool) -> c.Construct:
    return _counted(_length_prefix(compact, c.Int32sb), lambda n: _AsBytes(c.Bytes(n)), nullable=nullable,
                    max_count=None, sequence_types=_BYTES_LIKE)


def array_con(compact: bool, nullable: bool, element: c.Construct) -> c.Construct:
    return _counted(_length_prefix(compact, c.Int32sb), lambda n: _AsList(c.Array(n, element)),
                    nullable=nullable, max_count=None, sequence_types=(list, tuple))


class _Presence(c.Adapter):
    """A nullable struct behind a marker: {$marker, $body} <-> None or the struct's value."""

    def __init__(self, subcon, is_null, null_marker: int):
        super().__init__(subcon)
        self.is_null = is_null
        self.null_marker = null_marker

    def _decode(self, obj, context, path):
        return None if self.is_null(obj[_MARKER]) else obj[_BODY]

    def _encode(self, obj, context, path):
        if obj is None:
            return {_MARKER: self.null_marker, _BODY: None}
        return {_MARKER: 1, _BODY: obj}


def nullable_struct_con(body: c.Construct, tagged: bool) -> c.Construct:
    """Untagged: int8 marker, negative = null. Tagged: unsigned varint marker, 0 = null (Kafka's readers)."""
    if tagged:
        return _Presence(c.Struct(_MARKER / UVARINT, _BODY / c.If(c.this[_MARKER] > 0, body)),
                         is_null=lambda m: m == 0, null_marker=0)
    return _Presence(c.Struct(_MARKER / c.Int8sb, _BODY / c.If(c.this[_MARKER] >= 0, body)),
                     is_null=lambda m: m < 0, null_marker=-1)


# --- defaults ------------------------------------------------------------------------------------

def default_plain(message_or_struct: Message | Struct, version: int, *, flexible: bool | None = None) -> dict:
    """The plain value of a freshly constructed message or struct at ``version``.

    A bare Struct does not know whether ``version`` is flexible, so pass ``flexible`` for it.
    """
    if isinstance(message_or_struct, Message):
        struct = message_or_struct.struct
        flexible = message_or_struct.flexible_at(version)
    else:
        struct = message_or_struct
        if flexible is None:
            raise TypeError("default_plain(struct, version) needs flexible=True/False")
    value = {f.attr_name: field_default(f, version, flexible) for f in struct.fields_at(version)}
    if flexible:
        value[UNKNOWN_TAGGED] = []
    return value


def field_default(f: Field, version: int, flexible: bool) -> Any:
    if f.type.is_struct:
        return None if f.has_null_default else default_plain(f.struct, version, flexible=flexible)
    return f.default_value()


def is_default(f: Field, value: Any) -> bool:
    """Whether ``value`` equals the field's default, in Kafka's sense (used for tags and dropped fields)."""
    if f.type.is_struct:
        if f.has_null_default:
            return value is None
        return value is not None and _struct_is_default(f.struct, value)
    default = f.default_value()
    if default is None:
        return value is None
    if isinstance(default, list):
        return isinstance(value, (list, tuple)) and len(value) == 0
    if isinstance(default, bool):
        return value is default
    if isinstance(default, (int, float)):
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value == default
    return value == default


def _struct_is_default(struct: Struct, value: Any) -> bool:
    """A struct value is default when every key it carries holds its field's default."""
    if not isinstance(value, Mapping):
        return False
    by_attr = {f.attr_name: f for f in struct.fields}
    for key, item in value.items():
        if key == UNKNOWN_TAGGED:
            if item:
                return False
        elif key not in by_attr or not is_default(by_attr[key], item):
            return False
    return True


# --- structs and tagged sections -------------------------------------------------------------

def _exactly(payload: c.Construct) -> c.Construct:
    """A tagged payload must use up exactly the size its header announced."""
    return c.FocusedSeq("$value", "$value" / payload, c.Terminated)


def tagged_section_con(known: dict[int, c.Construct]) -> c.Construct:
    """count, then (tag, size, payload) per field; unknown tags keep their raw payload bytes."""
    entry = c.Struct(
        _TAG / UVARINT,
        _PAYLOAD / c.Prefixed(UVARINT, c.Switch(c.this[_TAG], {tag: _exactly(con) for tag, con in known.items()},
                                                default=c.GreedyBytes)),
    )
    return _counted(UVARINT, lambda n: _AsList(c.Array(n, entry)), nullable=False, max_count=None,
                    sequence_types=(list, tuple))


class _StructValue(c.Adapter):
    """Converts between the plain form and the raw struct: merges the tagged section into the
    fields when parsing; when building, checks the keys, drops or refuses fields the version
    lacks, and writes tagged fields only when they differ from their default."""

    def __init__(self, subcon, struct: Struct, version: int, flexible: bool):
        super().__init__(subcon)
        self.struct = struct
        self.version = version
        self.flexible = flexible
        self.present = struct.fields_at(version)
        self.untagged = struct.untagged_fields_at(version)
        self.tagged = struct.tagged_fields_at(version)
        self.by_tag = {f.tag: f for f in self.tagged}
        self.by_attr = {f.attr_name: f for f in struct.fields}

    def _decode(self, obj, context, path):
        value = {}
        for f in self.present:
            value[f.attr_name] = obj[f.attr_name] if f in self.untagged else field_default(f, self.version, True)
        if not self.flexible:
            return value
        unknown = []
        for entry in obj[_TAGGED]:
            f = self.by_tag.get(entry[_TAG])
            if f is None:
                unknown.append((entry[_TAG], entry[_PAYLOAD]))
            else:
                value[f.attr_name] = entry[_PAYLOAD]
        value[UNKNOWN_TAGGED] = unknown
        return value

    def _encode(self, obj, context, path):
        if not isinstance(obj, Mapping):
            raise InvalidWire(f"{self.struct.name} expects a dict, got {type(obj).__name__}", path=path)
        self._check_keys(obj, path)
        raw = {f.attr_name: obj[f.attr_name] for f in self.untagged}
        if self.flexible:
            entries = [(f.tag, obj[f.attr_name]) for f in self.tagged if not is_default(f, obj[f.attr_name])]
            entries += self._unknown_entries(obj.get(UNKNOWN_TAGGED) or [], path)
            entries.sort(key=lambda entry: entry[0])
            raw[_TAGGED] = [{_TAG: tag, _PAYLOAD: payload} for tag, payload in entries]
        elif obj.get(UNKNOWN_TAGGED):
            raise NotInVersion(f"version {self.version} of {self.struct.name} has no tagged fields", path=path)
        return raw

    def _check_keys(self, obj: Mapping, path: str) -> None:
        present = [f.attr_name for f in self.present]
        for key, item in obj.items():
            if key == UNKNOWN_TAGGED or key in present:
                continue
            f = self.by_attr.get(key)
            if f is None:
                raise InvalidWire(f"{self.struct.name} has no field {key!r}", path=path)
            if not f.ignorable and not is_default(f, item):
                raise NotInVersion(f"{self.struct.name}.{key} is not default but version {self.version} lacks it",
                                   path=path)
        missing = [name for name in present if name not in obj]
        if missing:
            raise InvalidWire(f"{self.struct.name} value lacks {', '.join(missing)}", path=path)

    def _unknown_entries(self, unknown, path: str) -> list[tuple[int, bytes]]:
        if not isinstance(unknown, (list, tuple)):
            raise InvalidWire(f"{UNKNOWN_TAGGED} must be a list of (tag, bytes) pairs", path=path)
        entries, seen = [], set()
        for item in unknown:
            if not (isinstance(item, (tuple, list)) and len(item) == 2):
                raise InvalidWire(f"unknown tagged fields are (tag, bytes) pairs, got {item!r}", path=path)
            tag, payload = item
            if not isinstance(tag, int) or isinstance(tag, bool) or not 0 <= tag <= MAX_UVARINT:
                raise InvalidWire(f"invalid unknown tag {tag!r}", path=path)
            if not isinstance(payload, _BYTES_LIKE):
                raise InvalidWire(f"unknown tag {tag} payload must be bytes", path=path)
            if tag in self.by_tag or tag in seen:
                raise InvalidWire(f"tag {tag} is used twice", path=path)
            seen.add(tag)
            entries.append((tag, bytes(payload)))
        return entries


class _Builder:
    """Builds the constructs of one message at one version (nested structs memoised by name)."""

    def __init__(self, message: Message, version: int):
        self.message = message
        self.version = version
        self.flexible = message.flexible_at(version)
        self.structs: dict[str, c.Construct] = {}

    def struct(self, struct: Struct) -> c.Construct:
        if struct.name not in self.structs:
            v = self.version
            members = [f.attr_name / self.field(f, tagged=False) for f in struct.untagged_fields_at(v)]
            if self.flexible:
                known = {f.tag: self.field(f, tagged=True) for f in struct.tagged_fields_at(v)}
                members.append(_TAGGED / tagged_section_con(known))
            self.structs[struct.name] = _StructValue(c.Struct(*members), struct, v, self.flexible)
        return self.structs[struct.name]

    def field(self, f: Field, tagged: bool) -> c.Construct:
        v, ftype = self.version, f.type
        nullable = f.nullable_in(v)
        if ftype.is_array:
            return array_con(self.flexible, nullable, self.element(f, ftype.element))
        if ftype.is_struct:
            body = self.struct(f.struct)
            return nullable_struct_con(body, tagged) if nullable else body
        return self.primitive(f, ftype.name, nullable)

    def element(self, f: Field, element) -> c.Construct:
        if element.is_struct:
            return self.struct(f.struct)
        return self.primitive(f, element.name, nullable=False)  # array elements are never null

    def primitive(self, f: Field, name: str, nullable: bool) -> c.Construct:
        if name in FIXED:
            return FIXED[name]
        compact = self.message.string_flexible_at(f, self.version)
        if name == "string":
            return string_con(compact, nullable)
        if name in ("bytes", "records"):
            return bytes_con(compact, nullable)
        raise ValueError(f"no construct for type {name}")


@cache
def reference_struct(message: Message, version: int) -> c.Construct:
    """The construct structure of ``message`` at ``version`` (parses to / builds from the plain form)."""
    if version not in message.valid_versions:
        raise UnsupportedVersionError(f"{message.name} has no version {version} (valid: {message.valid_versions})")
    return _Builder(message, version).struct(message.struct)


# --- conveniences that speak kwire's errors ---------------------------------------------------

def _reason_and_path(exc: c.ConstructError) -> tuple[str, str]:
    text = str(exc)
    reason = text.split("\n", 1)[1] if text.startswith("Error in path") and "\n" in text else text
    parts = (exc.path or "").split(" -> ")
    path = ".".join("tagged_fields" if p == _TAGGED else p for p in parts[1:] if p and (p == _TAGGED or p[0] != "$"))
    return reason, path


def reference_decode(message: Message, version: int, data: bytes) -> dict:
    """Parse ``data`` (which must be consumed to the last byte) into the plain form."""
    con = reference_struct(message, version)
    stream = io.BytesIO(bytes(data))
    try:
        value = con.parse_stream(stream)
    except c.ConstructError as exc:
        reason, path = _reason_and_path(exc)
        raise DecodeError(reason, path=path, offset=stream.tell()) from None
    if stream.tell() != len(data):
        raise DecodeError(f"{len(data) - stream.tell()} bytes left after {message.name} v{version}",
                          offset=stream.tell())
    return value


def reference_encode(message: Message, version: int, value: Mapping) -> bytes:
    """Write the plain form ``value`` as ``message`` at ``version``."""
    con = reference_struct(message, version)
    try:
        return con.build(value)
    except NotInVersion as exc:
        raise UnsupportedVersionError(_reason_and_path(exc)[0]) from None
    except c.ConstructError as exc:
        reason, path = _reason_and_path(exc)
        raise EncodeError(reason, path=path) from None
