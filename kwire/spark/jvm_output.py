"""Keeping the JVM's console output (and its Python workers') off a command line's screen.

A failing Spark job prints hundreds of lines of ERROR logs and Java and Python stack frames to the
JVM's stderr, and every JVM start prints "WARNING: Using incubator modules". A command such as
``kwire decode`` prints one clear line of its own instead; ``-v`` shows the JVM's output as well.

The JVM inherits this process's stderr (file descriptor 2) when PySpark starts it, so for the
moment of the start descriptor 2 is pointed at a pipe, and a daemon thread drains that pipe for the
JVM's whole life: forwarding it to the real stderr, or dropping it.
"""
from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def jvm_stderr(show: bool) -> Iterator[None]:
    """Within this block, a JVM started (by PySpark) writes its stderr to the screen only if ``show``."""
    if show:
        yield
        return
    read_end, write_end = os.pipe()
    # drained from the start: a JVM that says much while starting must never block on a full pipe
    threading.Thread(target=_drain, args=(read_end,), name="kwire-jvm-stderr", daemon=True).start()
    saved = os.dup(2)
    os.dup2(write_end, 2)
    os.close(write_end)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _drain(fd: int) -> None:
    # Read until every writer (the JVM and the workers it forks) has closed the pipe, so that none
    # of them ever blocks on a full pipe.
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while pipe.read(65536):
            pass
