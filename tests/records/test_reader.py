"""Iteration over back-to-back batches in buffers, regions of buffers, and files."""
from __future__ import annotations

import io
import struct
import tracemalloc

import pytest

from kwire.records import (
    BatchReader,
    Codec,
    FileBatchReader,
    LegacyBatch,
    RecordBatch,
    RecordBatchBuilder,
    RecordsView,
    read_entry,
)
from kwire.wire.errors import CorruptRecordError, DecodeError
from tests.packages import KpLegacyBuilder


def batch(base_offset: int, n: int, codec=Codec.NONE) -> bytes:
    builder = RecordBatchBuilder(base_offset=base_offset, codec=codec)
    for i in range(n):
        builder.append(1_000 + i, b"k%d" % (base_offset + i), b"v" * i)
    return builder.build()


def legacy(offset: int) -> bytes:
    builder = KpLegacyBuilder(1, 0, 10**6)
    builder.append(offset, 5, b"legacy", b"message")
    return bytes(builder.build())


STREAM = batch(0, 3) + batch(3, 2, Codec.GZIP) + legacy(5) + batch(6, 4, Codec.ZSTD)
OFFSETS = list(range(10))


def offsets(batches) -> list[int]:
    return [r.offset for b in batches for r in b]


def partial_view(data: bytes) -> memoryview:
    return memoryview(b"pad" + data)[3:]


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview, partial_view], ids=lambda w: w.__name__)
def test_mixed_formats_and_buffer_types(wrap):
    reader = BatchReader(wrap(STREAM))
    batches = list(reader)
    assert [type(b) for b in batches] == [RecordBatch, RecordBatch, LegacyBatch, RecordBatch]
    assert offsets(batches) == OFFSETS
    assert [r.key for r in BatchReader(wrap(STREAM)).records()][:3] == [b"k0", b"k1", b"k2"]
    assert reader.truncated_at is None and reader.position == len(STREAM)


def test_truncated_tail_is_reported_not_raised():
    for cut in range(1, len(STREAM)):
        reader = BatchReader(STREAM[:cut])
        complete = list(reader)
        consumed = sum(b.size_in_bytes for b in complete)
        assert reader.position == consumed
        assert reader.truncated_at == (None if consumed == cut else consumed)
        assert reader.truncated_bytes == cut - consumed


def test_region_end_is_respected():
    frame = b"HEAD" + STREAM + b"TAIL-BYTES-NOT-RECORDS"
    start, end = 4, 4 + len(STREAM)
    assert offsets(BatchReader(frame, start, end)) == OFFSETS
    # Cutting the region inside the last batch: the bytes after `end` are never used.
    reader = BatchReader(frame, start, end - 1)
    assert offsets(reader) == OFFSETS[:6] and reader.truncated_at == start + len(STREAM) - len(batch(6, 4, Codec.ZSTD))
    with pytest.raises(DecodeError, match="truncated"):  # no borrowing bytes beyond the region
        read_entry(frame, start, start + len(batch(0, 3)) - 1)


def test_records_view_is_lazy_and_zero_copy():
    frame = b"\x00" * 10 + STREAM + b"\x00" * 5
    view = RecordsView(frame, 10, 10 + len(STREAM))
    assert len(view) == len(STREAM)
    assert bytes(view) == STREAM and view == STREAM
    assert view.raw.obj is frame  # a window on the caller's buffer
    batches = list(view)
    assert offsets(batches) == OFFSETS
    assert all(b.raw.obj is frame for b in batches)
    assert [r.offset for r in view.records()] == OFFSETS
    reader = view.batches()
    list(reader)
    assert reader.truncated_at is None


def test_file_reader_reports_file_positions(tmp_path):
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(STREAM + batch(10, 2)[:-3])
    reader = FileBatchReader(path)
    assert offsets(reader) == OFFSETS
    assert reader.truncated_at == len(STREAM)
    assert reader.position == len(STREAM)


def test_file_reader_from_an_open_file_at_an_offset():
    file = io.BytesIO(b"JUNK" + STREAM)
    file.seek(4)
    reader = FileBatchReader(file)
    assert offsets(reader) == OFFSETS and reader.truncated_at is None


def test_file_reader_errors_point_into_the_file(tmp_path):
    second_at = len(batch(0, 3))
    data = bytearray(STREAM)
    data[second_at + 40] ^= 0xFF
    path = tmp_path / "corrupt.log"
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptRecordError, match="base offset 3") as info:
        list(FileBatchReader(path))
    assert info.value.offset == second_at


def test_huge_size_field_does_not_allocate_it(tmp_path):
    path = tmp_path / "liar.log"
    path.write_bytes(batch(0, 1) + struct.pack(">qi", 1, 2**31 - 1) + b"\x00" * 100)
    tracemalloc.start()
    try:
        reader = FileBatchReader(path)
        assert offsets(reader) == [0]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert reader.truncated_at == len(batch(0, 1))
    assert peak < 4 << 20
    in_memory = BatchReader(path.read_bytes())
    assert offsets(in_memory) == [0] and in_memory.truncated_at == len(batch(0, 1))


@pytest.mark.parametrize("start, end", [(-1, None), (5, 4), (0, len(STREAM) + 1)])
def test_regions_outside_the_buffer_are_refused(start, end):
    with pytest.raises(DecodeError, match="outside"):
        BatchReader(STREAM, start, end)
    with pytest.raises(DecodeError, match="outside"):
        read_entry(STREAM, start, end)
    with pytest.raises(DecodeError, match="outside"):
        RecordsView(STREAM, start, end)


def test_reprs_do_not_decode():
    first, legacy_batch = list(BatchReader(batch(0, 1) + legacy(1)))
    assert repr(first).startswith("RecordBatch(base_offset=0, records=1, compression=NONE")
    assert repr(legacy_batch).startswith("LegacyBatch(offset=1, magic=1")


# --- a truncated tail, or a damaged size that only looks like one ------------------------------------

@pytest.mark.parametrize("source", ["buffer", "file"])
def test_a_size_running_past_the_end_with_batches_after_it_is_corruption(source):
    first, second, third = batch(0, 2), batch(2, 2), batch(4, 2)
    data = bytearray(first + second + third)
    data[len(first) + 8:len(first) + 12] = struct.pack(">i", 10_000)  # second's size: past the end
    reader = BatchReader(bytes(data)) if source == "buffer" else FileBatchReader(io.BytesIO(bytes(data)))
    with pytest.raises(CorruptRecordError, match=f"valid batch starts {len(second)} bytes after this entry") as info:
        list(reader)
    assert info.value.offset == len(first)


@pytest.mark.parametrize("source", ["buffer", "file"])
def test_a_cut_last_batch_is_a_truncated_tail_with_its_size(source):
    whole = batch(0, 2) + batch(2, 2)
    cut = whole + batch(4, 3)[:-9]
    reader = BatchReader(cut) if source == "buffer" else FileBatchReader(io.BytesIO(cut))
    assert [b.base_offset for b in reader] == [0, 2]
    assert (reader.truncated_at, reader.truncated_bytes) == (len(whole), len(cut) - len(whole))
