"""One Spark driver process for every test that runs on the standalone cluster.

A process holds one SparkContext, and the suite's shared ``local[2]`` session already holds this
test process's; so the cluster's jobs run in a subprocess. Starting a driver on the cluster costs
seconds (a JVM, an application, two executor JVMs, their Python workers), so one subprocess serves
all of them: it reads requests as JSON lines on stdin and answers each with a JSON line.

- ``{"argv": [...]}`` runs ``kwire ARGV`` (``kwire.cli.main.main``) in this process: the first
  ``--master spark://...`` starts the session and the commands after it reuse it, as a second
  ``build_session`` in one process does; the answer holds the exit code, stdout and stderr.
- ``{"probe": N, "master": URL, "executors": E}`` waits until E executors have registered, then
  runs N tasks of ``kwire.spark.shipping.executor_report``: where each executor's Python imported
  ``kwire`` from, which record decoder it runs, in which executor's directory.

Run as ``python -m tests.spark.cluster_driver``; ``ClusterDriver`` is the test side.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from tests.processes import end_process

REPO = Path(__file__).resolve().parents[2]


@dataclass
class CommandResult:
    code: int
    stdout: str
    stderr: str
    seconds: float


class ClusterDriver:
    """The test side: ``driver.kwire("decode", ...)`` -> CommandResult; ``driver.submit(...)``
    returns at once, ``driver.result()`` waits for that answer."""

    def __init__(self, env: dict[str, str], log: Path, timeout: float = 300.0) -> None:
        self.timeout = timeout
        self._log = open(log, "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.spark.cluster_driver"], cwd=REPO, env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, start_new_session=True)
        self._answer: list[str] = []
        self._done = threading.Event()
        self._done.set()

    def submit(self, request: dict) -> None:
        assert self._done.is_set(), "one request at a time"
        self._done.clear()
        self._answer.clear()
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        threading.Thread(target=self._read_answer, daemon=True).start()

    def _read_answer(self) -> None:
        assert self.process.stdout is not None
        self._answer.append(self.process.stdout.readline())
        self._done.set()

    def result(self) -> dict:
        if not self._done.wait(self.timeout) or not self._answer[0]:
            raise RuntimeError(f"the cluster driver did not answer (exit code {self.process.poll()}); "
                               f"see {self._log.name}")
        answer = json.loads(self._answer[0])
        if "error" in answer:
            raise RuntimeError(f"the cluster driver failed:\n{answer['error']}")
        return answer

    def kwire(self, *argv: str) -> CommandResult:
        self.submit({"argv": list(argv)})
        return CommandResult(**self.result())

    def probe(self, master: str, tasks: int, executors: int) -> list[dict]:
        self.submit({"probe": tasks, "master": master, "executors": executors})
        return self.result()["tasks"]

    def close(self) -> None:
        end_process(self.process, 60)  # stdin closed: the driver stops its session and exits
        self._log.close()


# --- the driver side ---------------------------------------------------------------------------


def _run_kwire(argv: list[str]) -> dict:
    from kwire.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    seconds = time.monotonic() - started
    print(f"kwire {' '.join(argv)}: exit {code} in {seconds:.1f}s", file=sys.stderr, flush=True)
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue(), "seconds": seconds}


def _probe(tasks: int, master: str, executors: int) -> dict:
    from kwire.spark.session import build_session
    from kwire.spark.shipping import executor_report

    spark = build_session(master, app_name="kwire tests")  # the session the kwire commands use, if started
    status = spark.sparkContext._jsc.sc().getExecutorMemoryStatus()  # the driver's block manager too
    deadline = time.monotonic() + 120
    while status.size() < executors + 1 and time.monotonic() < deadline:
        time.sleep(0.2)
        status = spark.sparkContext._jsc.sc().getExecutorMemoryStatus()
    return {"tasks": executor_report(spark, tasks)}


def main() -> int:
    # Answers go to a private copy of stdout; descriptor 1 itself points at stderr (the log), so
    # nothing the JVM or a library prints can break a JSON line.
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.__stdout__ = os.fdopen(1, "w", closefd=False)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "argv" in request:
                answer = _run_kwire(request["argv"])
            else:
                answer = _probe(request["probe"], request["master"], request["executors"])
        except Exception:  # the test shows it; the driver stays up for the next request
            answer = {"error": traceback.format_exc()}
        channel.write(json.dumps(answer) + "\n")
        channel.flush()
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is not None:
        spark.stop()
    return 0


if __name__ == "__main__":
    # the tests' own modules are not shipped: keep this file's functions pickled by value
    os.environ.pop("PYTHONPATH", None)
    sys.exit(main())
