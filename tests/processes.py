"""Ending a child process that tests or benchmarks started (a broker, a Spark driver)."""
from __future__ import annotations

import subprocess


def end_process(process: subprocess.Popen, grace: float) -> int:
    """Ask ``process`` to stop, give it ``grace`` seconds, then kill it; its exit status. A child that
    reads commands on its stdin pipe is asked by closing the pipe (it finishes its work and exits);
    any other is sent SIGTERM."""
    if process.stdin is not None:
        process.stdin.close()
    else:
        process.terminate()  # a no-op on a child that has exited
    try:
        return process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()
