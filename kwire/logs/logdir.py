"""The files of a partition directory besides the batches: names, indexes, producer state.

A partition directory ``<topic>-<partition>`` holds, per segment with base offset B (written as
20 digits): ``B.log`` (the batches), ``B.index``, ``B.timeindex``, ``B.txnindex``, and producer
state snapshots ``O.snapshot``. The binary layouts, all big-endian (Kafka's storage module):

* ``.index``: 8-byte entries, relative offset int32 (offset - B) | file position int32;
* ``.timeindex``: 12-byte entries, timestamp int64 | relative offset int32;
* ``.txnindex``: 34-byte aborted transactions, version int16 (0) | producerId int64 |
  firstOffset int64 | lastOffset int64 | lastStableOffset int64;
* ``.snapshot`` (ProducerStateManager): version int16 (1) | crc uint32 | entry count int32 |
  entries of producerId int64, epoch int16, lastSequence int32, lastOffset int64, offsetDelta
  int32, timestamp int64, coordinatorEpoch int32, currentTxnFirstOffset int64. The CRC-32C
  covers everything after the crc field.

Index files are preallocated and trimmed on a clean shutdown; after a crash they end in zeros.
As Kafka's ``kafka-dump-log`` does, reading stops at the first all-zero entry after the first.
"""
from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from crc32c import crc32c

from kwire.wire.errors import CorruptRecordError, DecodeError, EncodeError

LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIME_INDEX_SUFFIX = ".timeindex"
TXN_INDEX_SUFFIX = ".txnindex"
PRODUCER_SNAPSHOT_SUFFIX = ".snapshot"
PRODUCER_SNAPSHOT_VERSION = 1

_OFFSET_ENTRY = struct.Struct(">ii")
_TIME_ENTRY = struct.Struct(">qi")
_TXN_ENTRY = struct.Struct(">hqqqq")
_PRODUCER_HEADER = struct.Struct(">hIi")
_PRODUCER_ENTRY = struct.Struct(">qhiqiqiq")
_CRC_START = 6  # after version int16 and crc uint32
_NUMBERED_NAME = re.compile(r"^(\d{20})(\.[a-z]+)$")
_PARTITION_DIR = re.compile(r"^(.+)-(\d+)$")


# ------------------------------------------------------------------------------------ file names


def segment_file_name(base_offset: int, suffix: str = LOG_SUFFIX) -> str:
    return f"{base_offset:020d}{suffix}"


def parse_numbered_file_name(name: str) -> tuple[int, str] | None:
    """``(offset, suffix)`` of a name like ``00000000000000000042.index``, else None."""
    match = _NUMBERED_NAME.match(name)
    return (int(match.group(1)), match.group(2)) if match else None


def parse_segment_file_name(name: str) -> int | None:
    """The base offset of a ``.log`` segment name, else None."""
    parsed = parse_numbered_file_name(name)
    return parsed[0] if parsed and parsed[1] == LOG_SUFFIX else None


def parse_partition_dir_name(name: str) -> tuple[str, int] | None:
    """``(topic, partition)`` of a directory name like ``__consumer_offsets-7``, else None."""
    match = _PARTITION_DIR.match(name)
    return (match.group(1), int(match.group(2))) if match else None


def _base_offset_of(source) -> int:
    if isinstance(source, (str, os.PathLike)):
        parsed = parse_numbered_file_name(Path(source).name)
        if parsed:
            return parsed[0]
    return 0


def _read_all(source) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    return Path(source).read_bytes()


def _whole_entries(data: bytes, entry_size: int, what: str) -> int:
    count, left = divmod(len(data), entry_size)
    if left:
        raise CorruptRecordError(
            f"{what} of {len(data)} bytes is not a whole number of {entry_size}-byte entries",
            offset=count * entry_size,
        )
    return count


# ------------------------------------------------------------------------------------- indexes


@dataclass(frozen=True)
class OffsetIndexEntry:
    """One ``.index`` entry (Kafka's ``OffsetPosition``): an offset and its byte position in the segment."""

    offset: int
    position: int


@dataclass(frozen=True)
class TimeIndexEntry:
    """One ``.timeindex`` entry (Kafka's ``TimestampOffset``): the biggest timestamp seen before ``offset``."""

    timestamp: int
    offset: int


def read_offset_index(source, base_offset: int | None = None) -> list[OffsetIndexEntry]:
    """The entries of an ``.index`` file (path or bytes); the base offset defaults to the file name's."""
    base, rows = _index_rows(source, base_offset, _OFFSET_ENTRY, "offset index")
    return [OffsetIndexEntry(base + relative, position) for relative, position in rows]


def read_time_index(source, base_offset: int | None = None) -> list[TimeIndexEntry]:
    """The entries of a ``.timeindex`` file (path or bytes)."""
    base, rows = _index_rows(source, base_offset, _TIME_ENTRY, "time index")
    return [TimeIndexEntry(timestamp, base + relative) for timestamp, relative in rows]


