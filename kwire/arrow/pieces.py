"""Decoding pieces of log files into Arrow record batches of :data:`schemas.RECORD_SCHEMA` rows.

This is the work a Spark task does, and also all of what the single-process reader does, so both
give the same rows by construction; Spark only decides which process reads which piece.

Batches are read with the CRC check off so that a damaged batch still shows, with
``crc_valid = false``, unless ``verify_crc`` (``kwire decode`` without ``--skip-undecodable``); anything
that cannot be
decoded at all raises the :class:`kwire.logs.damage.DamagedFileError` every command gives for that
damage (the same class, wording, file and byte offset).
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from kwire.arrow import schemas
from kwire.arrow.decoders import DecodedRecord, data_record_decoder, decode_control
from kwire.arrow.record_arrays import record_arrays
from kwire.arrow.splits import Piece
from kwire.arrow.storage import read_range
from kwire.arrow.typed import TypedRecord, typed_record
from kwire.logs import damage
from kwire.records.batch import RecordBatch
from kwire.records.columns import ColumnBuilder
from kwire.records.compression import DEFAULT_MAX_DECOMPRESSED_SIZE, codec_name
from kwire.records.reader import BatchReader, next_batch_after
from kwire.records.record import TimestampType
from kwire.wire.errors import DecodeError, KwireError

DEFAULT_BATCH_ROWS = 32768

# Bytes of keys, values and headers gathered before a set of Arrow arrays is made, at most (besides
# ReadOptions.batch_rows rows): Arrow's 32-bit offsets allow 2 GiB per array.
FLUSH_BYTES = 256 * 1024 * 1024

_TIMESTAMP_TYPES = {t: t.name for t in TimestampType}


@dataclass(frozen=True)
class ReadOptions:
    """How to read: the decompression cap, and which decoded-record columns to add.

    ``decoded`` adds record_type / record_version / record_json; ``record_type`` (a message of
    ``package``) keeps only records of that type and adds them as a typed ``record`` column too.
    ``skip_undecodable`` gives null decoded columns instead of failing on a record whose value
    does not decode, and instead of failing on a damaged batch or a truncated tail, a row that
    names the range not decoded (``skipped_position``, ``skipped_bytes``); reading goes on at the
    next valid batch.
    """

    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE
    batch_rows: int = DEFAULT_BATCH_ROWS
    decoded: bool = False
    record_type: str | None = None
    package: str = "kwire.generated"
    skip_undecodable: bool = False
    verify_crc: bool = False  # a batch whose CRC fails is the file's damage, not rows with crc_valid false

    def typed(self) -> TypedRecord | None:
        return None if self.record_type is None else typed_record(self.record_type, self.package)

    def schema(self) -> pa.Schema:
        typed = self.typed()
        return schemas.record_schema(self.decoded, None if typed is None else typed.data_type, self.skip_undecodable)


class _Columns:
    """The rows gathered so far, turned into Arrow at the end.

    Record fields go straight into column buffers (:mod:`kwire.records.columns`, compiled when
    built); batch header fields are kept once per batch and spread over the batch's rows by one
    ``take`` per column. Only the decoded-record columns hold a Python value per row.
    """

    def __init__(self, options: ReadOptions) -> None:
        self.options = options
        self.builder = ColumnBuilder()
        self.batches: list[tuple] = []  # one tuple of _BATCH_COLUMNS values per batch
        self.counts: list[int] = []  # rows per batch
        self.decoded: list[DecodedRecord | None] = []
        self.keep: list[bool] | None = [] if options.record_type is not None else None
        self.skipped: list[tuple[int, int, int]] = []  # (row, file position, bytes)

    @property
    def rows(self) -> int:
        return self.builder.rows

    def full(self) -> bool:
        return self.builder.rows >= self.options.batch_rows or self.builder.data_bytes() >= FLUSH_BYTES

    def add_skipped(self, position: int, length: int) -> None:
        """A row for bytes ``position`` to ``position + length`` of the file, not decoded."""
        self.skipped.append((self.builder.rows, position, length))
        self.builder.add_null_row()
        self.counts.append(1)
        self.batches.append((None,) * len(_BATCH_COLUMNS))
        if _decoding(self.options):
            self.decoded.append(None)
        if self.keep is not None:
            self.keep.append(True)

    def add_batch(self, batch, decoded: list | None) -> None:
        """The batch's records as rows (``decoded``: their decoded values, when asked for)."""
        before = self.builder.rows
        if isinstance(batch, RecordBatch):
            batch.add_columns_to(self.builder)  # on an error it adds nothing
        else:
            for record in batch.records:
                self.builder.add_record(record.offset, record.timestamp, record.key, record.value, record.headers)
        count = self.builder.rows - before
        if count == 0:  # a batch without records (a legacy wrapper around none) has no rows
            return
        self.counts.append(count)
        self.batches.append((
            batch.base_offset, batch.partition_leader_epoch, batch.producer_id, batch.producer_epoch,
            batch.base_sequence, batch.is_transactional, batch.is_control,
            codec_name(batch.attributes).lower(), batch.crc_valid, _TIMESTAMP_TYPES[batch.timestamp_type],
        ))
        if decoded is not None:
            self.decoded += decoded
            if self.keep is not None:
                name = self.options.record_type
                self.keep += [d is not None and d.type_name == name for d in decoded]

    def to_arrow(self, piece: Piece) -> pa.RecordBatch:
        n = self.rows
        file = piece.file
        arrays = {
            "topic": pa.repeat(pa.scalar(file.topic, pa.string()), n),
            "partition": pa.repeat(pa.scalar(file.partition, pa.int32()), n),
            "file": pa.repeat(pa.scalar(file.path, pa.string()), n),
            **record_arrays(self.builder.finish()),
        }
        # each batch's header values, run-length encoded over its rows (no batch here is empty)
        run_ends = pa.array(list(itertools.accumulate(self.counts)), pa.int32())
        for name, values in zip(_BATCH_COLUMNS, zip(*self.batches, strict=False), strict=False):
            runs = pa.RunEndEncodedArray.from_arrays(run_ends, pa.array(values, schemas.RECORD_SCHEMA.field(name).type))
            arrays[name] = pc.run_end_decode(runs)
        options = self.options
        if options.skip_undecodable:
            arrays.update(self._skipped_arrays(n))
        decoded = self.decoded
        if self.keep is not None:
            mask = pa.array(self.keep, pa.bool_())
            arrays = {name: array.filter(mask) for name, array in arrays.items()}
            decoded = [d for d, kept in zip(decoded, self.keep, strict=False) if kept]
        if _decoding(options):
            arrays["record_type"] = pa.array([d and d.type_name for d in decoded], pa.string())
            arrays["record_version"] = pa.array([d and d.version for d in decoded], pa.int16())
            arrays["record_json"] = pa.array([d and d.to_json() for d in decoded], pa.string())
        typed = options.typed()
        if typed is not None:
            arrays[schemas.TYPED_RECORD_COLUMN] = pa.array([typed.convert(d) for d in decoded], typed.data_type)
        schema = options.schema()
        return pa.RecordBatch.from_arrays([arrays[f.name] for f in schema], schema=schema)

    def _skipped_arrays(self, n: int) -> dict[str, pa.Array]:
        """skipped_position / skipped_bytes: set on the skipped rows, null on the others."""
        positions: list[int | None] = [None] * n
        lengths: list[int | None] = [None] * n
        for row, position, length in self.skipped:
            positions[row], lengths[row] = position, length
        return {"skipped_position": pa.array(positions, pa.int64()), "skipped_bytes": pa.array(lengths, pa.int64())}


