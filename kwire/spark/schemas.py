"""Spark schemas of kwire's rows and messages: the Arrow ones of :mod:`kwire.arrow.schemas`, converted
with PySpark's own converter (imported only when asked for)."""
from __future__ import annotations

import pyarrow as pa

from kwire.arrow.schemas import arrow_schema
from kwire.wire.message import GeneratedStruct


def spark_schema(cls: type[GeneratedStruct], version: int | None = None):
    """The Spark ``StructType`` of :func:`arrow_schema`."""
    return to_spark(arrow_schema(cls, version))


def to_spark(schema: pa.Schema):
    """A Spark ``StructType`` for an Arrow schema (PySpark's own conversion)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


def to_spark_type(data_type: pa.DataType):
    from pyspark.sql.pandas.types import from_arrow_type

    return from_arrow_type(data_type)
