"""kwire on a real Spark standalone cluster (a master and two workers on loopback, see
standalone.py): the jobs give exactly the single-process reader's rows and the local sweep's
report, kwire reaches the executors as the archives ``build_session`` ships (the compiled record
decoder loading there, and no executor log saying a compiled module fell back), a lost executor
costs nothing, and damaged input fails or is counted as it does locally.

The expected rows come from ``read_table`` (checked against kafka-python in test_decode.py) and
the expected report from the local sweep; every cluster job runs in one driver subprocess
(cluster_driver.py).
"""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark and kwire.arrow are made of it: without it this module skips (fails under CI)

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

from kwire.cli.main import main as kwire_main
from kwire.spark import read_table
from tests.packages import pq
from tests.paths import KRAFT_361
from tests.spark.remote_data import BUCKET

pytestmark = pytest.mark.xdist_group("spark-cluster")

SEGMENT = "__cluster_metadata-0/00000000000000000000.log"


def written_rows(out: Path) -> list[dict]:
    """Rows of a ``kwire decode`` output directory (Parquet), in file and offset order."""
    rows = [row for path in sorted(out.glob("*.parquet")) for row in pq.read_table(path).to_pylist()]
    return sorted(rows, key=row_order)


def row_order(row: dict) -> tuple:
    return row["file"], row["offset"] if row["offset"] is not None else -1, row.get("skipped_position") or 0


def expected_rows(path: Path, **options) -> list[dict]:
    return sorted(read_table(str(path), **options).to_pylist(), key=row_order)


def test_decode_on_the_cluster_gives_the_single_process_rows(cluster, cluster_driver, kafka_dirs, tmp_path):
    source = kafka_dirs["many"]
    out = tmp_path / "out"
    done = cluster_driver.kwire("decode", str(source), "--out", str(out), "--split-mb", "1", "--master", cluster.url,
                                "-q")
    assert done.code == 0, done.stderr
    expected = expected_rows(source)
    assert len(expected) > 50_000
    assert written_rows(out) == expected
    assert len(list(out.glob("*.parquet"))) >= 8  # 7 MB at 1 MB splits: many tasks, both executors


@pytest.fixture(scope="module")
def executor_tasks(cluster, cluster_driver) -> list[dict]:
    """What 8 tasks over both executors saw of kwire (cluster_driver.py's probe)."""
    return cluster_driver.probe(cluster.url, tasks=8, executors=2)


def test_executors_import_kwire_from_the_shipped_archives(cluster, executor_tasks):
    workers = set()
    for task in executor_tasks:
        work_dir = Path(task["directory"])
        assert work_dir.is_relative_to(cluster.root), task  # an executor's directory, under a worker
        workers.add(work_dir.relative_to(cluster.root).parts[0])
        # the archive Spark unpacked in the executor's directory (its SparkFiles root) as kwire/,
        # not the checkout (which the executors' interpreter, this venv's, could also import)
        assert Path(task["kwire"]).resolve() == (work_dir / "kwire" / "__init__.py").resolve(), task
        assert Path(task["generated"]).resolve() == (work_dir / "kwire" / "generated" / "__init__.py").resolve()
    assert workers == {"worker-0", "worker-1"}


def test_executors_run_the_compiled_record_decoder_shipped_with_its_runtime(executor_tasks, c_record_decoder,
                                                                            compiled_record_decoder):
    fastest = Path(c_record_decoder.__file__).name  # the C flavour, first in the fallback order
    for task in executor_tasks:
        work_dir = Path(task["directory"])
        assert (task["record_decoder"], task["fallback_reason"]) == ("c", None), task
        assert Path(task["record_decoder_file"]).resolve() == (work_dir / "kwire" / "records" / fastest).resolve()
        # the mypyc build and its run-time support came in the archives too, for executors where the
        # C flavour does not load: the executors need nothing installed
        assert (work_dir / "kwire" / "records" / Path(compiled_record_decoder.__file__).name).is_file(), task
        assert (work_dir / "librt").is_dir() and (work_dir / "mypy_extensions.py").is_file(), task


def test_fuzz_on_the_cluster_writes_the_local_report(cluster, cluster_driver, tmp_path):
    common = ["fuzz", "--messages", "ApiVersionsRequest", "OffsetCommitValue", "--cases", "150", "--seed", "9", "-q"]
    local_code = kwire_main([*common, "--report", str(tmp_path / "local")])
    done = cluster_driver.kwire(*common, "--master", cluster.url, "--report", str(tmp_path / "cluster"))
    assert done.code == local_code, done.stderr
    local_report = json.loads((tmp_path / "local" / "report.json").read_text())
    assert json.loads((tmp_path / "cluster" / "report.json").read_text()) == local_report
    assert (tmp_path / "cluster" / "report.md").read_text() == (tmp_path / "local" / "report.md").read_text()
    assert local_report["summary"]["cells"] > 10


