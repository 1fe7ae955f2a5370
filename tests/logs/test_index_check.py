"""``kwire dump`` with kafka-dump-log's options: ``--index-sanity-check``, ``--verify-index-only``,
``--max-bytes``, ``--skip-record-metadata``, ``--print-data-log``.

Expected messages are Kafka 3.9's (OffsetIndex/TimeIndex.sanityCheck, DumpLogSegments and its
TimeIndexDumpErrors; DumpLogSegmentsTest.testDumpEmptyIndex for ``FILE is empty.`` and
testPrintDataLogPartialBatches for --max-bytes: the batches that end within the bytes, nothing else).
"""
from __future__ import annotations

import json

import pytest

from kwire.cli.main import main
from kwire.logs.logdir import (
    OffsetIndexEntry,
    TimeIndexEntry,
    encode_offset_index,
    encode_time_index,
)
from kwire.records import RecordBatchBuilder

T0 = 1_700_000_000_000


def _segment(directory):
    """Three batches of two records at base offset 100: lastOffsets 101, 103, 105."""
    partition = directory / "orders-0"
    partition.mkdir()
    data, positions = b"", []
    for n in range(3):
        batch = RecordBatchBuilder(base_offset=100 + 2 * n)
        batch.append(T0 + 10 * n, b"k", b"v1")
        batch.append(T0 + 10 * n + 5, b"k", b"v2")
        positions.append(len(data))
        data += batch.build()
    (partition / "00000000000000000100.log").write_bytes(data)
    return partition, positions, data


