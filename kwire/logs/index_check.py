"""The index checks of ``kafka-dump-log``: ``--index-sanity-check`` (what a broker checks at start
before it trusts an index, else rebuilds it) and ``--verify-index-only`` (each entry against the log).

Followed: Kafka 3.9's ``OffsetIndex.sanityCheck``, ``TimeIndex.sanityCheck`` (storage/.../log/) and
``DumpLogSegments.dumpIndex``/``dumpTimeIndex``/``TimeIndexDumpErrors`` (core/.../tools/), with their
messages. An index is read as Kafka maps it: ``length // entry size`` entries (a partial entry at the
end is what the sanity check reports), relative offsets as signed 32-bit numbers; the walk stops at an
entry whose offset is the base offset after the first (the zeros a crash leaves in a preallocated
file). Each finding is a :class:`IndexFinding` with Kafka's words and the byte offset of the entry.
"""
from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kwire.logs.logdir import INDEX_SUFFIX, LOG_SUFFIX, parse_numbered_file_name

OFFSET_ENTRY = struct.Struct(">ii")  # relative offset, position
TIME_ENTRY = struct.Struct(">qi")  # timestamp, relative offset
NO_TIMESTAMP = -1
_V2_LAST_OFFSET_DELTA_AT = 23  # baseOffset 8, length 4, leader epoch 4, magic 1, crc 4, attributes 2
_MAGIC_AT = 16


@dataclass(frozen=True)
class IndexFinding:
    reason: str  # Kafka's words
    position: int | None = None  # byte offset in the index file


def _base_offset(path: Path) -> int:
    """``file.getName.split("\\.")(0).toLong``: the number before the first dot."""
    numbered = parse_numbered_file_name(path.name.split(".")[0] + INDEX_SUFFIX)
    return numbered[0] if numbered else 0


def _entries(path: Path, entry: struct.Struct) -> list[tuple[int, int]]:
    data = path.read_bytes()
    count = len(data) // entry.size
    return [entry.unpack_from(data, i * entry.size) for i in range(count)]


def sanity_check(path: str | os.PathLike, kind: str) -> IndexFinding | None:
    """``OffsetIndex.sanityCheck`` (``kind`` ``offset-index``) or ``TimeIndex.sanityCheck``
    (``time-index``): None when the index passes, else Kafka's CorruptIndexException message."""
    path = Path(path)
    absolute = path.absolute()
    base = _base_offset(path)
    length = path.stat().st_size
    if kind == "offset-index":
        entries = _entries(path, OFFSET_ENTRY)
        last_offset = base + entries[-1][0] if entries else base
        if entries and last_offset < base:
            return IndexFinding(f"Corrupt index found, index file {absolute} has non-zero size but the last offset is "
                                f"{last_offset} which is less than the base offset {base}",
                                (len(entries) - 1) * OFFSET_ENTRY.size)
        if length % OFFSET_ENTRY.size:
            return IndexFinding(f"Index file {absolute} is corrupt, found {length} bytes which is neither positive "
                                f"nor a multiple of {OFFSET_ENTRY.size}", length - length % OFFSET_ENTRY.size)
        return None
    entries = _entries(path, TIME_ENTRY)
    last_timestamp, last_offset = (entries[-1][0], base + entries[-1][1]) if entries else (NO_TIMESTAMP, base)
    last_at = (len(entries) - 1) * TIME_ENTRY.size
    if entries and last_timestamp < entries[0][0]:
        return IndexFinding(f"Corrupt time index found, time index file ({absolute}) has non-zero size but the last "
                            f"timestamp is {last_timestamp} which is less than the first timestamp {entries[0][0]}",
                            last_at)
    if entries and last_offset < base:
        return IndexFinding(f"Corrupt time index found, time index file ({absolute}) has non-zero size but the last "
                            f"offset is {last_offset} which is less than the first offset {base}", last_at)
    if length % TIME_ENTRY.size:
        return IndexFinding(f"Time index file {absolute} is corrupt, found {length} bytes which is neither positive "
                            f"nor a multiple of {TIME_ENTRY.size}", length - length % TIME_ENTRY.size)
    return None


