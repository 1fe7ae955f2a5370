"""Kafka record batches: magic 2 read and write, legacy magic 0/1 read, compression, control records.

Reading::

    from kwire.records import BatchReader, decode_batch

    reader = BatchReader(buf)            # bytes / bytearray / memoryview of back-to-back batches
    for batch in reader:                 # RecordBatch (magic 2) or LegacyBatch (magic 0/1)
        for record in batch:             # Record: offset, timestamp, key, value, headers, ...
            ...
    reader.truncated_at                  # position of an incomplete last entry, or None

Writing::

    from kwire.records import Codec, RecordBatchBuilder

    builder = RecordBatchBuilder(base_offset=0, codec=Codec.ZSTD)
    builder.append(timestamp_ms, b"key", b"value", [("header", b"v")])
    wire = builder.build()

Bad input raises only :mod:`kwire.wire.errors` exceptions: :class:`~kwire.wire.errors.CorruptRecordError` for
a wrong CRC (naming the batch's base offset) or broken framing,
:class:`~kwire.wire.errors.DecompressionLimitError` when decompressed data would exceed
``max_decompressed_size``, and :class:`~kwire.wire.errors.DecodeError` for anything truncated,
over-long or negative.

Modules: :mod:`.compression` (codecs and the size cap), :mod:`.record` (Record),
:mod:`.record_codec` (record wire form), :mod:`.batch` (decode a v2 batch), :mod:`.builder`
(write one), :mod:`.legacy` (magic 0/1), :mod:`.control` (control records), :mod:`.reader`
(iteration over buffers and files, RecordsView for ``records`` fields).
"""
from kwire.records.batch import RecordBatch, decode_batch
from kwire.records.builder import RecordBatchBuilder, encode_batch
from kwire.records.compression import (
    DEFAULT_MAX_DECOMPRESSED_SIZE,
    Codec,
    compress,
    decompress,
)
from kwire.records.control import (
    ControlKey,
    ControlRecordType,
    EndTransactionMarker,
    build_end_transaction_batch,
    control_records,
    decode_control_key,
    decode_control_record,
    decode_control_value,
    decode_end_transaction_marker,
    encode_control_key,
    encode_end_transaction_marker,
)
from kwire.records.legacy import LegacyBatch, decode_legacy_message
from kwire.records.reader import (
    BatchReader,
    FileBatchReader,
    RecordsView,
    iter_batches,
    read_entry,
)
from kwire.records.record import NO_TIMESTAMP, Header, Record, TimestampType

__all__ = [
    "DEFAULT_MAX_DECOMPRESSED_SIZE",
    "NO_TIMESTAMP",
    "BatchReader",
    "Codec",
    "ControlKey",
    "ControlRecordType",
    "EndTransactionMarker",
    "FileBatchReader",
    "Header",
    "LegacyBatch",
    "Record",
    "RecordBatch",
    "RecordBatchBuilder",
    "RecordsView",
    "TimestampType",
    "build_end_transaction_batch",
    "compress",
    "control_records",
    "decode_batch",
    "decode_control_key",
    "decode_control_record",
    "decode_control_value",
    "decode_end_transaction_marker",
    "decode_legacy_message",
    "decompress",
    "encode_batch",
    "encode_control_key",
    "encode_end_transaction_marker",
    "iter_batches",
    "read_entry",
]
