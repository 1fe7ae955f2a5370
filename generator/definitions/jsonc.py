"""Read JSON with the comments Kafka's definition files contain.

Kafka parses definitions with Jackson's ALLOW_COMMENTS, so both ``// line`` and ``/* block */``
comments appear in real files. We blank comments out (keeping newlines, so the line and column
numbers of later JSON errors stay true) and parse the rest strictly: trailing tokens and the
non-standard NaN/Infinity literals are errors, as they are for Jackson.

A key repeated inside one object is where kwire is stricter than Jackson, which silently keeps the
last value. Kafka's own files repeat keys with the same value (DescribeTopicPartitionsRequest
repeats ``"versions": "0+"``), so an equal repeat is accepted with a warning naming both lines;
a repeat with another value stays an error, since which one the author meant is unknowable.
"""
from __future__ import annotations

import bisect
import json
from typing import Any


class JsonSyntaxError(ValueError):
    """Malformed input; ``line`` and ``column`` are 1-based.

    ``trailing_end`` is set when the only problem is text after a complete value: the offset where
    that value ends (older Kafka generators ignored such text, so old files may have it)."""

    def __init__(self, message: str, line: int, column: int, trailing_end: int | None = None) -> None:
        self.line, self.column, self.reason = line, column, message
        self.trailing_end = trailing_end
        super().__init__(f"line {line} column {column}: {message}")


class JsonWarning(ValueError):
    """Something accepted but worth fixing; ``line`` and ``column`` are 1-based (of the repeat)."""

    def __init__(self, message: str, line: int, column: int) -> None:
        self.line, self.column, self.reason = line, column, message
        super().__init__(f"line {line} column {column}: {message}")


class JsonFloat(float):
    """A JSON number with a fraction or exponent, keeping its source text.

    Jackson hands a number to a String property as the token's text ("1.50" stays "1.50"), and
    Kafka reads ``default`` as a String, so the text must survive parsing.
    """

    text: str

    def __new__(cls, text: str) -> JsonFloat:
        value = super().__new__(cls, text)
        value.text = text
        return value


def _string_end(text: str, start: int) -> int:
    """The index of the quote that closes the string literal opening at ``text[start]``, past its
    escapes; ``len(text)`` or more when the text ends first."""
    j = start + 1
    while j < len(text) and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return j


def strip_comments(text: str) -> str:
    """Replace every comment outside string literals with spaces of the same shape."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = _string_end(text, i)
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                line, col = _position(text, i)
                raise JsonSyntaxError("unterminated /* comment", line, col)
            out.append("".join(c if c == "\n" else " " for c in text[i : j + 2]))
            i = j + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


class _DuplicateKey(ValueError):
    """A key repeated with another value in the object closed ``object_number``-th."""

    def __init__(self, key: str, object_number: int) -> None:
        super().__init__(key)
        self.key, self.object_number = key, object_number


class _DuplicateKeyHook:
    """``object_pairs_hook`` that keeps equal repeats (noting them) and refuses unequal ones.

    json calls the hook once per object as the object closes, so the count of calls identifies the
    object; :func:`_objects_by_closing` finds the same object in the text to say where it is.
    """

    def __init__(self) -> None:
        self.closed = 0
        self.equal_repeats: list[tuple[int, str]] = []  # (object number, key)

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        number = self.closed
        self.closed += 1
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                if not _same_json(result[key], value):
                    raise _DuplicateKey(key, number)
                self.equal_repeats.append((number, key))
            result[key] = value
        return result


def _same_json(a: Any, b: Any) -> bool:
    """The same JSON value as Kafka reads it. Stricter than Python's ==, which takes 1 for true and
    1 for 1.0: Kafka reads many keys as strings, where a number's text is the value."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, JsonFloat):
        return a.text == b.text
    return bool(a == b)


