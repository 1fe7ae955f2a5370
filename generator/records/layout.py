"""The wire layout of one record in a magic 2 batch: the one description both record decoders
are emitted from (:mod:`kwire.generator.records.decoders`).

From Kafka's ``DefaultRecord`` (clients/src/main/java/org/apache/kafka/common/record/
DefaultRecord.java, the schema in its class comment, unchanged from 0.11 to 3.8.0)::

    Length => Varint
    Attributes => Int8
    TimestampDelta => Varlong
    OffsetDelta => Varint
    Key => Bytes
    Value => Bytes
    Headers => [HeaderKey HeaderValue]
      HeaderKey => String
      HeaderValue => Bytes

Every varint there is a zigzag varint; Bytes and String are a varint length then that many bytes
(-1: null, which a String may not be); the header array is a varint count then its headers.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.Enum):
    LENGTH = "zigzag varint: the bytes of the record after it"
    INT8 = "one byte"
    VARINT = "zigzag varint, int32"
    VARLONG = "zigzag varlong, int64"
    BYTES = "varint length (-1: null), then the bytes"
    STRING = "varint length, then UTF-8 (never null)"
    HEADERS = "varint count, then that many headers (HEADER)"


@dataclass(frozen=True)
class Field:
    name: str  # the decoders' local (and column) name
    kind: Kind
    what: str  # how error messages name it

    @property
    def long(self) -> bool:
        return self.kind is Kind.VARLONG


RECORD: tuple[Field, ...] = (
    Field("length", Kind.LENGTH, "record length"),
    Field("attributes", Kind.INT8, "attributes"),
    Field("timestamp_delta", Kind.VARLONG, "timestamp delta"),
    Field("offset_delta", Kind.VARINT, "offset delta"),
    Field("key", Kind.BYTES, "key"),
    Field("value", Kind.BYTES, "value"),
    Field("headers", Kind.HEADERS, "headers"),
)

HEADER: tuple[Field, ...] = (
    Field("key", Kind.STRING, "header key"),
    Field("value", Kind.BYTES, "header value"),
)


def min_size(fields: tuple[Field, ...]) -> int:
    """The fewest bytes ``fields`` can take: one each (a one-byte varint, an empty or null Bytes,
    no headers)."""
    return len(fields)
