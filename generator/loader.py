"""Load definition files: commented JSON -> JSON Schema check -> semantic rules -> model.

``load_file`` handles one definition; ``load_definitions`` a set of files or directories and
adds the rules that span files (one request and one response per apiKey, unique metadata and
coordinator apiKeys, unique names).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from . import jsonc
from .builder import build_message
from .errors import DefinitionError, Problem
from .model import Message


@lru_cache(maxsize=1)
def _schema_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(resources.files("generator").joinpath("definition_schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _json_path(parts: Iterable[Any]) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _schema_problems(raw: Any, source: str) -> list[Problem]:
    problems = []
    for error in sorted(_schema_validator().iter_errors(raw), key=lambda e: list(map(str, e.absolute_path))):
        # For oneOf/anyOf the generic message is vague; name the offending value instead.
        if error.validator == "oneOf":
            message = f"{error.instance!r} is not valid here"
        elif error.validator == "anyOf":
            message = "a field needs versions or taggedVersions"
        elif error.validator == "additionalProperties":
            message = error.message.replace("Additional properties are not allowed", "unknown key")
        else:
            message = error.message
        problems.append(Problem(source, _json_path(error.absolute_path), message))
    return problems


def load_text(text: str, source: str = "<string>") -> Message:
    """Parse and validate one definition given as text."""
    try:
        raw = jsonc.loads(text)
    except jsonc.JsonSyntaxError as exc:
        raise DefinitionError([Problem(source, f"line {exc.line} column {exc.column}", str(exc).split(": ", 1)[1])]) from None
    problems = _schema_problems(raw, source)
    if problems:
        raise DefinitionError(problems)
    message, problems = build_message(raw, source)
    if problems or message is None:
        raise DefinitionError(problems)
    return message


def load_file(path: str | Path) -> Message:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DefinitionError([Problem(str(path), "$", f"cannot read: {exc}")]) from None
    return load_text(text, str(path))


def definition_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand directories to their ``*.json`` files (sorted); keep files as given."""
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.glob("*.json")) if p.is_dir() else [p])
    return files


def load_definitions(paths: Iterable[str | Path]) -> list[Message]:
    """Load every definition under ``paths``; raise one DefinitionError listing all problems."""
    messages: list[Message] = []
    problems: list[Problem] = []
    for file in definition_files(paths):
        try:
            messages.append(load_file(file))
        except DefinitionError as exc:
            problems.extend(exc.problems)
    problems.extend(cross_file_problems(messages))
    if problems:
        raise DefinitionError(problems)
    return sorted(messages, key=lambda m: m.name)


def cross_file_problems(messages: Iterable[Message]) -> list[Problem]:
    """Rules that span definitions: unique names, and apiKeys unique per message type."""
    problems = []
    seen_names: dict[str, Message] = {}
    seen_keys: dict[tuple[str, int], Message] = {}
    for m in messages:
        if m.name in seen_names:
            problems.append(Problem(m.source, "$.name", f"message {m.name} is also defined in {seen_names[m.name].source}"))
        seen_names.setdefault(m.name, m)
        if m.api_key is None or m.type in ("header", "data"):
            continue
        key = (m.type, m.api_key)
        if key in seen_keys:
            other = seen_keys[key]
            problems.append(Problem(m.source, "$.apiKey",
                                    f"apiKey {m.api_key} of {m.type} {m.name} is already used by {other.name} ({other.source})"))
        seen_keys.setdefault(key, m)
    return problems
