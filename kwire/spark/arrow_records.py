"""Decoding pieces of log files into Arrow record batches of :data:`schemas.RECORD_SCHEMA` rows.

This is the work a Spark task does, and also all of what the single-process reader does, so both
give the same rows by construction; Spark only decides which process reads which piece.

Batches are read with the CRC check off so that a damaged batch still shows, with
``crc_valid = false``; anything that cannot be decoded at all raises a :class:`kwire.wire.errors.KwireError`
naming the file and the byte offset in it.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter

import numpy as np
import pyarrow as pa

from kwire.wire.errors import CorruptRecordError, DecodeError, KwireError
from kwire.records.compression import DEFAULT_MAX_DECOMPRESSED_SIZE, codec_name
from kwire.records.reader import BatchReader, next_batch_after
from kwire.records.record import TimestampType
from kwire.spark import schemas
from kwire.spark.decoders import DecodedRecord, data_record_decoder, decode_control
from kwire.spark.splits import Piece
from kwire.spark.storage import read_range
from kwire.spark.typed import TypedRecord, typed_record

DEFAULT_BATCH_ROWS = 32768

_TIMESTAMP_TYPES = {t: t.name for t in TimestampType}
_offset = attrgetter("offset")
_timestamp = attrgetter("timestamp")
_key = attrgetter("key")
_value = attrgetter("value")


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

    def typed(self) -> TypedRecord | None:
        return None if self.record_type is None else typed_record(self.record_type, self.package)

    def schema(self) -> pa.Schema:
        typed = self.typed()
        return schemas.record_schema(self.decoded, None if typed is None else typed.data_type, self.skip_undecodable)


class _Columns:
    """Column values of the rows gathered so far, turned into Arrow at the end.

    Batch header fields are kept once per batch and spread over the batch's rows by one
    ``take`` per column, which costs far less than repeating Python values row by row.
    """

    def __init__(self, options: ReadOptions) -> None:
        self.options = options
        self.rows = 0
        self.batches: list[tuple] = []  # one tuple of _BATCH_COLUMNS values per batch
        self.counts: list[int] = []  # rows per batch
        self.offset: list = []
        self.timestamp: list = []
        self.key: list = []
        self.value: list = []
        self.header_offsets: list[int] = [0]
        self.header_keys: list = []
        self.header_values: list = []
        self.decoded: list[DecodedRecord | None] = []
        self.skipped_position: list[int | None] = []
        self.skipped_bytes: list[int | None] = []

    def add_skipped(self, position: int, length: int) -> None:
        """A row for bytes ``position`` to ``position + length`` of the file, not decoded."""
        self.rows += 1
        self.counts.append(1)
        self.batches.append((None,) * len(_BATCH_COLUMNS))
        self.offset.append(None)
        self.timestamp.append(None)
        self.key.append(None)
        self.value.append(None)
        self.header_offsets.append(self.header_offsets[-1])
        self.decoded.append(None)
        self.skipped_position.append(position)
        self.skipped_bytes.append(length)

    def add_batch(self, batch, records: list, decoded: list | None) -> None:
        n = len(records)
        self.skipped_position += [None] * n
        self.skipped_bytes += [None] * n
        self.rows += n
        self.counts.append(n)
        self.batches.append((
            batch.base_offset, batch.partition_leader_epoch, batch.producer_id, batch.producer_epoch,
            batch.base_sequence, batch.is_transactional, batch.is_control,
            codec_name(batch.attributes).lower(), batch.crc_valid, _TIMESTAMP_TYPES[batch.timestamp_type],
        ))
        self.offset += map(_offset, records)
        self.timestamp += map(_timestamp, records)
        self.key += map(_key, records)
        self.value += map(_value, records)
        offsets, keys, values = self.header_offsets, self.header_keys, self.header_values
        total = offsets[-1]
        for record in records:
            headers = record.headers
            if headers:
                total += len(headers)
                for name, data in headers:
                    keys.append(name)
                    values.append(data)
            offsets.append(total)
        if decoded is not None:
            self.decoded += decoded

    def to_arrow(self, piece: Piece) -> pa.RecordBatch:
        n = self.rows
        file = piece.file
        arrays = {
            "topic": pa.repeat(pa.scalar(file.topic, pa.string()), n),
            "partition": pa.repeat(pa.scalar(file.partition, pa.int32()), n),
            "file": pa.repeat(pa.scalar(file.path, pa.string()), n),
            "offset": pa.array(self.offset, pa.int64()),
            "timestamp": pa.array(self.timestamp, pa.int64()),
            "key": pa.array(self.key, pa.binary()),
            "value": pa.array(self.value, pa.binary()),
            "headers": pa.ListArray.from_arrays(
                pa.array(self.header_offsets, pa.int32()),
                pa.StructArray.from_arrays(
                    [pa.array(self.header_keys, pa.string()), pa.array(self.header_values, pa.binary())],
                    fields=list(schemas.HEADER_TYPE),
                ),
                type=schemas.RECORD_SCHEMA.field("headers").type,
            ),
        }
        row_batch = pa.array(np.repeat(np.arange(len(self.counts), dtype=np.int32), self.counts))
        for name, values in zip(_BATCH_COLUMNS, zip(*self.batches)):
            arrays[name] = pa.array(values, schemas.RECORD_SCHEMA.field(name).type).take(row_batch)
        options = self.options
        if _decoding(options):
            decoded = self.decoded
            arrays["record_type"] = pa.array([d and d.type_name for d in decoded], pa.string())
            arrays["record_version"] = pa.array([d and d.version for d in decoded], pa.int16())
            arrays["record_json"] = pa.array([d and d.to_json() for d in decoded], pa.string())
        schema = options.schema()
        typed = options.typed()
        if typed is not None:
            arrays[schemas.TYPED_RECORD_COLUMN] = pa.array([typed.convert(d) for d in self.decoded], typed.data_type)
        if options.skip_undecodable:
            arrays["skipped_position"] = pa.array(self.skipped_position, pa.int64())
            arrays["skipped_bytes"] = pa.array(self.skipped_bytes, pa.int64())
        return pa.RecordBatch.from_arrays([arrays[f.name] for f in schema], schema=schema)


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
                records = batch.records
                if not records:
                    continue
                decoded = None
                if _decoding(options):
                    decoded = [_decode_record(r, batch, data_decoder, options) for r in records]
                    if options.record_type is not None:
                        records, decoded = _only_type(records, decoded, options.record_type)
                        if not records:
                            continue
                columns.add_batch(batch, records, decoded)
                if columns.rows >= options.batch_rows:
                    yield columns.to_arrow(piece)
                    columns = _Columns(options)
            if reader.truncated_at is not None:
                if not options.skip_undecodable:
                    raise CorruptRecordError(f"incomplete batch at the end of the file: {reader.truncated_bytes} "
                                             f"bytes not decoded", offset=reader.truncated_at)
                columns.add_skipped(piece.start + reader.truncated_at, reader.truncated_bytes)
        except DecodeError as err:
            if not options.skip_undecodable:
                raise _located(err, piece) from None
            damaged = reader.position  # where the entry that failed starts
            resume = next_batch_after(data, damaged + 1, len(data))
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


def _only_type(records: list, decoded: list, name: str) -> tuple[list, list]:
    keep = [i for i, d in enumerate(decoded) if d is not None and d.type_name == name]
    return [records[i] for i in keep], [decoded[i] for i in keep]


def _read_bytes(piece: Piece) -> bytes:
    return read_range(piece.file, piece.start, piece.end)  # a local file, or a ranged GET (storage.py)


def _located(err: DecodeError, piece: Piece) -> DecodeError:
    """The same error naming the file, with its offset counted from the start of the file."""
    offset = None if err.offset is None else piece.start + err.offset
    return type(err)(f"{err.reason} in {piece.file.path}", path=err.path, offset=offset)
