"""kwire.arrow without Spark: ``kwire decode``'s default path, ``iter_record_batches`` and the
JSON-lines form. The rows are checked against ``read_table`` here, which tests/spark/test_decode.py
checks against kafka-python's reader; that the output is the Spark path's, file for file and line
for line, is tests/spark/test_decode.py's ``test_decode_here_writes_what_decode_on_spark_writes``.
"""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.arrow is made of it: without it this module skips (fails under CI)

import json
import os
import subprocess
import sys

import pytest

from kwire.arrow import decode_files
from kwire.arrow.decode_files import SplitFailed, decode_to_directory
from kwire.arrow.output import json_line
from kwire.arrow.reader import iter_record_batches, read_table
from kwire.cli.main import main as kwire_main
from kwire.records import Codec, RecordBatchBuilder
from kwire.wire.files import ExistingFileError
from tests.packages import pa, pq
from tests.paths import KRAFT_361, REPO

SEGMENT = KRAFT_361 / "__cluster_metadata-0" / "00000000000000000000.log"


def parquet_rows(out) -> list[dict]:
    return [row for part in sorted(out.glob("part-*.parquet")) for row in pq.read_table(part).to_pylist()]


def test_a_directory_decodes_to_the_rows_read_table_gives_one_part_per_split(tmp_path, monkeypatch):
    monkeypatch.setattr(decode_files, "IN_PROCESS_BYTES", 0)  # two worker processes for this small input
    out = tmp_path / "out"
    summary = decode_to_directory(str(KRAFT_361), out, jobs=2)
    expected = read_table(str(KRAFT_361)).to_pylist()
    assert parquet_rows(out) == expected  # parts in split order, rows in file order
    assert sorted(p.name for p in out.iterdir()) == ["_SUCCESS", "part-00000.parquet", "part-00001.parquet"]
    assert (summary.files, summary.records, summary.skipped_bytes) == (3, len(expected), 0)
    assert summary.batches == len({(r["file"], r["base_offset"]) for r in expected})
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary directory left


def test_json_lines_leave_nulls_out_and_write_bytes_as_base64():
    row = {"key": None, "value": b"\x00\xff", "headers": [{"key": "h", "value": None}], "offset": 3, "t": "ü"}
    assert json_line(row) == '{"value":"AP8=","headers":[{"key":"h"}],"offset":3,"t":"ü"}\n'


def test_json_output_reads_back_as_the_same_rows(tmp_path):
    out = tmp_path / "json"
    decode_to_directory(str(KRAFT_361 / "bootstrap.checkpoint"), out, "json")
    lines = [json.loads(line) for line in (out / "part-00000.json").read_text().splitlines()]
    assert [line["record_type"] for line in lines] == [
        "SnapshotHeaderRecord", "FeatureLevelRecord", "SnapshotFooterRecord"]


