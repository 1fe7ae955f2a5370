"""The one way kwire writes a file for a user: never over an existing file unless asked, atomically.

A half-written snapshot or bootstrap file that a Kafka node later loads is worse than none, so
every command writes to a temporary file in the target's own directory (same file system, so the
rename is atomic), flushes and fsyncs it, and only then renames it over the target. An error or
an interrupt half-way leaves the old file as it was and removes the temporary one. What appears
has the mode any ordinary write would give it under the process's umask (0644 under 022, as
Kafka's ``kafka-storage format`` leaves ``meta.properties``), not the temporary file's private 0600.

``grep -rn "atomic_write\\|atomic_output"`` finds every file kwire writes for a user.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Literal, overload

from kwire.wire.errors import KwireError


class ExistingFileError(KwireError, FileExistsError):
    """A write that would replace a file the user did not ask to replace (no ``--force``)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        super().__init__(f"{self.path} already exists (use --force to replace it)")


class UnwritableError(KwireError, OSError):
    """A target whose directory cannot be made or written in (read-only, missing permission): an
    OSError with the target as its ``filename``, whatever file the system call was about."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


@contextlib.contextmanager
def _cannot_write(target: Path) -> Iterator[None]:
    """An OSError while making the target's directory or its temporary file is about the target:
    say so, not with the name of a temporary file the user never asked for."""
    try:
        yield
    except OSError as exc:
        raise UnwritableError(exc.errno, exc.strerror or str(exc), str(target)) from None


def check_writable(directory: str | os.PathLike[str]) -> None:
    """Raise :class:`UnwritableError` now if files cannot be created in ``directory``, for commands
    that write only after a long run: a file created and removed there says so for sure. Leaves
    nothing behind (directories made for the check are removed again)."""
    target = Path(directory)
    missing = [d for d in (target, *target.parents) if not os.path.lexists(d)]
    made: list[Path] = []
    try:
        with _cannot_write(target):
            for each in reversed(missing):
                each.mkdir()
                made.append(each)
            descriptor, probe = tempfile.mkstemp(prefix=".kwire-check.", suffix=".tmp", dir=target)
            os.close(descriptor)
            os.unlink(probe)
    finally:
        for each in reversed(made):
            with contextlib.suppress(OSError):
                each.rmdir()


def refuse_existing(path: str | os.PathLike[str], *, force: bool) -> None:
    """Raise :class:`ExistingFileError` if ``path`` exists and ``force`` is false.

    For commands that check every target before writing any, so a refusal writes nothing."""
    if not force and os.path.lexists(path):
        raise ExistingFileError(path)


@overload
def atomic_output(path: str | os.PathLike[str], *, force: bool,
                  text: Literal[False] = ...) -> contextlib.AbstractContextManager[IO[bytes]]: ...
@overload
def atomic_output(path: str | os.PathLike[str], *, force: bool,
                  text: Literal[True]) -> contextlib.AbstractContextManager[IO[str]]: ...


def atomic_output(path: str | os.PathLike[str], *, force: bool,
                  text: bool = False) -> contextlib.AbstractContextManager[IO]:  # type: ignore[type-arg]
    """A file object to write ``path`` through; the file appears whole when the block ends.

    Refuses an existing ``path`` unless ``force``. The parent directory is created if missing."""
    return _atomic_output(Path(path), force=force, text=text)


@contextlib.contextmanager
def _atomic_output(target: Path, *, force: bool, text: bool) -> Iterator[IO]:  # type: ignore[type-arg]
    refuse_existing(target, force=force)
    with _cannot_write(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(descriptor, "w" if text else "wb", **({"encoding": "utf-8"} if text else {})) as out:
            os.fchmod(out.fileno(), 0o666 & ~current_umask())  # mkstemp makes it private; a node's user must read it
            yield out
            out.flush()
            os.fsync(out.fileno())
        # Checked again: another writer may have created the target while this one wrote.
        refuse_existing(target, force=force)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _sync_directory(target.parent)


def atomic_write(path: str | os.PathLike[str], data: bytes | str, *, force: bool) -> Path:
    """Write ``data`` (bytes, or text as UTF-8) to ``path`` atomically; refuse an existing file unless ``force``."""
    target = Path(path)
    if isinstance(data, str):
        with atomic_output(target, force=force, text=True) as out:
            out.write(data)
    else:
        with atomic_output(target, force=force) as binary:
            binary.write(data)
    return target


def current_umask() -> int:
    """The process's umask, read without changing it where Linux says it (``/proc/self/status``,
    since 4.7): setting and restoring it would let another thread create a file under the wrong one."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    umask = os.umask(0o077)
    os.umask(umask)
    return umask


def _sync_directory(directory: Path) -> None:
    """fsync the directory so the rename itself survives a crash (not possible everywhere)."""
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike[str], *, force: bool) -> Iterator[Path]:
    """A temporary directory beside ``path`` to fill; it becomes ``path`` when the block ends.

    For outputs made of many files (``kwire decode``'s part files): an error half-way leaves
    ``path`` as it was. Refuses an existing ``path`` unless ``force``; with ``force`` the old
    directory (or file) is removed just before the new one takes its place."""
    import shutil

    target = Path(path)
    refuse_existing(target, force=force)
    with _cannot_write(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    temporary.chmod(0o777 & ~current_umask())  # mkdtemp makes it private; the output is an ordinary directory
    try:
        yield temporary
        refuse_existing(target, force=force)
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif os.path.lexists(target):
            target.unlink()
        os.replace(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    _sync_directory(target.parent)
