"""Hostile JSON documents: structural mutations of valid ones.

Byte mutations of JSON text mostly stop at the parser. These keep the text parseable and change
what it says instead: a value swapped for an awkward one (huge integers, version strings that
are not versions, type names, non-ASCII base64, deep nesting), a key dropped or renamed, an
element duplicated. They feed the definition loader and kwire's JSON form.
"""
from __future__ import annotations

import copy
import json
import random
from typing import Any

_DEEP = "\x00deep\x00"  # stands for nesting too deep to build as Python objects
_DEEP_LEVELS = 3000

INTERESTING_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 127, 128, 255, 32767, 32768, -32769, 2**31 - 1, 2**31, -2**31 - 1,
    2**32, 2**63 - 1, 2**63, -2**63 - 1, 10**400, 1.5, -0.0, 1e308, "", "0", "1", "-1", "0+", "1+",
    "0-0", "1-0", "3-1", "0-32767", "32768+", "-1+", "none", "all", "99999999999999999999+",
    "0x7f", "1e3", " 1", "\u00e9", "\ud800", "\x00", "a" * 40000, "[]", "[]int8", "[][]int32",
    "[]Foo", "int8", "int16", "int32", "int64", "uint16", "uint32", "float64", "string", "bytes",
    "records", "uuid", "bool", "Struct", "request", "response", "metadata", "data", "header",
    "AAAA", "AAAAAAAAAAAAAAAAAAAAAA", "====", "\u00e9\u00e9\u00e9\u00e9", "-_-_", "1" * 5000,
    "NaN", "Infinity", "true", "null", [], {}, [1, 2], {"tag": 0, "data": "AA=="},
    {"tag": -1, "data": "\u00e9"}, {"tag": "0", "data": 0}, _DEEP,
)

_KEY_NAMES = (
    "name", "type", "versions", "validVersions", "flexibleVersions", "nullableVersions",
    "taggedVersions", "tag", "default", "ignorable", "mapKey", "entityType", "fields",
    "commonStructs", "apiKey", "listeners", "about", "zeroCopy", "latestVersionUnstable",
    "_unknownTaggedFields", "x", "",
)


def mutate_document(rng: random.Random, document: Any) -> str:
    """One to four structural mutations of ``document`` (not modified), as JSON text."""
    root = [copy.deepcopy(document)]  # a private copy, boxed so that the root itself can change
    for _ in range(rng.randint(1, 4)):
        _mutate_once(rng, root)
    text = json.dumps(root[0], ensure_ascii=rng.random() < 0.5)
    # json.dumps writes the marker's NUL as \u0000 in both modes, so one replace finds it.
    return text.replace(json.dumps(_DEEP), "[" * _DEEP_LEVELS + "]" * _DEEP_LEVELS)


def _slots(root: list) -> list[tuple[Any, Any]]:
    """Every (container, key or index) under ``root``, visited breadth first, at most 2000."""
    found: list[tuple[Any, Any]] = [(root, 0)]
    i = 0
    while i < len(found) and len(found) < 2000:
        container, key = found[i]
        value = container[key]
        if isinstance(value, dict):
            found.extend((value, k) for k in value)
        elif isinstance(value, list):
            found.extend((value, j) for j in range(len(value)))
        i += 1
    return found


def _mutate_once(rng: random.Random, root: list) -> None:
    container, key = rng.choice(_slots(root))
    value = container[key]
    r = rng.random()
    if r < 0.45:  # a copy: the shared lists and objects above must never be mutated later
        container[key] = copy.deepcopy(rng.choice(INTERESTING_VALUES))
    elif r < 0.6 and container is not root:
        del container[key]
    elif r < 0.7 and isinstance(container, dict):
        container[rng.choice(_KEY_NAMES)] = container.pop(key)
    elif r < 0.8 and isinstance(container, list) and container is not root:
        container.insert(rng.randint(0, len(container)), copy.deepcopy(value))
    elif r < 0.85 and isinstance(value, int) and not isinstance(value, bool):
        container[key] = value + rng.choice((-1, 1, -2**31, 2**31, 2**64))
    elif r < 0.9 and isinstance(value, str):
        container[key] = value + rng.choice(("+", "-", "0", "[]", " ", "\u00e9", "1-0"))
    elif r < 0.95:
        container[key] = rng.choice(([value], {"x": value}, [value] * 50))
    else:
        other_container, other_key = rng.choice(_slots(root))
        container[key] = copy.deepcopy(other_container[other_key])
