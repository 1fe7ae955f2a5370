"""The typed ``record`` column: one record type's decoded messages as an Arrow struct.

The rows of a log carry different versions of a type, so the struct has the union layout over
all versions (see ``schemas.py``). A coordinator record type is named by its value class
(``OffsetCommitValue``); its column is ``struct<key, value>`` with the key at version 0 and the
value null for a tombstone.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from kwire.arrow import schemas
from kwire.arrow.decoders import DecodedRecord
from kwire.logs.coordinator_log import COORDINATOR_TOPICS as _COORDINATOR_TOPICS
from kwire.wire.errors import KwireError
from kwire.wire.index import load
from kwire.wire.message import GeneratedStruct


@dataclass(frozen=True)
class TypedRecord:
    name: str
    data_type: pa.DataType
    convert: Callable[[DecodedRecord | None], Any]  # None: a row without this record


@functools.cache
def typed_record(name: str, package: str = "kwire.generated") -> TypedRecord:
    """How to turn decoded records of type ``name`` (a message of ``package``) into a column."""
    cls = load(package).messages.get(name)
    if cls is None:
        raise KwireError(f"recordType {name!r} is not a message of {package}")
    if getattr(cls, "MESSAGE_TYPE", None) == "coordinator-value":
        return _coordinator_typed(cls)
    return TypedRecord(name, schemas.message_type(cls, None), functools.partial(_message_value, cls))


def _message_value(cls: type[GeneratedStruct], decoded: DecodedRecord | None) -> Any:
    if decoded is None or decoded.version is None or not isinstance(decoded.value, cls):
        return None
    return schemas.converter(cls, decoded.version, union=True)(decoded.value)


def _coordinator_typed(value_cls: type[GeneratedStruct]) -> TypedRecord:
    key_cls = _key_class_of(value_cls)
    data_type = pa.struct(
        [pa.field("key", schemas.message_type(key_cls, 0)), pa.field("value", schemas.message_type(value_cls, None))]
    )
    return TypedRecord(value_cls.NAME, data_type, functools.partial(_coordinator_value, key_cls, value_cls))


def _coordinator_value(key_cls, value_cls, decoded: DecodedRecord | None) -> Any:
    if decoded is None:
        return None
    key = schemas.converter(key_cls, 0)(decoded.key) if isinstance(decoded.key, key_cls) else None
    value = None
    if decoded.version is not None and isinstance(decoded.value, value_cls):
        value = schemas.converter(value_cls, decoded.version, union=True)(decoded.value)
    return {"key": key, "value": value}


def _key_class_of(value_cls: type[GeneratedStruct]) -> type[GeneratedStruct]:
    from kwire.logs.coordinator_log import coordinator_log_type

    record_type: int = getattr(value_cls, "API_KEY", -1)
    for topic in _COORDINATOR_TOPICS:
        log_type = coordinator_log_type(topic)
        if log_type.values.get(record_type) is value_cls:
            return log_type.keys[record_type]
    raise KwireError(f"{value_cls.NAME} is not a record value of {' or '.join(_COORDINATOR_TOPICS)}")
