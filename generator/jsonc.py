"""Read JSON with the comments Kafka's definition files contain.

Kafka parses definitions with Jackson's ALLOW_COMMENTS, so both ``// line`` and ``/* block */``
comments appear in real files. We blank comments out (keeping newlines, so the line and column
numbers of later JSON errors stay true) and parse the rest strictly: duplicate keys, trailing
tokens and the non-standard NaN/Infinity literals are errors, as they are for Jackson.
"""
from __future__ import annotations

import json
from typing import Any


class JsonSyntaxError(ValueError):
    """Malformed input; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        self.line, self.column, self.reason = line, column, message
        super().__init__(f"line {line} column {column}: {message}")


class JsonFloat(float):
    """A JSON number with a fraction or exponent, keeping its source text.

    Jackson hands a number to a String property as the token's text ("1.50" stays "1.50"), and
    Kafka reads ``default`` as a String, so the text must survive parsing.
    """

    text: str

    def __new__(cls, text: str) -> "JsonFloat":
        value = super().__new__(cls, text)
        value.text = text
        return value


def strip_comments(text: str) -> str:
    """Replace every comment outside string literals with spaces of the same shape."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
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
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


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


def _duplicate_key_index(clean: str, name: str) -> int:
    """Offset of the first repeat of key ``name`` within one object (0 when not found).

    json's hook knows which key repeats but not where; this scan finds it. The text may be
    malformed after the duplicate, so every loop is bounded by the text's end.
    """
    scopes: list[set[str] | None] = []  # one entry per open object (its keys) or array (None)
    i, n = 0, len(clean)
    while i < n:
        ch = clean[i]
        if ch == '"':
            j = i + 1
            while j < n and clean[j] != '"':
                j += 2 if clean[j] == "\\" else 1
            if j >= n:
                break
            k = j + 1
            while k < n and clean[k] in " \t\r\n":
                k += 1
            if k < n and clean[k] == ":" and scopes and scopes[-1] is not None:
                try:
                    key = json.loads(clean[i : j + 1])
                except ValueError:  # malformed text past the duplicate
                    break
                if key == name and key in scopes[-1]:
                    return i
                scopes[-1].add(key)
            i = j + 1
            continue
        if ch == "{":
            scopes.append(set())
        elif ch == "[":
            scopes.append(None)
        elif ch in "}]" and scopes:
            scopes.pop()
        i += 1
    return 0


def loads(text: str) -> Any:
    """Parse commented JSON; raise JsonSyntaxError with a position on any problem."""
    clean = strip_comments(text)
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_float=JsonFloat,
                               parse_constant=_reject_constant)
    start = len(clean) - len(clean.lstrip())
    try:
        value, end = decoder.raw_decode(clean, start)
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(exc.msg, exc.lineno, exc.colno) from None
    except _DuplicateKey as exc:
        line, col = _position(clean, _duplicate_key_index(clean, exc.args[0]))
        raise JsonSyntaxError(f"duplicate key {exc.args[0]!r}", line, col) from None
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
        raise JsonSyntaxError("unexpected trailing tokens after the definition", line, col)
    return value
