"""tests/processes.py: how a child process started by tests or benchmarks is ended."""
from __future__ import annotations

import signal
import subprocess
import sys

from tests.processes import end_process

READS_STDIN = "import sys; sys.stdin.read(); sys.exit(3)"
IGNORES_SIGTERM = ("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                   "print('ready', flush=True); time.sleep(60)")


def test_a_child_reading_stdin_is_asked_by_closing_it():
    child = subprocess.Popen([sys.executable, "-c", READS_STDIN], stdin=subprocess.PIPE)
    assert end_process(child, 30) == 3  # it exited by itself, not by a signal


def test_a_child_without_stdin_is_sent_sigterm():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdin=subprocess.DEVNULL)
    assert end_process(child, 30) == -signal.SIGTERM


def test_a_child_that_outlives_its_grace_is_killed():
    child = subprocess.Popen([sys.executable, "-c", IGNORES_SIGTERM], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    assert end_process(child, 0.2) == -signal.SIGKILL
    child.stdout.close()