def _index_rows(source, base_offset: int | None, layout: struct.Struct, what: str) -> tuple[int, list[tuple]]:
    """The base offset (by default the file name's) and the entries of an index file as tuples,
    up to the first all-zero entry after the first (preallocated space left by an unclean shutdown)."""
    base = _base_offset_of(source) if base_offset is None else base_offset
    data = _read_all(source)
    rows = []
    for i in range(_whole_entries(data, layout.size, what)):
        row = layout.unpack_from(data, i * layout.size)
        if i and not any(row):
            break
        rows.append(row)
    return base, rows


def _pack_all(layout: struct.Struct, rows, what: str) -> bytes:
    """The rows packed one after another; a value out of the layout's range is an EncodeError."""
    try:
        return b"".join(layout.pack(*row) for row in rows)
    except struct.error as exc:
        raise EncodeError(f"{what} out of range: {exc}") from None


def _relative(offset: int, base_offset: int) -> int:
    relative = offset - base_offset
    if not 0 <= relative <= 0x7FFFFFFF:
        raise EncodeError(f"offset {offset} is not within an int32 of the base offset {base_offset}")
    return relative


def encode_offset_index(entries: list[OffsetIndexEntry], base_offset: int) -> bytes:
    return _pack_all(_OFFSET_ENTRY, ((_relative(e.offset, base_offset), e.position) for e in entries),
                     "offset index entry")


def encode_time_index(entries: list[TimeIndexEntry], base_offset: int) -> bytes:
    return _pack_all(_TIME_ENTRY, ((e.timestamp, _relative(e.offset, base_offset)) for e in entries),
                     "time index entry")


# ---------------------------------------------------------------------------- transaction index


@dataclass(frozen=True)
class AbortedTransaction:
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int
    version: int = 0


def read_transaction_index(source) -> list[AbortedTransaction]:
    data = _read_all(source)
    entries = []
    for i in range(_whole_entries(data, _TXN_ENTRY.size, "transaction index")):
        version, producer_id, first, last, stable = _TXN_ENTRY.unpack_from(data, i * _TXN_ENTRY.size)
        if version != 0:  # Kafka's AbortedTxn knows version 0 only
            raise CorruptRecordError(f"aborted transaction entry has unknown version {version}",
                                     offset=i * _TXN_ENTRY.size)
        entries.append(AbortedTransaction(producer_id, first, last, stable, version))
    return entries


def encode_transaction_index(entries: list[AbortedTransaction]) -> bytes:
    return _pack_all(_TXN_ENTRY, ((e.version, e.producer_id, e.first_offset, e.last_offset, e.last_stable_offset)
                                  for e in entries), "aborted transaction entry")


# ----------------------------------------------------------------------- producer state snapshot


@dataclass(frozen=True)
class ProducerSnapshotEntry:
    """One producer's state; ``last_offset`` -1 means no batch is known (only a marker)."""

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_offset: int
    offset_delta: int
    timestamp: int
    coordinator_epoch: int
    current_txn_first_offset: int  # -1 when no transaction is open

    @property
    def first_sequence(self) -> int:
        """The first sequence of the last batch (sequences wrap at the int32 maximum)."""
        if self.last_sequence < self.offset_delta:
            return 0x7FFFFFFF - (self.offset_delta - self.last_sequence) + 1
        return self.last_sequence - self.offset_delta


def read_producer_snapshot(source) -> list[ProducerSnapshotEntry]:
    """The entries of a producer-state ``.snapshot`` file (path or bytes), CRC checked."""
    data = _read_all(source)
    if len(data) < _PRODUCER_HEADER.size:
        raise DecodeError(f"producer snapshot of {len(data)} bytes is shorter than its "
                          f"{_PRODUCER_HEADER.size}-byte header", offset=0)
    version, crc, count = _PRODUCER_HEADER.unpack_from(data)
    if version != PRODUCER_SNAPSHOT_VERSION:
        raise DecodeError(f"producer snapshot has unknown version {version}", offset=0)
    computed = crc32c(memoryview(data)[_CRC_START:])
    if crc != computed:
        raise CorruptRecordError(
            f"producer snapshot CRC-32C mismatch: stored 0x{crc:08x}, computed 0x{computed:08x}", offset=2
        )
    body = len(data) - _PRODUCER_HEADER.size
    if count < 0 or count * _PRODUCER_ENTRY.size != body:
        raise DecodeError(
            f"producer snapshot claims {count} entries but has {body} bytes of entries "
            f"({_PRODUCER_ENTRY.size} per entry)", offset=6,
        )
    return [
        ProducerSnapshotEntry(*_PRODUCER_ENTRY.unpack_from(data, _PRODUCER_HEADER.size + i * _PRODUCER_ENTRY.size))
        for i in range(count)
    ]


def encode_producer_snapshot(entries: list[ProducerSnapshotEntry]) -> bytes:
    try:
        body = struct.pack(">i", len(entries)) + b"".join(
            _PRODUCER_ENTRY.pack(
                e.producer_id, e.producer_epoch, e.last_sequence, e.last_offset, e.offset_delta,
                e.timestamp, e.coordinator_epoch, e.current_txn_first_offset,
            )
            for e in entries
        )
    except struct.error as exc:
        raise EncodeError(f"producer snapshot entry out of range: {exc}") from None
    return struct.pack(">hI", PRODUCER_SNAPSHOT_VERSION, crc32c(body)) + body
