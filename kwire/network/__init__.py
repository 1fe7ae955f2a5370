"""Talking to brokers: request/response headers, size-prefixed frames and a correlator, Kafka's error
codes (``errors``), version negotiation (``versions``), SASL (``sasl``), a sans-I/O
:class:`Connection` with asyncio (``aio``) and blocking (``blocking``) adapters, and a small
blocking client (``client``).

``Connection`` is imported on first use, so that ``kwire.network.framing`` alone stays light."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .connection import (
        Connection as Connection,  # no __all__: pdoc would then hide the submodules
    )


def __getattr__(name: str) -> Any:
    if name == "Connection":
        from .connection import Connection

        return Connection
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
