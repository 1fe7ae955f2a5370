"""Load definition files: commented JSON -> JSON Schema check -> semantic rules -> model.

``load_file`` handles one definition; ``load_definitions`` a set of files or directories and
adds the rules that span files (one request and one response per apiKey with matching names,
unique metadata apiKeys, unique names).
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import jsonc
from .builder import build_message
from .errors import DefinitionError, Problem, did_you_mean
from .model import Message

if TYPE_CHECKING:
    import jsonschema


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    return json.loads(resources.files("kwire.generator.definitions").joinpath("definition_schema.json").read_text())


@lru_cache(maxsize=1)
def _schema_validator() -> jsonschema.protocols.Validator:
    import jsonschema  # the generator extra; imported when a definition is first checked

    schema = _schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _without_nulls(raw: Any) -> Any:
    """Drop known keys whose value is null: Jackson reads them as "not given" (``"default": null``).

    Unknown keys are kept whatever their value, so the schema still reports them.
    """
    schema = _schema()
    defs = schema["$defs"]

    def clean(obj: Any, keys: Any) -> Any:
        if not isinstance(obj, dict):
            return obj
        out = {k: v for k, v in obj.items() if not (v is None and k in keys)}
        if isinstance(out.get("fields"), list):
            out["fields"] = [clean(f, defs["field"]["properties"]) for f in out["fields"]]
        if isinstance(out.get("commonStructs"), list):
            out["commonStructs"] = [clean(c, defs["commonStruct"]["properties"]) for c in out["commonStructs"]]
        return out

    return clean(raw, schema["properties"])


def _json_path(parts: Iterable[Any]) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _located_path(raw: Any, parts: list[Any]) -> str:
    """The JSON path of ``parts``, with the name of the innermost field on it appended."""
    node, previous, field_name = raw, None, None
    for part in parts:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
        if previous == "fields" and isinstance(node, dict) and isinstance(node.get("name"), str):
            field_name = node["name"]
        previous = part
    path = _json_path(parts)
    return f"{path} ({field_name})" if field_name else path


def _unknown_keys(error: jsonschema.ValidationError) -> list[tuple[str, str]]:
    """(key, near match or "") of each key an ``additionalProperties`` error is about."""
    known = list(error.schema.get("properties", {}))
    return [(key, did_you_mean(key, known)) for key in error.instance if key not in known]


def _schema_problems(raw: Any, source: str) -> list[Problem]:
    problems = []
    errors = sorted(_schema_validator().iter_errors(raw), key=lambda e: list(map(str, e.absolute_path)))
    # An object with a misspelt key gets one line for that key; the errors that follow from the
    # key missing under its right name (e.g. "a field needs versions") are left out.
    misspelt = {tuple(e.absolute_path) for e in errors if e.validator == "additionalProperties"
                and any(hint for _, hint in _unknown_keys(e))}
    for error in errors:
        if error.validator == "additionalProperties":
            where = _located_path(raw, list(error.absolute_path))
            for key, hint in _unknown_keys(error):
                problem = Problem(source, where, f"unknown key {key!r}{hint}")
                if problem not in problems:  # alternatives of one schema can each report the key
                    problems.append(problem)
            continue
        if error.validator in ("anyOf", "required") and tuple(error.absolute_path) in misspelt:
            continue
        # jsonschema's messages for oneOf and pattern are vague; say what was expected instead.
        if error.validator in ("oneOf", "pattern") and "description" in error.schema:
            message = f"{error.instance!r} is not {error.schema['description']}"
        elif error.validator == "oneOf":
            message = f"{error.instance!r} is not valid here"
        elif error.validator == "anyOf":
            message = "a field needs versions or taggedVersions"
        else:
            message = error.message
        problems.append(Problem(source, _located_path(raw, list(error.absolute_path)), message))
    return problems


# Real definitions nest JSON containers about a dozen deep; far deeper input is refused before
# the schema check, whose validators recurse (and whose Rust helpers abort on a RecursionError).
MAX_JSON_DEPTH = 100


def _json_depth(value: Any) -> int:
    """Nesting depth of JSON containers, computed without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                break
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


# Jackson's ACCEPT_SINGLE_VALUE_AS_ARRAY, which Kafka's generator turns on: a list-valued key given
# one value reads as a list of that value.
LIST_KEYS = ("fields", "commonStructs", "listeners")