def index_is_empty(path: str | os.PathLike) -> bool:
    """``index.entries == 0``: fewer bytes than one entry (``dumpIndex`` then prints ``FILE is empty.``)."""
    return Path(path).stat().st_size < OFFSET_ENTRY.size


def _segment_of(path: Path) -> Path:
    return path.absolute().parent / (path.name.split(".")[0] + LOG_SUFFIX)


def _last_offset_at(log: Path, position: int) -> int | None:
    """The last offset of the batch at ``position`` of ``log`` (a legacy message's own offset), or None."""
    with open(log, "rb") as file:
        file.seek(position)
        header = file.read(_V2_LAST_OFFSET_DELTA_AT + 4)
    if len(header) <= _MAGIC_AT:
        return None
    base = struct.unpack_from(">q", header)[0]
    if header[_MAGIC_AT] == 2:
        if len(header) < _V2_LAST_OFFSET_DELTA_AT + 4:
            return None
        return base + struct.unpack_from(">i", header, _V2_LAST_OFFSET_DELTA_AT)[0]
    return base


def _walk(entries: list[tuple[int, int]], base: int, relative_at: int) -> Iterator[tuple[int, tuple[int, int]]]:
    """The entries Kafka's dump walks: it stops at one whose offset is the base offset after the first."""
    for i, entry in enumerate(entries):
        if i > 0 and base + entry[relative_at] == base:
            return
        yield i, entry


def verify_offset_index(path: str | os.PathLike) -> list[IndexFinding]:
    """``dumpIndex``'s check: each entry's offset is the last offset of the batch at its position.
    Kafka lists the mismatches under ``Mismatches in :FILE``, newest first."""
    path = Path(path)
    log = _segment_of(path)
    if not log.is_file():
        return [IndexFinding(f"cannot verify: {log} (the segment of this index) does not exist")]
    base = _base_offset(path)
    findings = []
    for i, (relative, position) in _walk(_entries(path, OFFSET_ENTRY), base, 0):
        found = _last_offset_at(log, position)
        if found != base + relative:
            shown = found if found is not None else f"none (no batch at position {position} of {log.name})"
            findings.append(IndexFinding(f"Index offset: {base + relative}, log offset: {shown}",
                                         i * OFFSET_ENTRY.size))
    return list(reversed(findings))


def verify_time_index(path: str | os.PathLike) -> list[IndexFinding]:
    """``dumpTimeIndex``'s checks (``TimeIndexDumpErrors``): each entry's offset is the last offset of a
    batch, its timestamp that batch's largest record timestamp, timestamps in order."""
    from kwire.records import FileBatchReader

    path = Path(path)
    log = _segment_of(path)
    offset_index = log.with_name(log.name[:-len(LOG_SUFFIX)] + INDEX_SUFFIX)
    if not log.is_file():
        return [IndexFinding(f"cannot verify: {log} (the segment of this index) does not exist")]
    base = _base_offset(path)
    offsets = [(base + r, p) for r, p in _entries(offset_index, OFFSET_ENTRY)] if offset_index.is_file() else []
    findings: list[IndexFinding] = []
    previous = NO_TIMESTAMP
    for i, (timestamp, relative) in _walk(_entries(path, TIME_ENTRY), base, 1):
        offset = base + relative
        at = i * TIME_ENTRY.size
        position = max((p for o, p in offsets if o <= offset), default=0)  # OffsetIndex.lookup
        with open(log, "rb") as file:
            file.seek(position)
            batch = next((b for b in FileBatchReader(file, verify_crc=False) if b.last_offset >= offset), None)
            if batch is None:
                findings.append(IndexFinding(f"Indexed offset: {offset}, found log offset: -1", at))
            elif batch.last_offset != offset:
                findings.append(IndexFinding(f"Indexed offset: {offset}, found log offset: {batch.last_offset}", at))
            else:
                largest = max((r.timestamp for r in batch.records), default=NO_TIMESTAMP)
                if largest != timestamp:
                    findings.append(IndexFinding(f"Found timestamp mismatch: Index timestamp: {timestamp}, log "
                                                 f"timestamp: {largest}", at))
                if previous >= timestamp:
                    findings.append(IndexFinding(f"Found out of order timestamp: Index timestamp: {timestamp}, "
                                                 f"Previously indexed timestamp: {previous}", at))
        previous = timestamp
    return findings
