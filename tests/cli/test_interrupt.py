"""Ctrl-C: ``kwire`` exits 130 (the shell's code for an interrupt) without a traceback, whether it
comes while the command line is being built or in the middle of a sweep with worker processes (a
terminal sends it to the whole process group: the workers must neither print nor linger)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import kwire.cli.main
from tests.paths import REPO

SETTLE = 60.0  # seconds a run may take to start, and to stop after Ctrl-C (a bound, not a speed test)


def test_ctrl_c_while_the_parser_is_built_is_130(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(kwire.cli.main, "build_parser", interrupted)
    try:
        code = kwire.cli.main.main(["doctor"])
    except KeyboardInterrupt:  # escaping, it would stop the whole test run
        pytest.fail("the interrupt escaped kwire's main")
    assert code == 130
    assert capsys.readouterr() == ("", "")


def children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in found.read_text().split()] if found.exists() else []


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_ctrl_c_in_a_sweep_with_workers_is_130_and_stops_them(tmp_path):
    if not Path("/proc/self/task").exists():
        pytest.skip("needs Linux's /proc to see the worker processes")
    # a new session: the test sends SIGINT to the run's process group, as a terminal does; and
    # SIGINT back at its default, which a shell's background job would have ignored
    run = subprocess.Popen([sys.executable, "-m", "kwire", "fuzz", "--cases", "1000000", "--jobs", "2"],
                           cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True,
                           # only a signal() call between fork and exec, safe beside threads
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509
    try:
        deadline = time.monotonic() + SETTLE
        while len(children(run.pid)) < 2 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = children(run.pid)
        assert len(workers) >= 2, "the sweep's workers did not start"
        time.sleep(1.0)  # into the sweep: the workers hold units
        os.killpg(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=SETTLE)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
    assert (run.returncode, err) == (130, "")
    assert not [pid for pid in workers if alive(pid)], "workers outlived the interrupted run"