def _single_values_as_lists(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return raw
    out = dict(raw)
    for key in LIST_KEYS:
        if key in out and out[key] is not None and not isinstance(out[key], list):
            out[key] = [out[key]]
    for key in ("fields", "commonStructs"):
        if isinstance(out.get(key), list):
            out[key] = [_single_values_as_lists(item) for item in out[key]]
    return out


def load_text(text: str, source: str = "<string>", *, old_format: bool = False) -> Message:
    """Parse and validate one definition given as text.

    ``old_format`` reads files as the Kafka release that wrote them did (before flexibleVersions was
    required, before trailing tokens were refused, ...), each such leniency noted in the message's
    ``warnings``; ``kwire generate`` reads with it off, as Kafka's generator does today.
    """
    warnings: list[Problem] = []
    try:
        try:
            parsed, json_warnings = jsonc.loads_with_warnings(text)
        except jsonc.JsonSyntaxError as exc:
            if not (old_format and exc.trailing_end is not None):
                raise
            parsed, json_warnings = jsonc.loads_with_warnings(text[: exc.trailing_end])
            warnings.append(Problem(source, f"line {exc.line} column {exc.column}",
                                    "text after the definition is ignored, as Kafka's generator did before "
                                    "Kafka 3.0 (KAFKA-12800); it refuses it now"))
        warnings[:0] = [Problem(source, f"line {w.line} column {w.column}", w.reason) for w in json_warnings]
        if _json_depth(parsed) > MAX_JSON_DEPTH:
            raise RecursionError
        raw = _without_nulls(_single_values_as_lists(parsed))
        problems = _schema_problems(raw, source)
        if problems:
            raise DefinitionError(problems)
        message, problems, build_warnings = build_message(raw, source, old_format=old_format)
    except jsonc.JsonSyntaxError as exc:
        raise DefinitionError([Problem(source, f"line {exc.line} column {exc.column}", exc.reason)]) from None
    except RecursionError:
        raise DefinitionError([Problem(source, "$", "fields are nested too deeply to process")]) from None
    if problems or message is None:
        raise DefinitionError(problems)
    warnings.extend(build_warnings)
    return dataclasses.replace(message, warnings=tuple(warnings)) if warnings else message


def load_file(path: str | Path, *, old_format: bool = False) -> Message:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # Jackson skips a UTF-8 byte order mark too
    except (OSError, UnicodeDecodeError) as exc:
        raise DefinitionError([Problem(str(path), "$", f"cannot read: {exc}")]) from None
    return load_text(text, str(path), old_format=old_format)


# Names kwire's own definitions wherever a definitions path is asked for (``--defs kwire:builtin``).
BUILTIN_DEFINITIONS = "kwire:builtin"


def builtin_definitions_dir() -> Path:
    """The folder of the definitions kwire ships (``message_defs/``, installed as ``kwire.message_defs``)."""
    spec = importlib.util.find_spec("kwire.message_defs")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("this kwire installation has no built-in definitions (kwire.message_defs)")
    return Path(next(iter(spec.submodule_search_locations)))


def definition_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand directories to their ``*.json`` files, subfolders included (sorted); keep files as given.

    Each folder is one apiKey space (see :func:`cross_file_problems`), so definitions that Kafka
    keeps in separate source folders with overlapping apiKeys can sit side by side in subfolders."""
    files: list[Path] = []
    for p in map(Path, paths):
        if str(p) == BUILTIN_DEFINITIONS:
            p = builtin_definitions_dir()
        files.extend(sorted(p.rglob("*.json")) if p.is_dir() else [p])
    return files


def load_definitions(paths: Iterable[str | Path], *, old_format: bool = False) -> list[Message]:
    """Load every definition under ``paths``; raise one DefinitionError listing all problems.

    Each message's ``warnings`` lists what was accepted anyway (see :func:`load_text`)."""
    messages: list[Message] = []
    problems: list[Problem] = []
    for file in definition_files(paths):
        try:
            messages.append(load_file(file, old_format=old_format))
        except DefinitionError as exc:
            problems.extend(exc.problems)
    problems.extend(cross_file_problems(messages))
    if problems:
        raise DefinitionError(problems)
    return sorted(messages, key=lambda m: m.name)


def cross_file_problems(messages: Iterable[Message]) -> list[Problem]:
    """Rules that span definitions: unique names, apiKeys unique per message type within a folder,
    and the request and response of one apiKey named alike (Kafka derives the API's name from both).

    Kafka runs its generator once per source folder, and an apiKey is unique within one run: the
    storage module's remote-log metadata records reuse apiKeys 0-3 of the KRaft metadata records.
    Names stay unique across folders, since the generated classes share one package."""
    problems = []
    seen_names: dict[str, Message] = {}
    seen_keys: dict[tuple[str, str, int], Message] = {}
    messages = list(messages)
    for m in messages:
        if m.name in seen_names:
            problems.append(Problem(m.source, "$.name",
                                    f"message {m.name} is also defined in {seen_names[m.name].source}"))
        seen_names.setdefault(m.name, m)
        # Coordinator record keys are unique per coordinator (group vs transaction), which a
        # directory of files cannot tell apart, so only RPCs and metadata records are checked.
        if m.api_key is None or m.type not in ("request", "response", "metadata"):
            continue
        key = (_folder(m), m.type, m.api_key)
        if key in seen_keys:
            other = seen_keys[key]
            problems.append(Problem(m.source, "$.apiKey",
                                    f"apiKey {m.api_key} of {m.type} {m.name} is already used by {other.name} "
                                    f"({other.source})"))
        seen_keys.setdefault(key, m)
    for m in messages:
        if m.type != "response" or m.api_key is None:
            continue
        request = seen_keys.get((_folder(m), "request", m.api_key))
        if request is not None and seen_keys.get((_folder(m), "response", m.api_key)) is m:
            base = request.name[: -len("Request")]
            if m.name != base + "Response":
                problems.append(Problem(m.source, "$.name",
                                        f"response {m.name} shares apiKey {m.api_key} with request {request.name} "
                                        f"({request.source}); name it {base}Response"))
    return problems


def _folder(message: Message) -> str:
    """The folder a definition was read from: its apiKey space."""
    return str(Path(message.source).parent)