class _BadConstant(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _BadConstant(name)


def _unquoted_index(clean: str, token: str) -> int:
    """Offset of the first ``token`` outside string literals (0 when not found)."""
    i, n = 0, len(clean)
    while i < n:
        if clean[i] == '"':
            i += 1
            while i < n and clean[i] != '"':
                i += 2 if clean[i] == "\\" else 1
        elif clean.startswith(token, i):
            return i
        i += 1
    return 0


def _objects_by_closing(clean: str) -> list[dict[str, list[int]]]:
    """For each object, in the order its closing brace appears: key -> offsets of each occurrence.

    The text may be malformed after the point of interest, so every loop is bounded by its end.
    """
    closed: list[dict[str, list[int]]] = []
    scopes: list[dict[str, list[int]] | None] = []  # one entry per open object (its keys) or array (None)
    i, n = 0, len(clean)
    while i < n:
        ch = clean[i]
        if ch == '"':
            j = _string_end(clean, i)
            if j >= n:
                break
            k = j + 1
            while k < n and clean[k] in " \t\r\n":
                k += 1
            if k < n and clean[k] == ":" and scopes and scopes[-1] is not None:
                try:
                    key = json.loads(clean[i : j + 1])
                except ValueError:  # malformed text past the point of interest
                    break
                scopes[-1].setdefault(key, []).append(i)
            i = j + 1
            continue
        if ch == "{":
            scopes.append({})
        elif ch == "[":
            scopes.append(None)
        elif ch in "}]" and scopes:
            scope = scopes.pop()
            if scope is not None:
                closed.append(scope)
        i += 1
    return closed


class _LineIndex:
    """(line, column) of offsets in one text, each in logarithmic time (a text may have many)."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def position(self, index: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, index)
        return line, index - self.starts[line - 1] + 1


def _repeat_positions(lines: _LineIndex, objects: list[dict[str, list[int]]], object_number: int,
                      key: str) -> list[tuple[int, int]]:
    """(line, column) of every occurrence of ``key`` in the given object (empty when not found)."""
    if object_number >= len(objects):
        return []
    return [lines.position(offset) for offset in objects[object_number].get(key, [])]


def _lines(places: list[tuple[int, int]]) -> str:
    """Where a key occurs: "line 27 and line 28", or the first and last of many."""
    if len(places) < 2:
        return "two places"
    if len(places) == 2:
        return f"line {places[0][0]} and line {places[1][0]}"
    return f"{len(places)} times, first at line {places[0][0]}, last at line {places[-1][0]}"


def loads(text: str) -> Any:
    """Parse commented JSON; raise JsonSyntaxError with a position on any problem."""
    return loads_with_warnings(text)[0]


def loads_with_warnings(text: str) -> tuple[Any, list[JsonWarning]]:
    """Parse commented JSON; return the value and the warnings about what was accepted anyway."""
    clean = strip_comments(text)
    hook = _DuplicateKeyHook()
    decoder = json.JSONDecoder(object_pairs_hook=hook, parse_float=JsonFloat,
                               parse_constant=_reject_constant)
    start = len(clean) - len(clean.lstrip())
    try:
        value, end = decoder.raw_decode(clean, start)
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(exc.msg, exc.lineno, exc.colno) from None
    except _DuplicateKey as exc:
        places = _repeat_positions(_LineIndex(clean), _objects_by_closing(clean), exc.object_number, exc.key)
        line, col = places[-1] if places else (1, 1)
        raise JsonSyntaxError(f"duplicate key {exc.key!r} with different values ({_lines(places)}); Kafka's "
                              "generator would silently keep the last, so say which one is meant", line, col) from None
    except _BadConstant as exc:
        line, col = _position(clean, _unquoted_index(clean, exc.args[0]))
        raise JsonSyntaxError(f"{exc.args[0]} is not valid JSON", line, col) from None
    except RecursionError:
        raise JsonSyntaxError("nesting is too deep", 1, 1) from None
    except ValueError as exc:  # an integer too long for Python to convert
        raise JsonSyntaxError(str(exc), 1, 1) from None
    rest = clean[end:]
    if rest.strip():
        line, col = _position(clean, end + (len(rest) - len(rest.lstrip())))
        raise JsonSyntaxError("unexpected trailing tokens after the definition", line, col, trailing_end=end)
    warnings = []
    objects = _objects_by_closing(clean) if hook.equal_repeats else []
    lines = _LineIndex(clean) if hook.equal_repeats else None
    for number, key in dict.fromkeys(hook.equal_repeats):  # one warning per object and key
        places = _repeat_positions(lines, objects, number, key)  # type: ignore[arg-type]
        line, col = places[-1] if places else (1, 1)
        warnings.append(JsonWarning(f"duplicate key {key!r} with equal values ({_lines(places)}); accepted as Kafka's "
                                    "generator does, but only one should stay", line, col))
    return value, warnings
