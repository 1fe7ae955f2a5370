"""A one-line progress report of the Spark jobs a block of code runs.

Spark's own console bar is turned off by ``build_session``; this polls the status tracker from a
background thread and prints finished/total tasks of the running stages (redrawn on a terminal,
a line per 10% on a pipe or file).
"""
from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


class JobProgress:
    """``with JobProgress(spark, "decode"):`` around the code that runs the jobs."""

    WIDTH = 30

    def __init__(self, spark, label: str, stream: TextIO | None = None, interval: float = 0.5) -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.label = label
        self.stream = stream if stream is not None else sys.stderr  # the stderr of now, not of import time
        self.interval = interval
        self.tty = self.stream.isatty()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kwire-progress", daemon=True)
        self._started = time.monotonic()
        self._last_tenth = -1
        self._seen: dict[int, tuple[int, int]] = {}  # stage id -> (done, total)

    def __enter__(self) -> JobProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._poll()
        if self._seen and exc[0] is None:
            self._draw(final=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._poll()
            if self._seen:
                self._draw()

    def _poll(self) -> None:
        try:
            for stage_id in self.tracker.getActiveStageIds():
                info = self.tracker.getStageInfo(stage_id)
                if info is not None:
                    self._seen[stage_id] = (info.numCompletedTasks, info.numTasks)
        except Exception:  # the session may be stopping under us; progress is best effort
            return

    def _draw(self, final: bool = False) -> None:
        done = sum(d for d, _ in self._seen.values())
        total = max(sum(t for _, t in self._seen.values()), 1)
        if final:
            done = total
        elapsed = time.monotonic() - self._started
        filled = self.WIDTH * done // total
        line = (f"{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
                f"{done}/{total} tasks {elapsed:.0f}s")
        if self.tty:
            self.stream.write("\r" + line + ("\n" if final else ""))
        elif done * 10 // total > self._last_tenth:
            self._last_tenth = done * 10 // total
            self.stream.write(line + "\n")
        self.stream.flush()