def test_an_existing_output_is_refused_or_replaced_whole(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    with pytest.raises(ExistingFileError):
        decode_to_directory(str(KRAFT_361 / "bootstrap.checkpoint"), out)
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    decode_to_directory(str(KRAFT_361 / "bootstrap.checkpoint"), out, overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["_SUCCESS", "part-00000.parquet"]
    assert oct(out.stat().st_mode & 0o777) == oct(0o777 & ~_umask())  # an ordinary directory, not mkdtemp's 0700


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_input_that_does_not_decode_fails_in_a_worker_and_leaves_the_old_output(tmp_path, monkeypatch):
    monkeypatch.setattr(decode_files, "IN_PROCESS_BYTES", 0)
    folder = tmp_path / "in" / "t-0"
    folder.mkdir(parents=True)
    data = bytearray(SEGMENT.read_bytes())
    data[236 + 8:236 + 12] = b"\x7f\xff\xff\xff"  # the third batch's length: damaged
    (folder / "00000000000000000000.log").write_bytes(bytes(data))
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(SplitFailed, match=r"^DamagedFileError: .*00000000000000000000.log: not a record batch: "
                                          r".*its size field is damaged \(byte offset 236\)"):
        decode_to_directory(str(tmp_path / "in"), out, overwrite=True, jobs=2)
    assert list(out.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["in", "out"]
    summary = decode_to_directory(str(tmp_path / "in"), out, overwrite=True, jobs=2, options={"skip_undecodable": True})
    assert (summary.skipped_ranges, summary.skipped_bytes) == (1, 166)


def test_the_command_decodes_here_by_default(tmp_path, capsys, monkeypatch):
    import kwire.spark.session as session

    def no_spark(*args, **kwargs):
        raise AssertionError("kwire decode of a local path runs without Spark unless asked")

    monkeypatch.setattr(session, "build_session", no_spark)
    monkeypatch.delenv("SPARK_MASTER", raising=False)
    assert kwire_main(["decode", str(KRAFT_361), "--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.endswith("3 files, 18155 batches, 18631 records; 0 bytes not decoded\n")
    monkeypatch.setenv("SPARK_MASTER", "local[1]")  # asks for Spark
    with pytest.raises(AssertionError, match="runs without Spark unless asked"):
        kwire_main(["decode", str(KRAFT_361), "--out", str(tmp_path / "other")])
    monkeypatch.delenv("SPARK_MASTER")
    with pytest.raises(AssertionError, match="runs without Spark unless asked"):
        kwire_main(["decode", str(KRAFT_361), "--out", str(tmp_path / "other"), "--spark"])
    assert kwire_main(["decode", str(KRAFT_361), "--out", str(tmp_path / "x"), "--record-type", "NoSuchRecord"]) == 2
    assert "NoSuchRecord" in capsys.readouterr().err


def test_iter_record_batches_streams_a_batch_at_a_time(tmp_path):
    builder = RecordBatchBuilder(codec=Codec.LZ4)
    for i in range(1000):
        builder.append(1700000000000 + i, b"k%d" % i, b"v" * 10)
    (tmp_path / "t-0").mkdir()
    (tmp_path / "t-0" / "00000000000000000000.log").write_bytes(builder.build() * 5)  # same offsets: fine here
    batches = iter_record_batches(str(tmp_path), batch_rows=700)
    first = next(batches)  # a generator: rows come before the rest is decoded
    sizes = [first.num_rows, *(b.num_rows for b in batches)]
    assert max(sizes) <= 700 + 1000 and sum(sizes) == 5000  # a flush happens after the batch that fills it
    assert isinstance(first, pa.RecordBatch) and first.column("key")[0].as_py() == b"k0"


def test_read_table_needs_pyarrow_and_nothing_else(tmp_path):
    """In a fresh interpreter where pyspark, numpy and pandas cannot be imported."""
    code = ("import sys\n"
            "for name in ('pyspark', 'numpy', 'pandas', 'jinja2', 'jsonschema', 'construct'): "
            "sys.modules[name] = None\n"
            "from kwire.arrow import read_table, iter_record_batches\n"
            f"table = read_table({str(KRAFT_361)!r})\n"
            f"assert table.num_rows == sum(b.num_rows for b in iter_record_batches({str(KRAFT_361)!r}))\n"
            "import kwire; assert 'kwire.spark' not in sys.modules\n"
            "print(table.num_rows)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "18631\n"


def test_the_command_lists_its_input_once(tmp_path, monkeypatch):
    # A bucket listed twice costs a second round of LIST requests and may see other files the
    # second time; the command decodes what it checked (issue 35 §2).
    from kwire.arrow import logfiles

    calls = []
    real = logfiles.discover

    def counted(*roots):
        calls.append(roots)
        return real(*roots)

    monkeypatch.setattr(logfiles, "discover", counted)
    assert kwire_main(["decode", str(KRAFT_361), "--out", str(tmp_path / "out"), "-q"]) == 0
    assert len(calls) == 1


def test_a_walk_through_pyarrow_fs_takes_the_files_the_local_walk_takes(tmp_path):
    # One rule (kwire.logs.files.kind_in_walk) for both listers: the local os.walk of kwire dump and
    # kwire decode, and the pyarrow.fs listing of a URI (here file://, the LocalFileSystem).
    from kwire.arrow import logfiles
    from kwire.logs.files import BATCH_KINDS, kafka_files

    tree = {
        "__cluster_metadata-0/00000000000000000000.log",
        "__cluster_metadata-0/00000000000000007111-0000000001.checkpoint",
        "__cluster_metadata-0/quorum-state", "__cluster_metadata-0/00000000000000000000.index", "bootstrap.checkpoint",
        "orders-3/00000000000000000042.log", "orders-3/00000000000000000042.log.deleted",
        "orders-3/.00000000000000000042.log",
        ".trash/orders-0/00000000000000000000.log", "orders-3/.hidden/00000000000000000000.log", "loose.batch",
        "server.log", "meta.properties",
    }
    for relative in tree:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(b"x")
    local = {p.relative_to(tmp_path).as_posix() for p, kind in kafka_files(tmp_path) if kind in BATCH_KINDS}
    remote = {f.path.removeprefix(f"file://{tmp_path}/") for f in logfiles._remote_batch_files(f"file://{tmp_path}")}
    assert local == remote == {"__cluster_metadata-0/00000000000000000000.log", "bootstrap.checkpoint",
                               "__cluster_metadata-0/00000000000000007111-0000000001.checkpoint",
                               "orders-3/00000000000000000042.log", "loose.batch"}