def test_a_lost_executor_is_replaced_and_the_output_is_complete(cluster, cluster_driver, s3, kafka_dirs, tmp_path):
    """Tasks read their pieces from S3; the server holds those reads until one executor JVM has
    been killed (SIGKILL, as a crashed machine), so the kill lands while tasks run on both."""
    source = kafka_dirs["many"]
    out = tmp_path / "out"
    cluster_driver.probe(cluster.url, tasks=2, executors=2)  # both executors up before the job
    s3.hold_reads()
    try:
        cluster_driver.submit({"argv": ["decode", f"s3://{BUCKET}/many", "--out", str(out), "--split-mb", "1",
                                        "--master", cluster.url, "-q"]})
        assert s3.wait_for_held(2, timeout=120), "the tasks never started reading"
        executors = cluster.executors()
        assert sorted(executors.values()) == ["worker-0", "worker-1"]
        victim = min(executors)
        os.kill(victim, signal.SIGKILL)
        _wait_until(lambda: victim not in cluster.executors(), 30)
    finally:
        s3.release_reads()
    answer = cluster_driver.result()
    assert answer["code"] == 0, answer["stderr"]
    local = {f"s3://{BUCKET}/many/{Path(r['file']).relative_to(source).as_posix()}": r["file"]
             for r in expected_rows(source)}
    rows = written_rows(out)
    for row in rows:
        row["file"] = local[row["file"]]
    assert sorted(rows, key=row_order) == expected_rows(source)
    # the scheduler saw a task fail with its executor, and the standalone master started another
    reasons = _task_end_reasons(cluster_driver.events)
    assert "ExecutorLostFailure" in reasons, reasons
    _wait_until(lambda: len(cluster.executors()) == 2, 60)
    assert victim not in cluster.executors()


def test_damaged_input_on_the_cluster_fails_with_file_and_offset_or_is_counted(cluster, cluster_driver, tmp_path):
    original = (KRAFT_361 / SEGMENT).read_bytes()
    damaged = tmp_path / "damaged" / SEGMENT
    damaged.parent.mkdir(parents=True)
    data = bytearray(original[:whole_batches(original, 50_000)])  # a small copy keeps the jobs short
    data[236 + 8:236 + 12] = b"\x7f\xff\xff\xff"  # the third batch's size field, damaged
    damaged.write_bytes(bytes(data))
    torn = tmp_path / "damaged" / "__cluster_metadata-1" / "00000000000000000000.log"
    torn.parent.mkdir()
    torn.write_bytes(original[:100_000])  # cut inside a batch, as a crash leaves a segment

    failed = cluster_driver.kwire("decode", str(damaged.parent), "--out", str(tmp_path / "a"), "--master", cluster.url,
                                  "-q")
    assert failed.code == 2  # damaged input is unusable input
    assert re.search(rf"{re.escape(str(damaged))}: not a record batch: .*its size field is damaged \(byte offset 236\)",
                     failed.stderr)

    counted = cluster_driver.kwire("decode", str(tmp_path / "damaged"), "--out", str(tmp_path / "b"),
                                   "--skip-undecodable", "--master", cluster.url)
    assert counted.code == 1, counted.stderr  # read past damage, as asked: a finding, never clean
    assert counted.stdout.endswith("214 bytes not decoded, in 2 skipped ranges (rows with skipped_bytes set)\n")
    skipped = [(r["file"], r["skipped_position"], r["skipped_bytes"]) for r in written_rows(tmp_path / "b")
               if r["skipped_bytes"] is not None]
    assert sorted(skipped) == [(str(damaged), 236, 166), (str(torn), 99952, 48)]
    assert written_rows(tmp_path / "b") == expected_rows(tmp_path / "damaged", skip_undecodable=True)


def test_no_executor_of_the_tests_application_fell_back_to_plain_python(executor_tasks):
    """The probe asks one kind of task; the jobs above (data source reads, fuzz tasks) ran in the
    same executors' Python workers, and a compiled module of the shipped kwire that does not load
    there says so in the executor's stderr log (kwire/spark/shipped.py, columns.py): none did.
    Run last in this module, so that it reads what every job before it left."""
    applications = {Path(task["directory"]).parent for task in executor_tasks}  # worker-N/app-ID/
    logs = [log for application in applications for log in application.glob("*/stderr")]
    assert len(logs) >= 2, logs  # one per executor, at least
    warned = [line for log in logs for line in log.read_text(errors="replace").splitlines()
              if "RuntimeWarning: kwire:" in line]
    assert warned == []


def whole_batches(data: bytes, limit: int) -> int:
    """The length of the longest run of whole batches at the front of ``data`` within ``limit``."""
    end = 0
    while end + 12 <= limit and end + 12 + int.from_bytes(data[end + 8:end + 12], "big") <= limit:
        end += 12 + int.from_bytes(data[end + 8:end + 12], "big")
    return end


def _task_end_reasons(events: Path) -> set[str]:
    reasons = set()
    for log in (path for path in events.rglob("*") if path.is_file()):  # Spark 4 writes a folder per application
        for line in log.read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:  # the last line of a log still being written
                continue
            if event.get("Event") == "SparkListenerTaskEnd":
                reasons.add(event.get("Task End Reason", {}).get("Reason", ""))
    return reasons


def _wait_until(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)