_BATCH_COLUMNS = (
    "base_offset",
    "partition_leader_epoch",
    "producer_id",
    "producer_epoch",
    "base_sequence",
    "is_transactional",
    "is_control",
    "compression",
    "crc_valid",
    "timestamp_type",
)


def read_piece(piece: Piece, options: ReadOptions = ReadOptions()) -> Iterator[pa.RecordBatch]:
    """Record batches of the rows in ``piece`` (none for a piece without records).

    A damaged batch or a truncated tail fails with the file and its position, unless
    ``options.skip_undecodable``: then a row names the range, and reading goes on at the next
    valid batch.
    """
    data = _read_bytes(piece)
    data_decoder = data_record_decoder(piece.file.kind) if _decoding(options) else None
    columns = _Columns(options)
    start = 0
    while start is not None:
        reader = BatchReader(data, start, verify_crc=False, max_decompressed_size=options.max_decompressed_size)
        resume: int | None = None
        try:
            for batch in reader:
                if options.verify_crc and not batch.crc_valid:
                    raise _judged(data, reader.position, piece)
                if batch.record_count == 0:
                    continue
                decoded = None
                if _decoding(options):
                    decoded = [_decode_record(r, batch, data_decoder, options) for r in batch.records]
                columns.add_batch(batch, decoded)
                if columns.full():
                    yield columns.to_arrow(piece)
                    columns = _Columns(options)
            if reader.truncated_at is not None:
                if not options.skip_undecodable:
                    raise _judged(data, reader.truncated_at, piece)
                columns.add_skipped(piece.start + reader.truncated_at, reader.truncated_bytes)
        except damage.DamagedFileError:
            raise
        except DecodeError as err:
            if not options.skip_undecodable:
                raise _judged(data, reader.position, piece, err) from None
            damaged = reader.position  # where the entry that failed starts
            resume = next_batch_after(data, damaged + 1, len(data), legacy=True)
            columns.add_skipped(piece.start + damaged, (len(data) if resume is None else resume) - damaged)
        start = resume
    if columns.rows:
        yield columns.to_arrow(piece)


