"""Talking to brokers: request/response headers, size-prefixed frames and a correlator, Kafka's error
codes (``errors``), version negotiation (``versions``), SASL (``sasl``), a sans-I/O
:class:`Connection` with asyncio (``aio``) and blocking (``blocking``) adapters, an example client."""
from .connection import Connection as Connection  # no __all__: pdoc would then hide the submodules
