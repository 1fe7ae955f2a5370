"""Error codes as a user's typed code handles them: what `mypy --strict` must accept
(tests/network/test_typing.py). ``ErrorCode(6)`` is the lookup, not the members' constructor."""
from __future__ import annotations

from kwire.network.errors import ErrorCode
from kwire.wire.error_codes import ErrorCode as WireErrorCode


def describe(code: int) -> str:
    found = ErrorCode.of(code)
    return f"{found.name} ({int(found)}): {found.description}" + ("" if found.known else " [unknown]")


LEADER: ErrorCode = ErrorCode(6)
RETRIABLE: bool = LEADER.retriable
UNKNOWN: WireErrorCode = ErrorCode.of(999)
SAME_TABLE: bool = ErrorCode.NONE is WireErrorCode(0)
NEXT: int = ErrorCode.NONE + 1
