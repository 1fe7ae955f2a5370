"""Where planning (``kwire.arrow.splits``) cuts files the arrow part's mutation sample left alive
(tests/README.md): a file that shrank while its headers were walked, an entry length at and just
below Kafka's smallest message, and remote segments cut where Kafka's offset index beside them says
batches start.

The batches are kafka-python's (``DefaultRecordBatchBuilder``, ``LegacyRecordBatchBuilder``), so their
starts are the lengths kafka-python wrote. The offset index follows Kafka's own code (apache/kafka
``storage/.../log/OffsetIndex.java``: 8-byte entries, a 4-byte offset relative to the segment's base
offset and a 4-byte position, in a file preallocated with zeros; ``LogSegment.append``: an entry
``(largestOffset, physicalPosition)`` for the batch appended once more than ``index.interval.bytes``
were appended since the last entry). The "remote" segments are listed through ``pyarrow.fs`` on a
``file://`` URI, which is the path object storage takes: ``describe_remote`` and ranged reads."""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.arrow is made of it: without it this module skips (fails under CI)

import itertools
import os
import struct
from pathlib import Path

import pytest

from kwire.arrow import logfiles, splits
from kwire.arrow.pieces import read_pieces
from kwire.arrow.storage import walk_remote
from kwire.logs import damage
from tests.packages import KpBuilder, KpLegacyBuilder, KpMemoryRecords

T0 = 1_700_000_000_000
LOG_OVERHEAD = 12  # baseOffset int64, batchLength int32 (Kafka's Records.LOG_OVERHEAD)
RECORD_OVERHEAD_V0 = 14  # Kafka's LegacyRecord.RECORD_OVERHEAD_V0: the smallest entry a log may hold


def kp_batch(base_offset: int, count: int, size: int = 100) -> bytes:
    """A kafka-python batch of ``count`` records; it writes base offset 0, so the base offset is set
    after (it lies before the range the CRC-32C covers, which starts at the attributes)."""
    builder = KpBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    for i in range(count):
        builder.append(i, T0 + i, b"k%d" % (i % 10), bytes([i % 251]) * size, [])
    data = bytearray(builder.build())
    struct.pack_into(">q", data, 0, base_offset)
    return bytes(data)


def starts_of(entries: list[bytes]) -> list[int]:
    return [0, *itertools.accumulate(len(entry) for entry in entries)][:-1]


