"""The single-process reader: the data source's rows, read in this process without Spark.

It plans and decodes exactly as the Spark tasks do (the same pieces, the same code), one piece
after another, so its table is what ``spark.read.format("kwire").load(path)`` must return.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

import pyarrow as pa

from kwire.arrow import splits
from kwire.arrow.options import ScanOptions
from kwire.arrow.pieces import read_pieces


def iter_record_batches(path: str, **options: object) -> Iterator[pa.RecordBatch]:
    """Arrow batches of every record under ``path`` (a local path or a URI such as
    ``s3://bucket/prefix``); options as the data source's (camelCase or snake_case keywords:
    ``maxSplitBytes=...`` or ``max_split_bytes=...``)."""
    scan = ScanOptions.parse(_spark_style(path, options))
    files = scan.files()
    yield from _batches(scan, files, scan.read_options(files))


def read_table(path: str, **options: object) -> pa.Table:
    """Every record under ``path`` as one Arrow table (schema as the data source's)."""
    scan = ScanOptions.parse(_spark_style(path, options))
    files = scan.files()  # listed once: for a URI, every listing is a request
    read_options = scan.read_options(files)
    return pa.Table.from_batches(list(_batches(scan, files, read_options)), schema=read_options.schema())


def _batches(scan: ScanOptions, files: list, read_options) -> Iterator[pa.RecordBatch]:
    for split in splits.plan(files, scan.max_split_bytes):
        yield from read_pieces(split, read_options)


def _spark_style(path: str, options: Mapping[str, object]) -> dict[str, str]:
    given = {"path": str(path)}
    for key, value in options.items():
        given[key.replace("_", "").lower()] = str(value).lower() if isinstance(value, bool) else str(value)
    return given
