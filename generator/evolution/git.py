"""Read-only git commands over the history of definitions (``kwire check-compat git:REV:PATH``,
``kwire versions --derive-from``): the one place that runs git and makes its failure a finding."""
from __future__ import annotations

import subprocess

from ..definitions.errors import DefinitionError, Problem


def git_output(source: str, *argv: str, stdin: bytes | None = None) -> bytes:
    """The standard output of ``git ARGV``, run in the current directory (``--git-dir=...`` in
    ARGV reads another repository). A git that cannot run, or fails, is unreadable input: a
    DefinitionError on ``source`` (what was being read) with git's own message."""
    try:
        done = subprocess.run(["git", *argv], input=stdin, capture_output=True, check=False)
    except OSError as exc:
        raise DefinitionError([Problem(source, "", f"cannot run git: {exc}")]) from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip() or f"git exited with {done.returncode}"
        raise DefinitionError([Problem(source, "", f"cannot read from git: {detail}")])
    return done.stdout