def write(path: Path, entries: list[bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(entries))
    return path


@pytest.mark.parametrize("header_left", [LOG_OVERHEAD, LOG_OVERHEAD - 1])
def test_a_file_that_shrank_while_planned_is_cut_where_whole_headers_are_left(tmp_path: Path,
                                                                               header_left: int) -> None:
    """The file is listed, then cut inside its last batch's header (a follower truncating its log):
    with the whole 12-byte header left that batch is a cut, one byte less and it is not, and the
    walk ends there as at a truncated tail. Kills ``kwire.arrow.splits.x_entry_starts__mutmut_14``
    (``break`` -> ``return``: no cuts at all, None)."""
    batches = [kp_batch(10 * n, 10) for n in range(6)]
    assert len({len(b) for b in batches}) == 1  # one length: with every = that length, each start is a cut
    starts = starts_of(batches)
    path = write(tmp_path / "orders-0" / "00000000000000000000.log", batches)
    file = logfiles.describe(path)
    os.truncate(path, starts[-1] + header_left)
    expected = starts[1:] if header_left == LOG_OVERHEAD else starts[1:-1]
    assert splits.entry_starts(file, len(batches[0])) == expected
    assert [(p.start, p.end) for p in splits.pieces_of(file, len(batches[0]))] == list(
        itertools.pairwise([0, *expected, file.size]))


def smallest_message() -> bytes:
    """kafka-python's magic 0 message with a null key and a null value: Kafka's smallest entry."""
    builder = KpLegacyBuilder(0, 0, 1 << 20)
    builder.append(60, None, None, None)
    entry = bytes(builder.build())
    assert struct.unpack_from(">qi", entry) == (60, RECORD_OVERHEAD_V0)
    return entry


@pytest.mark.parametrize("length", [RECORD_OVERHEAD_V0, RECORD_OVERHEAD_V0 - 1])
def test_an_entry_length_at_and_just_below_kafkas_smallest_message(tmp_path: Path, length: int) -> None:
    """A length field of 14 (a whole magic 0 message) is an entry planning cuts at; 13 is refused
    where kafka-python's MemoryRecords refuses it (Kafka's ByteBufferLogInputStream: "Record size
    ... is less than the minimum record overhead (14)"), with the verdict, wording and offset every
    command gives (``damage.diagnose``, the one walk they share). Kills
    ``kwire.arrow.splits.x_entry_starts__mutmut_18`` (the damage class dropped: None)."""
    batches = [kp_batch(10 * n, 10) for n in range(6)]
    message = bytearray(smallest_message())
    struct.pack_into(">i", message, 8, length)
    path = write(tmp_path / "orders-0" / "00000000000000000000.log", [*batches, bytes(message)])
    file = logfiles.describe(path)
    every = len(batches[0])
    at = sum(map(len, batches))
    records = KpMemoryRecords(path.read_bytes())
    if length == RECORD_OVERHEAD_V0:
        read = []
        while records.has_next():
            read.append(records.next_batch())
        assert [b.magic for b in read] == [2] * 6 + [0]  # kafka-python reads the message
        assert splits.entry_starts(file, every) == [*starts_of(batches)[1:], at]
        return
    with pytest.raises(need_module("kafka.errors").CorruptRecordError, match=r"minimum record overhead \(14\)"):
        while records.has_next():
            records.next_batch()
    with pytest.raises(damage.DamagedFileError) as planned:
        splits.entry_starts(file, every)
    found = damage.diagnose(path)
    assert found is not None and found.damage == damage.NOT_A_BATCH
    assert (planned.value.damage, planned.value.offset, str(planned.value)) == (found.damage, at, str(found))


INDEX_INTERVAL_BYTES = 1000  # index.interval.bytes, set low (Kafka's default is 4096) for small segments


def kafka_offset_index(batches: list[bytes], counts: list[int], base_offset: int, preallocated: int) -> bytes:
    """The offset index Kafka writes while appending ``batches`` (``LogSegment.append``), with the
    zero-filled room it preallocates for ``preallocated`` more entries."""
    entries, position, since_last = [], 0, 0
    offset = base_offset
    for batch, count in zip(batches, counts, strict=True):
        largest = offset + count - 1
        if since_last > INDEX_INTERVAL_BYTES:
            entries.append(struct.pack(">ii", largest - base_offset, position))
            since_last = 0
        since_last += len(batch)
        position += len(batch)
        offset += count
    return b"".join(entries) + bytes(8 * preallocated)


def test_remote_segments_are_cut_side_by_side_where_their_offset_index_says(tmp_path: Path) -> None:
    """Two remote segments larger than a split, each with Kafka's offset index beside it, are
    walked side by side (threads) and cut only at indexed positions (every index entry at least a
    split's bytes after the last cut), not at the other batch starts the header walk would take;
    their pieces read as kafka-python reads the segments. Kills
    ``kwire.arrow.splits.x_indexed_starts__mutmut_10`` (``last = None``: the first comparison fails),
    ``x__pieces_of_each__mutmut_27`` (the walked pieces left out of ``zip``) and ``_34`` (``pool.map``
    over None)."""
    expected_cuts, records = {}, {}
    for partition, base in ((0, 100), (1, 5000)):
        counts = [3 + n % 4 for n in range(24)]
        batches, offset = [], base
        for count in counts:
            batches.append(kp_batch(offset, count, size=60))
            offset += count
        segment = write(tmp_path / f"orders-{partition}" / f"{base:020d}.log", batches)
        segment.with_suffix(".index").write_bytes(kafka_offset_index(batches, counts, base, preallocated=5))
        records[segment.name, partition] = [(r.offset, r.key, r.value) for b in kp_read(segment.read_bytes())
                                            for r in b]
    every = 700
    fs, entries = walk_remote(f"file://{tmp_path}")
    listed = {entry.fs_path for entry in entries}
    files = [logfiles.describe_remote(e, fs, listed) for e in entries if e.fs_path.endswith(".log")]
    assert len(files) == 2 and all(f.filesystem is not None and f.size > every and f.offset_index for f in files)
    for file in files:
        index = Path(file.fs_path).with_suffix(".index").read_bytes()
        positions = [position for _, position in struct.iter_unpack(">ii", index) if position > 0]
        cuts, last = [], 0
        for position in positions:
            if position - last >= every:
                cuts.append(position)
                last = position
        assert cuts and cuts != splits.entry_starts(file, every)  # the index, not the header walk, cuts
        assert splits.indexed_starts(file, every) == cuts
        expected_cuts[file.path] = list(itertools.pairwise([0, *cuts, file.size]))
    plan = splits.plan(files, max_split_bytes=every)
    pieces = [piece for split in plan for piece in split]
    assert {f.path: [(p.start, p.end) for p in pieces if p.file == f] for f in files} == expected_cuts
    table = pa_table(read_pieces(pieces))
    for file in files:
        rows = [row for row in table if row["file"] == file.path]
        assert [(r["offset"], r["key"], r["value"]) for r in rows] == records[Path(file.fs_path).name,
                                                                               file.partition]


def kp_read(data: bytes) -> list:
    records = KpMemoryRecords(data)
    batches = []
    while records.has_next():
        batches.append(list(records.next_batch()))
    return batches


def pa_table(batches) -> list[dict]:
    return [row for batch in batches for row in batch.to_pylist()]
