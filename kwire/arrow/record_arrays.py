"""Arrow arrays over the buffers of :class:`kwire.records.columns.RecordColumns`, without copying.

The column decoder lays its buffers out as Arrow does, so each array is ``pa.Array.from_buffers``
over ``pa.py_buffer`` views of them: the record columns of :data:`schemas.RECORD_SCHEMA`
(offset, timestamp, key, value, headers) cost a few microseconds per set of rows, whatever
their number.
"""
from __future__ import annotations

import pyarrow as pa

from kwire.arrow import schemas

HEADERS_TYPE = schemas.RECORD_SCHEMA.field("headers").type
RECORD_COLUMNS = ("offset", "timestamp", "key", "value", "headers")


def _buffer(data: bytes | None) -> pa.Buffer | None:
    return None if data is None else pa.py_buffer(data)


# The headers' entries when there are none (most records carry no header): made once, as
# arrays are immutable; three from_buffers fewer per set of arrays (~35 instructions a record on
# a 1,000-record batch).
NO_ENTRIES = pa.array([], schemas.HEADER_TYPE)


def _entries(columns, headers: int) -> pa.Array:
    """The struct array of every header's key and value."""
    if headers == 0:
        return NO_ENTRIES
    header_keys = pa.Array.from_buffers(
        pa.string(), headers, [None, pa.py_buffer(columns.header_key_ends), pa.py_buffer(columns.header_key_data)],
        null_count=0)
    header_values = pa.Array.from_buffers(
        pa.binary(), headers,
        [_buffer(columns.header_value_validity), pa.py_buffer(columns.header_value_ends),
         pa.py_buffer(columns.header_value_data)],
        null_count=columns.header_value_nulls)
    return pa.Array.from_buffers(schemas.HEADER_TYPE, headers, [None], null_count=0,
                                 children=[header_keys, header_values])


def record_arrays(columns) -> dict[str, pa.Array]:
    """The record columns of ``columns``' rows; rows that stand for no record are null in all."""
    rows = columns.rows
    present = _buffer(columns.row_validity)
    missing = columns.null_rows
    entries = _entries(columns, columns.header_count)
    return {
        "offset": pa.Array.from_buffers(pa.int64(), rows, [present, pa.py_buffer(columns.offsets)], null_count=missing),
        "timestamp": pa.Array.from_buffers(
            pa.int64(), rows, [present, pa.py_buffer(columns.timestamps)], null_count=missing),
        "key": pa.Array.from_buffers(
            pa.binary(), rows,
            [_buffer(columns.key_validity), pa.py_buffer(columns.key_ends), pa.py_buffer(columns.key_data)],
            null_count=columns.key_nulls),
        "value": pa.Array.from_buffers(
            pa.binary(), rows,
            [_buffer(columns.value_validity), pa.py_buffer(columns.value_ends), pa.py_buffer(columns.value_data)],
            null_count=columns.value_nulls),
        "headers": pa.Array.from_buffers(HEADERS_TYPE, rows, [present, pa.py_buffer(columns.header_ends)],
                                         null_count=missing, children=[entries]),
    }
