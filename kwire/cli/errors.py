"""How every ``kwire`` command reports an error: one line on stderr, ``kwire COMMAND: what``, and
the exit code it returns (the convention of :mod:`kwire.cli.main`: 1 a refusal or findings, 2
unusable input or usage)."""
from __future__ import annotations

import sys


def fail(command: str, message: object, code: int = 2) -> int:
    """Print ``kwire COMMAND: MESSAGE`` on stderr and return ``code`` (``command``: the words after
    ``kwire``, e.g. ``"metadata quorum"``)."""
    print(f"kwire {command}: {message}", file=sys.stderr)
    return code


def write_failed(command: str, err: OSError) -> int:
    """A file write that failed, on one line naming the file: exit 1 when it was refused (the file
    exists and no --force; :class:`kwire.wire.files.ExistingFileError`), else 2."""
    from kwire.wire.files import ExistingFileError

    if isinstance(err, ExistingFileError):
        return fail(command, f"refused: {err}", 1)
    return fail(command, f"cannot write {err.filename or ''}: {err.strerror or err}", 2)
