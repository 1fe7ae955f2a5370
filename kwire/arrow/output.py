"""Rows written to Parquet or JSON-lines files batch by batch, and what was written, counted.

A part file holds the rows of one split, as a Spark task's output file does; only the batch in
hand is in memory. JSON lines are written the way Spark's JSON writer writes these rows, so both
paths give the same files: null fields left out (also inside structs), binary as base64, text as
UTF-8.
"""
from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

FORMATS = ("parquet", "json")
SUFFIXES = {"parquet": ".parquet", "json": ".json"}

# Parquet row groups of up to this many rows or bytes: batches are gathered to about this size
# before they are written (a row group per batch would cost CPU and bytes: benchmarks/README.md,
# "Figures behind design choices").
ROW_GROUP_ROWS = 256 * 1024
ROW_GROUP_BYTES = 64 * 1024 * 1024
# Columns with few distinct values, dictionary-encoded; the others (keys, values, offsets) are
# mostly distinct, and trying a dictionary on them costs more CPU than it saves bytes.
DICTIONARY_COLUMNS = ("topic", "file", "compression", "timestamp_type", "record_type")


@dataclass(frozen=True)
class WrittenSummary:
    """What a decode wrote: the ``kwire decode`` summary line."""

    files: int
    batches: int
    records: int
    skipped_ranges: int  # rows naming a range not decoded (only with skipUndecodable)
    skipped_bytes: int
    crc_failures: int = 0  # batches whose checksum fails, kept as rows with crc_valid false (skipUndecodable)

    @property
    def damaged(self) -> bool:
        """Whether anything was read past: a file with this is never called clean."""
        return bool(self.skipped_ranges or self.crc_failures)


@dataclass
class Tally:
    """Counts of rows as they are written; tallies of parts add up (a batch is never cut in two)."""

    files: set[str] = field(default_factory=set)
    batches: set[tuple[str, int]] = field(default_factory=set)  # (file, base_offset), as Spark counts them
    crc_failed: set[tuple[str, int]] = field(default_factory=set)  # the batches whose checksum fails
    records: int = 0
    skipped_ranges: int = 0
    skipped_bytes: int = 0

    def add(self, batch: pa.RecordBatch) -> None:
        """Count ``batch``: rows of one piece of one file, as :mod:`kwire.arrow.pieces` makes them."""
        if "skipped_bytes" in batch.schema.names:
            skipped = batch.column("skipped_bytes")
            self.skipped_ranges += len(skipped) - skipped.null_count
            self.skipped_bytes += pc.sum(skipped).as_py() or 0
            batch = batch.filter(pc.is_null(skipped))
        self.records += batch.num_rows
        if batch.num_rows:
            file = batch.column("file")[0].as_py()
            self.files.add(file)
            self.batches.update((file, offset) for offset in pc.unique(batch.column("base_offset")).to_pylist())
            failed = batch.filter(pc.invert(batch.column("crc_valid")))
            self.crc_failed.update((file, offset) for offset in pc.unique(failed.column("base_offset")).to_pylist())

    def merge(self, other: Tally) -> None:
        self.files |= other.files
        self.batches |= other.batches
        self.crc_failed |= other.crc_failed
        self.records += other.records
        self.skipped_ranges += other.skipped_ranges
        self.skipped_bytes += other.skipped_bytes

    def summary(self) -> WrittenSummary:
        return WrittenSummary(len(self.files), len(self.batches), self.records, self.skipped_ranges,
                              self.skipped_bytes, len(self.crc_failed))


def write_part(path: Path, output_format: str, schema: pa.Schema, batches: Iterable[pa.RecordBatch],
               always: bool = False) -> Tally:
    """Write ``batches`` to ``path``, one at a time. No rows, no file (unless ``always``: then a
    Parquet file with the schema and no rows, so that the output says what its columns are)."""
    tally = Tally()
    writer: _PartWriter | None = None
    try:
        for batch in batches:
            if batch.num_rows == 0:
                continue
            if writer is None:
                writer = _PartWriter(path, output_format, schema)
            writer.write(batch)
            tally.add(batch)
        if writer is None and always and output_format == "parquet":
            writer = _PartWriter(path, output_format, schema)
    finally:
        if writer is not None:
            writer.close()
    return tally


class _PartWriter:
    def __init__(self, path: Path, output_format: str, schema: pa.Schema) -> None:
        self.format = output_format
        self.schema = schema
        self.held: list[pa.RecordBatch] = []  # Parquet: the batches of the next row group
        if output_format == "parquet":
            import pyarrow.parquet as pq

            dictionary = [name for name in DICTIONARY_COLUMNS if name in schema.names]
            self.parquet = pq.ParquetWriter(str(path), schema, compression="snappy", use_dictionary=dictionary)
        else:
            self.text = open(path, "w", encoding="utf-8")

    def write(self, batch: pa.RecordBatch) -> None:
        if self.format == "parquet":
            self.held.append(batch)
            if (sum(b.num_rows for b in self.held) >= ROW_GROUP_ROWS
                    or sum(b.nbytes for b in self.held) >= ROW_GROUP_BYTES):
                self._flush()
        else:
            self.text.writelines(json_line(row) for row in batch.to_pylist())

    def _flush(self) -> None:
        if self.held:
            table = pa.Table.from_batches(self.held, schema=self.schema)
            self.parquet.write_table(table, row_group_size=max(table.num_rows, 1))
            self.held = []

    def close(self) -> None:
        if self.format == "parquet":
            try:
                self._flush()
            finally:
                self.parquet.close()
        else:
            self.text.close()


def json_line(row: dict[str, Any]) -> str:
    """One row as Spark's JSON writer writes it (``ignoreNullFields``: null fields left out)."""
    return json.dumps(_json_value(row), ensure_ascii=False, separators=(",", ":")) + "\n"


def _json_value(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _json_value(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_json_value(item) for item in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value
