"""``decode_column``: a binary column of message bodies in, a typed struct column out.

The work runs in ``mapInArrow``: each task receives Arrow batches, decodes the column's values
with the generated class, and hands Arrow batches back; no Python rows are built by Spark.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator

import pyarrow as pa

from kwire.arrow import schemas
from kwire.spark.schemas import to_spark_type
from kwire.wire.errors import KwireError
from kwire.wire.index import load
from kwire.wire.message import GeneratedStruct


def resolve_message(message: str | type[GeneratedStruct], package: str = "kwire.generated") -> type[GeneratedStruct]:
    """A generated class from its name in ``package`` (or the class itself)."""
    if isinstance(message, type):
        return message
    registry = load(package).messages
    try:
        return registry[message]
    except KeyError:
        raise KwireError(f"{message!r} is not a message of {package}") from None


def decode_column(
    df,
    column: str,
    message: str | type[GeneratedStruct],
    version: int,
    *,
    into: str | None = None,
    package: str | None = None,
    on_error: str = "raise",
):
    """``df`` with ``column`` (binary: message bodies at ``version``) decoded into a struct.

    The struct replaces the column, or goes into a new column ``into``. ``message`` is a class
    or a name in ``package`` (default: the class's own package, else ``generated``). A null
    body gives a null struct; a body that does not decode raises in the task
    (``on_error="raise"``) or gives null (``on_error="null"``).
    """
    if on_error not in ("raise", "null"):
        raise KwireError(f"on_error must be 'raise' or 'null', not {on_error!r}")
    cls = resolve_message(message, package or "kwire.generated")
    schemas._layout(cls, version)  # fail here, not in a task, on a bad version
    # Tasks import the class by name, so a cluster needs nothing pickled but two strings.
    module, name = cls.__module__, cls.__name__
    struct_type = schemas.message_type(cls, version)
    source = df.schema.fieldNames()
    if column not in source:
        raise KwireError(f"no column {column!r} in {source}")
    target = into or column
    out_schema = _output_schema(df.schema, column, target, to_spark_type(struct_type))

    def decode_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        message_cls = getattr(importlib.import_module(module), name)
        convert = schemas.converter(message_cls, version)
        for batch in batches:
            values = batch.column(batch.schema.get_field_index(column)).to_pylist()
            decoded = [_decode_one(message_cls, convert, data, version, on_error) for data in values]
            arrays = dict(zip(batch.schema.names, batch.columns, strict=False))
            arrays[target] = pa.array(decoded, struct_type)
            yield pa.RecordBatch.from_arrays([arrays[n] for n in out_schema.fieldNames()],
                                             names=out_schema.fieldNames())

    return df.mapInArrow(decode_batches, out_schema)


def _decode_one(cls, convert, data, version: int, on_error: str):
    if data is None:
        return None
    try:
        return convert(cls.decode(data, version))
    except KwireError:
        if on_error == "null":
            return None
        raise


def _output_schema(schema, column: str, target: str, data_type):
    from pyspark.sql.types import StructField, StructType

    fields = []
    for field in schema.fields:
        if field.name == target:
            fields.append(StructField(target, data_type, True))
        else:
            fields.append(field)
    if target not in schema.fieldNames():
        fields.append(StructField(target, data_type, True))
    return StructType(fields)
