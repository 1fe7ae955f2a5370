"""The round-trip properties every (message, version) must have, checked on one instance.

For an instance ``m`` valid at version ``v``:

* ``decode(encode(m)) == m``, also through ``read`` at a non-zero offset
* ``encode(decode(b)) == b``: kwire's own output is canonical, so re-encoding gives the same bytes
* ``from_dict(to_dict(m)) == m``, through real JSON text (so the form is JSON-serialisable)

``check_round_trip`` returns the problems found as text (empty when all hold) and never raises:
a codec bug must be reported with its case, not abort the run.
"""
from __future__ import annotations

import json
import traceback

from kwire.wire.message import GeneratedStruct

from .diff import differences


def check_round_trip(obj: GeneratedStruct, version: int) -> list[str]:
    cls = type(obj)
    try:
        data = obj.encode(version)
    except Exception as exc:  # noqa: BLE001 - any failure to encode a valid instance is a finding
        return [f"encode v{version} raised {_describe(exc)}"]
    problems = []
    problems += _check("decode", lambda: _decode(cls, obj, version, data))
    problems += _check("read", lambda: _read(cls, obj, version, data))
    problems += _check("json", lambda: _json(cls, obj, version))
    return problems


def _decode(cls: type[GeneratedStruct], obj: GeneratedStruct, version: int, data: bytes) -> list[str]:
    back = cls.decode(data, version)
    problems = []
    if back != obj:
        problems.append(f"decode(encode(m)) != m, fields differ: {', '.join(differences(obj, back)) or '?'}")
    again = back.encode(version)
    if again != data:
        problems.append(f"encode(decode(b)) != b ({len(again)} vs {len(data)} bytes, first difference at "
                        f"byte {_first_difference(again, data)})")
    return problems


def _read(cls: type[GeneratedStruct], obj: GeneratedStruct, version: int, data: bytes) -> list[str]:
    back, end = cls.read(b"\xa5\xa5\xa5" + data + b"\x5a", 3, version)
    if end != 3 + len(data):
        return [f"read stopped at {end}, expected {3 + len(data)}"]
    return [] if back == obj else [f"read at an offset differs in: {', '.join(differences(obj, back))}"]


def _json(cls: type[GeneratedStruct], obj: GeneratedStruct, version: int) -> list[str]:
    text = json.dumps(obj.to_dict(version), allow_nan=False)
    back = cls.from_dict(json.loads(text), version)
    if back != obj:
        return [f"from_dict(to_dict(m)) != m, fields differ: {', '.join(differences(obj, back)) or '?'}"]
    return []


def _check(name: str, fn) -> list[str]:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001
        return [f"{name} raised {_describe(exc)}"]


def _describe(exc: BaseException) -> str:
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
    return f"{type(exc).__name__}: {exc}{where}"


def _first_difference(a: bytes, b: bytes) -> int:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))
