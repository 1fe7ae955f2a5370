"""The error a metadata record raises when Kafka's image would refuse to apply it."""
from __future__ import annotations

from kwire.wire.errors import KwireError


class ReplayError(KwireError):
    """A record Kafka's image would refuse to apply (Kafka's own reason in the message)."""
