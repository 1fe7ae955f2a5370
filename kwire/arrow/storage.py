"""Where the bytes of log files come from: this machine's disks, or any file system that
``pyarrow.fs`` opens from a URI (``s3://``, ``gs://``, ``hdfs://``, ``abfs://``, ...).

A plain path (or ``file://``) is read with ``os.pread``. A URI goes to
``pyarrow.fs.FileSystem.from_uri``, configured as pyarrow configures it; for S3 (and S3-compatible
servers) that is the standard AWS variables: ``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_REGION``/``AWS_DEFAULT_REGION``, and the
AWS config and credential files.

Remote files are only ever read in ranges: ``open_input_file`` (for S3 one HEAD request) and
``read_at(length, position)``, one GET of just those bytes. The file system object travels to the
Spark tasks inside each ``LogFile``: endpoint and region are the driver's, while credentials pyarrow
found in the environment are not pickled, so each executor looks them up in its own environment (or
instance profile).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from kwire.wire.closing import Closing
from kwire.wire.errors import KwireError

_LOCAL_SCHEME = "file://"


def is_remote(path: str | os.PathLike) -> bool:
    """True for a URI with a scheme other than ``file``: read through ``pyarrow.fs``."""
    text = os.fspath(path)
    scheme, sep, _ = text.partition("://")
    return bool(sep) and scheme.isidentifier() and text[: len(_LOCAL_SCHEME)].lower() != _LOCAL_SCHEME


def local_path(path: str | os.PathLike) -> str:
    """A local path without its ``file://`` prefix."""
    text = os.fspath(path)
    return text[len(_LOCAL_SCHEME):] if text.lower().startswith(_LOCAL_SCHEME) else text


@dataclass(frozen=True)
class RemoteEntry:
    """A file found under a URI: its URI, its path inside the file system, its path relative to
    the URI that was listed (empty for the file itself), its size."""

    uri: str
    fs_path: str
    relative: str
    size: int


def open_uri(uri: str) -> tuple[Any, str]:
    """``(filesystem, path inside it)`` for a URI; a KwireError when pyarrow cannot open it."""
    from pyarrow import fs

    try:
        return fs.FileSystem.from_uri(uri)
    except (OSError, ValueError, ImportError) as exc:
        raise KwireError(f"cannot open {uri}: {exc}") from None


def exists(path: str | os.PathLike) -> bool:
    """Whether a local path or a URI names an existing file or directory."""
    if not is_remote(path):
        return os.path.exists(local_path(path))
    from pyarrow import fs

    filesystem, inner = open_uri(os.fspath(path))
    try:
        return filesystem.get_file_info(inner).type != fs.FileType.NotFound
    except OSError as exc:
        raise KwireError(f"cannot look at {path}: {exc}") from None


def walk_remote(uri: str) -> tuple[Any, list[RemoteEntry]]:
    """``(filesystem, files)``: the file ``uri`` names, or every file under it (hidden names
    included: the caller's rule judges them)."""
    from pyarrow import fs

    filesystem, inner = open_uri(uri)
    try:
        info = filesystem.get_file_info(inner)
        if info.type == fs.FileType.File:
            return filesystem, [RemoteEntry(uri, info.path, "", info.size)]
        if info.type == fs.FileType.NotFound:
            raise KwireError(f"no such file or directory: {uri}")
        listing = filesystem.get_file_info(fs.FileSelector(inner, recursive=True))
    except OSError as exc:
        raise KwireError(f"cannot list {uri}: {exc}") from None
    base = uri.rstrip("/")
    files = []
    for entry in listing:
        if entry.type == fs.FileType.File:
            relative = entry.path[len(inner):].lstrip("/")
            files.append(RemoteEntry(f"{base}/{relative}", entry.path, relative, entry.size))
    return filesystem, sorted(files, key=lambda e: e.uri)


class RangeReader(Closing):
    """Reads byte ranges of one file; ``with RangeReader(file) as reader: reader.read(pos, n)``.

    ``file`` is a :class:`kwire.arrow.logfiles.LogFile`. Fewer bytes than asked come back only at
    the end of the file (one that shrank since it was listed).
    """

    def __init__(self, file: Any) -> None:
        self.file = file
        self._fd: int | None = None
        self._remote: Any = None
        try:
            if file.filesystem is None:
                self._fd = os.open(file.path, os.O_RDONLY)
            else:
                self._remote = file.filesystem.open_input_file(file.fs_path)
        except OSError as exc:
            raise KwireError(f"cannot open {file.path}: {exc}") from None

    def read(self, position: int, length: int) -> bytes:
        chunks = []
        end = position + length
        while position < end:
            chunk = self._read_once(position, min(end - position, 1 << 30))
            if not chunk:
                break  # the file shrank: what is there; the batch reader stops at the cut
            chunks.append(chunk)
            position += len(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _read_once(self, position: int, length: int) -> bytes:
        try:
            if self._fd is not None:
                return os.pread(self._fd, length, position)
            return self._remote.read_at(length, position)
        except OSError as exc:
            raise KwireError(f"cannot read {length} bytes at {position} of {self.file.path}: {exc}") from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._remote is not None:
            self._remote.close()
            self._remote = None


def read_object(filesystem: Any, fs_path: str) -> bytes:
    """A whole (small) remote object, such as a segment's offset index."""
    try:
        with filesystem.open_input_file(fs_path) as source:
            return source.read()
    except OSError as exc:
        raise KwireError(f"cannot read {fs_path}: {exc}") from None


def read_range(file: Any, start: int, end: int) -> bytes:
    """Bytes ``start`` to ``end`` of ``file`` (a LogFile), in one ranged read."""
    with RangeReader(file) as reader:
        return reader.read(start, end - start)
