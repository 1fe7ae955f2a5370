"""Talking to brokers: request/response headers, size-prefixed frames and a correlator, Kafka's error
codes (``errors``), version negotiation (``versions``), SASL (``sasl``), a sans-I/O
:class:`Connection` with asyncio (``aio``) and blocking (``blocking``) adapters, an example client."""
from .connection import Connection

__all__ = ["Connection"]