def _run(capsys, *args):
    code = main(["dump", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_sanity_check_passes_and_fails_in_kafkas_words(tmp_path, capsys):
    partition, positions, _ = _segment(tmp_path)
    index = partition / "00000000000000000100.index"
    index.write_bytes(encode_offset_index([OffsetIndexEntry(101, positions[0]), OffsetIndexEntry(105, positions[2])],
                                          100))
    code, out, _ = _run(capsys, "--index-sanity-check", str(index))
    assert code == 0 and f"{index} passed sanity check." in out.splitlines()
    index.write_bytes(index.read_bytes() + b"\x00\x00\x00")  # 19 bytes: not a multiple of 8
    code, out, err = _run(capsys, "--index-sanity-check", str(index))
    assert code == 1
    assert (f"{index}: file position 16: Index file {index.absolute()} is corrupt, found 19 bytes which is neither "
            f"positive nor a multiple of 8") in err
    index.write_bytes((-1).to_bytes(4, "big", signed=True) + bytes(4))  # last offset 99 < base 100
    _, _, err = _run(capsys, "--index-sanity-check", str(index))
    assert (f"Corrupt index found, index file {index.absolute()} has non-zero size but the last offset is 99 which "
            f"is less than the base offset 100") in err
    index.write_bytes(b"")
    assert f"{index} is empty." in _run(capsys, "--index-sanity-check", str(index))[1].splitlines()


def test_time_index_sanity_check(tmp_path, capsys):
    partition, _, _ = _segment(tmp_path)
    time_index = partition / "00000000000000000100.timeindex"
    time_index.write_bytes(encode_time_index([TimeIndexEntry(T0 + 5, 101), TimeIndexEntry(T0 + 25, 105)], 100))
    assert f"{time_index} passed sanity check." in _run(capsys, "--index-sanity-check", str(time_index))[1]
    time_index.write_bytes(encode_time_index([TimeIndexEntry(T0 + 25, 101), TimeIndexEntry(T0 + 5, 105)], 100))
    code, _, err = _run(capsys, "--index-sanity-check", str(time_index))
    assert code == 1 and (f"Corrupt time index found, time index file ({time_index.absolute()}) has non-zero size but "
                          f"the last timestamp is {T0 + 5} which is less than the first timestamp {T0 + 25}") in err
    time_index.write_bytes(encode_time_index([TimeIndexEntry(T0 + 5, 101)], 100) + bytes(11))
    _, _, err = _run(capsys, "--index-sanity-check", str(time_index))
    assert f"Time index file {time_index.absolute()} is corrupt, found 23 bytes which is neither positive nor a " \
           f"multiple of 12" in err


def test_verify_index_only(tmp_path, capsys):
    partition, positions, _ = _segment(tmp_path)
    index = partition / "00000000000000000100.index"
    time_index = partition / "00000000000000000100.timeindex"
    index.write_bytes(encode_offset_index([OffsetIndexEntry(101, positions[0]), OffsetIndexEntry(105, positions[2])],
                                          100))
    time_index.write_bytes(encode_time_index([TimeIndexEntry(T0 + 5, 101), TimeIndexEntry(T0 + 25, 105)], 100))
    code, out, err = _run(capsys, "--verify-index-only", str(index), str(time_index))
    assert (code, err) == (0, "")
    assert "offset: 101" not in out  # the entries are not listed
    # an entry pointing at the second batch for offset 105; a time index entry off the batch ends
    index.write_bytes(encode_offset_index([OffsetIndexEntry(101, positions[0]), OffsetIndexEntry(105, positions[1])],
                                          100))
    time_index.write_bytes(encode_time_index([TimeIndexEntry(T0 + 5, 101), TimeIndexEntry(T0 + 99, 103),
                                              TimeIndexEntry(T0 + 20, 104)], 100))
    code, out, err = _run(capsys, "--verify-index-only", str(index), str(time_index))
    assert code == 1
    assert f"{index}: file position 8: Index offset: 105, log offset: 103" in err
    assert f"{time_index}: file position 12: Found timestamp mismatch: Index timestamp: {T0 + 99}, log timestamp: " \
           f"{T0 + 15}" in err
    assert f"{time_index}: file position 24: Indexed offset: 104, found log offset: 105" in err
    (partition / "00000000000000000100.log").unlink()
    _, _, err = _run(capsys, "--verify-index-only", str(index))
    assert "cannot verify:" in err and "does not exist" in err


def test_out_of_order_time_index(tmp_path, capsys):
    partition, _, _ = _segment(tmp_path)
    time_index = partition / "00000000000000000100.timeindex"
    time_index.write_bytes(encode_time_index([TimeIndexEntry(T0 + 15, 103), TimeIndexEntry(T0 + 5, 101)], 100))
    _, _, err = _run(capsys, "--verify-index-only", str(time_index))
    assert f"Found out of order timestamp: Index timestamp: {T0 + 5}, Previously indexed timestamp: {T0 + 15}" in err


@pytest.mark.parametrize("cut, batches", [(0, None), (1, 0), ("end0", 1), ("end0+1", 1), ("end1", 2), ("all", 3)])
def test_max_bytes_reads_the_batches_that_end_within(tmp_path, capsys, cut, batches):
    partition, positions, data = _segment(tmp_path)
    ends = [*positions[1:], len(data)]
    limit = {"end0": ends[0], "end0+1": ends[0] + 1, "end1": ends[1], "all": len(data)}.get(cut, cut)
    if limit == 0:  # the bound: at least one byte
        with pytest.raises(SystemExit):
            main(["dump", "--max-bytes", "0", str(partition)])
        return
    code, out, err = _run(capsys, "--json", "--max-bytes", str(limit), str(partition / "00000000000000000100.log"))
    events = [json.loads(line) for line in out.splitlines()]
    assert (code, err) == (0, "")  # a cut batch is not damage when the cut was asked for
    assert sum(e["event"] == "batch" for e in events) == batches


def test_skip_record_metadata_and_print_data_log(tmp_path, capsys):
    partition, _, _ = _segment(tmp_path)
    log = str(partition / "00000000000000000100.log")
    _, plain, _ = _run(capsys, log)
    _, skipped, _ = _run(capsys, "--skip-record-metadata", "--print-data-log", log)
    records = [line for line in plain.splitlines() if line.startswith("| ")]
    assert [line for line in skipped.splitlines() if line.startswith("| ")] == [
        "| " + line.split(" ", 5)[5] for line in records]
    assert records[0].startswith("| offset: 100 time: ") and skipped.count('value: "v1"') == 3
