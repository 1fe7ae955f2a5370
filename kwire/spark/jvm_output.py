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
import re
import threading
from collections.abc import Iterator

from kwire.wire.errors import KwireError


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



_ERROR_LINE = re.compile(r"^(?P<module>(?:\w+\.)*)(?P<name>\w+): (?P<reason>.+)$")


def spark_error_text(exc: BaseException) -> str:
    """The innermost ``SomeError: reason`` line of a Spark error (a Python traceback from a task
    or the driver), preferring one of kwire's own errors (raised in a ``kwire.`` module, or named
    as a :class:`KwireError` of this process), else the error's first line."""
    text = str(exc)
    ours = _kwire_error_names()
    found, kwire = [], []
    for match in filter(None, (_ERROR_LINE.match(line.strip()) for line in text.splitlines())):
        is_kwire = match["module"].startswith("kwire.") or match["name"] in ours
        if is_kwire or match["name"].endswith(("Error", "Exception")):
            found.append(match)
            if is_kwire:
                kwire.append(match)
    if not found:
        return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    chosen = (kwire or found)[-1]
    return f"{chosen['name']}: {chosen['reason']}"


def _kwire_error_names() -> set[str]:
    """The names of KwireError and every subclass loaded here."""
    names, pending = set(), [KwireError]
    while pending:
        cls = pending.pop()
        names.add(cls.__name__)
        pending.extend(cls.__subclasses__())
    return names