def read_pieces(pieces: Iterable[Piece], options: ReadOptions = ReadOptions()) -> Iterator[pa.RecordBatch]:
    for piece in pieces:
        yield from read_piece(piece, options)


def _decoding(options: ReadOptions) -> bool:
    return options.decoded or options.record_type is not None


def _decode_record(record, batch, data_decoder, options: ReadOptions) -> DecodedRecord | None:
    decode = decode_control if batch.is_control else data_decoder
    if decode is None:
        return None
    try:
        return decode(record)
    except KwireError as err:
        if options.skip_undecodable:
            return None
        if isinstance(err, DecodeError):  # its offset is inside the record: point at the batch
            raise type(err)(
                f"{err.reason} (in the record at offset {record.offset}{_at(err)})", path=err.path,
                offset=batch.position,
            ) from None
        raise


def _at(err: DecodeError) -> str:
    return "" if err.offset is None else f", byte {err.offset} of its key or value"


def _read_bytes(piece: Piece) -> bytes:
    return read_range(piece.file, piece.start, piece.end)  # a local file, or a ranged GET (storage.py)


def _judged(data: bytes, position: int, piece: Piece, err: DecodeError | None = None) -> damage.DamagedFileError:
    """The damage as :mod:`kwire.logs.damage` judges it for every command: of the whole file when it is
    local (its first damage, which may lie before this piece), else of the entry at ``data[position]``,
    its offset counted from the start of the file."""
    if piece.file.filesystem is None and os.path.isfile(piece.file.path):
        found = damage.diagnose(piece.file.path)
        if found is not None:
            return found
    length = int.from_bytes(data[position + 8:position + 12], "big", signed=True) if len(data) >= position + 12 else 0
    entry = bytes(data[position:position + 12 + max(0, length)])
    found = damage.judge_entry(entry, position, len(data) - position, file=piece.file.path, err=err)
    return damage.DamagedFileError(found.damage, found.detail, file=piece.file.path, offset=piece.start + position)
