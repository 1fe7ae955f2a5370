"""Arrow schemas: the record rows kwire decodes log files into, and every generated message.

Message schemas are built from the generated classes' ``FIELDS`` (:class:`kwire.wire.message.FieldInfo`)
at one version, or over all versions at once (a *union* layout, for a column whose rows carry
different versions of one message: every field any version has, all nullable, absent fields
null). Column names are the Python attribute names. Kafka types map to what Spark can hold:

==========================  =====================================================
Kafka                       Arrow / Spark
==========================  =====================================================
bool, int8/16/32/64         bool, int8/16/32/64 (Spark: boolean, tinyint ... bigint)
uint16 / uint32             int32 / int64 (Spark has no unsigned integers)
float64                     float64 (double)
string                      string
bytes, records              binary
uuid                        string: Kafka's ``Uuid.toString()`` form, URL-safe base64
[]T                         list<T> (array)
struct                      struct
==========================  =====================================================

At flexible versions each struct also has ``unknown_tagged_fields``: list<struct<tag int64,
data binary>>, so a typed column loses nothing the decoder kept.

Every field of a message type is nullable, even where Kafka's field is not: a struct column is
null for a row without a message (a null body, a tombstone, another record type), and Arrow
readers such as PySpark's ``toArrow`` refuse non-nullable children under a null parent.

These Arrow schemas are the source of truth; :mod:`kwire.spark.schemas` converts them to Spark's
with PySpark's own converter.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from kwire.wire.message import FieldInfo, GeneratedStruct
from kwire.wire.uuids import uuid_to_text

UNKNOWN_TAGS_COLUMN = "unknown_tagged_fields"

_PRIMITIVES: dict[str, pa.DataType] = {
    "bool": pa.bool_(),
    "int8": pa.int8(),
    "int16": pa.int16(),
    "uint16": pa.int32(),
    "int32": pa.int32(),
    "uint32": pa.int64(),
    "int64": pa.int64(),
    "float64": pa.float64(),
    "string": pa.string(),
    "bytes": pa.binary(),
    "records": pa.binary(),
    "uuid": pa.string(),
}

UNKNOWN_TAGS_TYPE = pa.list_(pa.struct([pa.field("tag", pa.int64()), pa.field("data", pa.binary())]))

# ------------------------------------------------------------------------ data source rows

HEADER_TYPE = pa.struct([pa.field("key", pa.string(), False), pa.field("value", pa.binary())])

#: One row per record: where it was read from, its batch's header fields, the record itself.
RECORD_SCHEMA = pa.schema(
    [
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("file", pa.string(), False),
        pa.field("base_offset", pa.int64(), False),
        pa.field("partition_leader_epoch", pa.int32(), False),
        pa.field("producer_id", pa.int64(), False),
        pa.field("producer_epoch", pa.int16(), False),
        pa.field("base_sequence", pa.int32(), False),
        pa.field("is_transactional", pa.bool_(), False),
        pa.field("is_control", pa.bool_(), False),
        pa.field("compression", pa.string(), False),
        pa.field("crc_valid", pa.bool_(), False),
        pa.field("offset", pa.int64(), False),
        pa.field("timestamp", pa.int64(), False),
        pa.field("timestamp_type", pa.string(), False),
        pa.field("key", pa.binary()),
        pa.field("value", pa.binary()),
        pa.field("headers", pa.list_(pa.field("element", HEADER_TYPE, False)), False),
    ]
)

#: Columns added for files whose records kwire can decode (control records, metadata and
#: coordinator records): the record's type name, its version, and Kafka's JSON form of it.
DECODED_SCHEMA = pa.schema(
    [
        pa.field("record_type", pa.string()),
        pa.field("record_version", pa.int16()),
        pa.field("record_json", pa.string()),
    ]
)

#: Columns added with ``skipUndecodable``: a row for each range of a file that was not decoded (a
#: damaged batch, a truncated tail), with the range's file position and length and every record
#: column null; record rows have them null. Nothing is dropped without a row that says so.
SKIPPED_SCHEMA = pa.schema(
    [
        pa.field("skipped_position", pa.int64()),
        pa.field("skipped_bytes", pa.int64()),
    ]
)

#: The typed column added when one record type is selected.
TYPED_RECORD_COLUMN = "record"


def record_schema(decoded: bool = False, typed: pa.DataType | None = None, skipped: bool = False) -> pa.Schema:
    """The data source's Arrow schema: record rows, plus the decoded columns if asked for, plus
    the skipped-range columns with ``skipped`` (then the record columns may be null)."""
    fields = [f.with_nullable(True) for f in RECORD_SCHEMA] if skipped else list(RECORD_SCHEMA)
    if decoded or typed is not None:
        fields += list(DECODED_SCHEMA)
    if typed is not None:
        fields.append(pa.field(TYPED_RECORD_COLUMN, typed))
    if skipped:
        fields += list(SKIPPED_SCHEMA)
    return pa.schema(fields)


# ------------------------------------------------------------------------- message schemas


def versions_of(cls: type[GeneratedStruct]) -> tuple[int, ...]:
    low, high = cls.VALID_VERSIONS
    return tuple(range(low, high + 1))


def _layout(cls: type[GeneratedStruct], version: int | None) -> tuple[int, ...]:
    if version is None:
        return versions_of(cls)
    low, high = cls.VALID_VERSIONS
    if not (type(version) is int and low <= version <= high):
        from kwire.wire.errors import UnsupportedVersionError

        raise UnsupportedVersionError(f"{cls.NAME} has no version {version!r} (valid: {low}..{high})")
    return (version,)


def _flexible(cls: type[GeneratedStruct], layout: tuple[int, ...]) -> bool:
    lowest = getattr(cls, "FLEXIBLE_VERSIONS", None)
    return lowest is not None and any(v >= lowest for v in layout)


def message_type(cls: type[GeneratedStruct], version: int | None = None) -> pa.StructType:
    """The Arrow struct type of ``cls`` at ``version`` (None: the union over all versions)."""
    layout = _layout(cls, version)
    return _struct_type(cls, layout, _flexible(cls, layout))


def arrow_schema(cls: type[GeneratedStruct], version: int | None = None) -> pa.Schema:
    """``cls`` at ``version`` as a schema: one top-level column per field."""
    return pa.schema(list(message_type(cls, version)))


def _fields_in(struct: type[GeneratedStruct], layout: tuple[int, ...]) -> list[FieldInfo]:
    return [info for info in struct.FIELDS if any(info.present(v) for v in layout)]


def _memo(function):
    """Cache by arguments (generated classes are hashable, their instances are not)."""
    cache: dict[tuple, Any] = {}

    @functools.wraps(function)
    def cached(*args: Any) -> Any:
        if args not in cache:
            cache[args] = function(*args)
        return cache[args]

    return cached


@_memo
def _struct_type(struct: type[GeneratedStruct], layout: tuple[int, ...], flexible: bool) -> pa.StructType:
    fields = [pa.field(info.attr, _field_type(info, info.type, layout, flexible))
              for info in _fields_in(struct, layout)]
    if flexible:
        fields.append(pa.field(UNKNOWN_TAGS_COLUMN, UNKNOWN_TAGS_TYPE))
    return pa.struct(fields)


def _field_type(info: FieldInfo, type_name: str, layout: tuple[int, ...], flexible: bool) -> pa.DataType:
    if type_name.startswith("[]"):
        return pa.list_(_field_type(info, type_name[2:], layout, flexible))
    primitive = _PRIMITIVES.get(type_name)
    if primitive is not None:
        return primitive
    if info.struct is None:
        from kwire.wire.errors import SchemaError

        raise SchemaError(f"field {info.attr} has type {type_name}, which has no Arrow mapping")
    return _struct_type(info.struct, layout, flexible)


# ------------------------------------------------------------------ values for those schemas

Converter = Callable[[Any], Any]


def converter(cls: type[GeneratedStruct], version: int, union: bool = False) -> Converter:
    """A function turning a decoded ``cls`` instance of ``version`` into a Python value
    (nested dicts and lists) that ``pa.array`` builds into :func:`message_type`.

    With ``union`` the value has the layout of ``message_type(cls, None)``: fields the version
    lacks are None.
    """
    layout = versions_of(cls) if union else _layout(cls, version)
    _layout(cls, version)  # the version itself must be valid
    return _struct_converter(cls, version, layout, _flexible(cls, layout))


def _identity(value: Any) -> Any:
    return value


def _null(_value: Any) -> None:
    return None


def _uuid(value: Any) -> Any:
    return None if value is None else uuid_to_text(value)


def _binary(value: Any) -> Any:
    return value if value is None or type(value) is bytes else bytes(value)


def _unknown_tags(value: Sequence[tuple[int, bytes]]) -> list[dict[str, Any]]:
    return [{"tag": tag, "data": bytes(data)} for tag, data in value]


@_memo
def _struct_converter(
    struct: type[GeneratedStruct], version: int, layout: tuple[int, ...], flexible: bool
) -> Converter:
    parts: list[tuple[str, str, Converter]] = []
    for info in _fields_in(struct, layout):
        if info.present(version):
            parts.append((info.attr, info.attr, _value_converter(info, info.type, version, layout, flexible)))
        else:
            parts.append((info.attr, info.attr, _null))
    if flexible:  # an inflexible version in a union layout has none: an empty list
        parts.append((UNKNOWN_TAGS_COLUMN, UNKNOWN_TAGS_COLUMN, _unknown_tags))

    def convert(obj: Any) -> Any:
        if obj is None:
            return None
        out = {}
        for name, attr, conv in parts:
            value = getattr(obj, attr, None)
            out[name] = value if conv is _identity else conv(value)
        return out

    return convert


def _value_converter(
    info: FieldInfo, type_name: str, version: int, layout: tuple[int, ...], flexible: bool
) -> Converter:
    if type_name.startswith("[]"):
        element = _value_converter(info, type_name[2:], version, layout, flexible)
        if element is _identity:
            return lambda value: None if value is None else list(value)
        return lambda value: None if value is None else [element(item) for item in value]
    if type_name == "uuid":
        return _uuid
    if type_name in ("bytes", "records"):
        return _binary
    if type_name in _PRIMITIVES:
        return _identity
    return _struct_converter(info.struct, version, layout, flexible)
