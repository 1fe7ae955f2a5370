"""Errors about message definitions: each is one line naming the file and the JSON path."""
from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from kwire.wire.errors import SchemaError


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a definition, located well enough to fix it."""

    file: str
    path: str  # JSON path such as $.fields[2].fields[0], with the field name appended; "" for the whole file
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.path}: {self.message}" if self.path else f"{self.file}: {self.message}"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'versions'?)`` for a near match of ``word`` among ``choices``, else ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


class DefinitionError(SchemaError):
    """One or more definitions are invalid; ``problems`` lists every finding."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
