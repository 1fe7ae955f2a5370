"""Planning the work: files cut at batch boundaries into pieces, pieces packed into splits.

A file no larger than the split size is one piece. A larger one is cut where a batch starts, found
by reading only the 12 bytes at the front of each entry (``baseOffset int64 | batchLength int32``)
and jumping over the rest, so planning a 1 GB segment reads a few hundred kilobytes. In object
storage each of those headers is one ranged GET of 12 bytes: planning never fetches a whole
segment, but a segment of many small batches costs many requests. So there, when Kafka's offset
index of the segment lies beside it (``N.index`` next to ``N.log``), the cuts come from the index
instead: its entries are (offset, position) pairs whose positions are batch starts, written about
every 4 KiB of log. Each chosen cut is checked against the 12-byte header there (its base offset
must not exceed the entry's offset), and an index that disagrees is ignored for the walk. A cut
that were still wrong could not pass unseen: the piece before it would end inside a batch, which
the reader reports as an incomplete batch. Small pieces
are packed together so that a directory of many tiny segments does not become one task each.

A piece ends either at a batch boundary or at the end of its file; a last entry cut short by a
crash is left to the reader, which stops before it, as Kafka does.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from kwire.arrow.logfiles import LogFile
from kwire.arrow.storage import RangeReader, read_object
from kwire.logs import damage
from kwire.records.legacy import MESSAGE_OVERHEAD_V0
from kwire.records.reader import LOG_OVERHEAD

DEFAULT_SPLIT_BYTES = 32 * 1024 * 1024
MIN_SPLIT_BYTES = 1024 * 1024
_ENTRY_HEADER = struct.Struct(">qi")


@dataclass(frozen=True)
class Piece:
    """Bytes ``start`` to ``end`` of one file: whole entries, except maybe a truncated last one."""

    file: LogFile
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


def split_size(total_bytes: int, max_split_bytes: int = DEFAULT_SPLIT_BYTES, min_splits: int = 1) -> int:
    """How many bytes one split should hold: at most ``max_split_bytes``, and small enough that
    the input makes ``min_splits`` splits (say, one per core), but not below 1 MiB."""
    per_split = -(-total_bytes // max(min_splits, 1))
    return max(min(max_split_bytes, per_split), min(MIN_SPLIT_BYTES, max_split_bytes), 1)


def entry_starts(file: LogFile, every: int) -> list[int]:
    """Positions of entries in ``file`` at which to cut, about ``every`` bytes apart (the first
    entry, at 0, is not listed). Only entry headers are read."""
    cuts = []
    size = file.size
    with RangeReader(file) as reader:
        pos = last_cut = 0
        while pos + LOG_OVERHEAD <= size:
            header = reader.read(pos, LOG_OVERHEAD)
            if len(header) < LOG_OVERHEAD:
                break  # the file shrank under us: stop like a truncated tail
            _, length = _ENTRY_HEADER.unpack(header)
            if length < MESSAGE_OVERHEAD_V0:  # judged and worded as every command does
                raise damage.DamagedFileError(damage.NOT_A_BATCH, f"not a record batch: {damage.not_a_batch(header)}",
                                              file=file.path, offset=pos)
            if pos - last_cut >= every:
                cuts.append(pos)
                last_cut = pos
            pos += LOG_OVERHEAD + length
    return cuts


_INDEX_ENTRY = struct.Struct(">ii")  # offset relative to the segment's base offset, position


def indexed_starts(file: LogFile, every: int) -> list[int] | None:
    """Like :func:`entry_starts`, from the offset index beside a remote segment: None when there
    is none, it holds no entry, or an entry disagrees with the header at its position."""
    if file.offset_index is None or file.base_offset is None:
        return None
    entries = []
    index = read_object(file.filesystem, file.offset_index)
    last = 0
    for relative, position in _INDEX_ENTRY.iter_unpack(index[: len(index) // 8 * 8]):
        if position <= last or position + LOG_OVERHEAD > file.size:
            break  # the zero-filled tail Kafka preallocates, or entries past this copy of the log
        entries.append((file.base_offset + relative, position))
        last = position
    if not entries:
        return None
    cuts = []
    with RangeReader(file) as reader:
        last_cut = 0
        for offset, position in entries:
            if position - last_cut < every:
                continue
            base_offset, length = _ENTRY_HEADER.unpack(reader.read(position, LOG_OVERHEAD))
            if base_offset > offset or length < MESSAGE_OVERHEAD_V0 or position + LOG_OVERHEAD + length > file.size:
                return None
            cuts.append(position)
            last_cut = position
    return cuts


def pieces_of(file: LogFile, every: int) -> list[Piece]:
    """``file`` cut at batch boundaries into pieces of about ``every`` bytes."""
    if file.size <= every:
        return [Piece(file, 0, file.size)]
    cuts = indexed_starts(file, every)
    bounds = [0, *(entry_starts(file, every) if cuts is None else cuts), file.size]
    return [Piece(file, start, end) for start, end in zip(bounds, bounds[1:], strict=False) if end > start]


def plan(files: list[LogFile], max_split_bytes: int = DEFAULT_SPLIT_BYTES, min_splits: int = 1) -> list[list[Piece]]:
    """Splits (lists of pieces) covering every file, in file order."""
    every = split_size(sum(f.size for f in files), max_split_bytes, min_splits)
    splits: list[list[Piece]] = []
    current: list[Piece] = []
    held = 0
    for pieces in _pieces_of_each(files, every):
        for piece in pieces:
            if current and held + piece.size > every:
                splits.append(current)
                current, held = [], 0
            current.append(piece)
            held += piece.size
    if current:
        splits.append(current)
    return splits


REMOTE_PLANNING_THREADS = 8


def _pieces_of_each(files: list[LogFile], every: int) -> list[list[Piece]]:
    """``pieces_of`` every file, in order. Remote files are walked side by side: each header there
    is a request, and waiting for one file's answers need not hold up the others."""
    remote = [f for f in files if f.filesystem is not None and f.size > every]
    if len(remote) < 2:
        return [pieces_of(f, every) for f in files]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(min(REMOTE_PLANNING_THREADS, len(remote)), thread_name_prefix="kwire-plan") as pool:
        walked = dict(zip(map(id, remote), pool.map(lambda f: pieces_of(f, every), remote), strict=False))
    return [walked[id(f)] if id(f) in walked else pieces_of(f, every) for f in files]
