"""The error kwire.features raises for a level, feature or argument it cannot accept."""
from __future__ import annotations

from kwire.wire.errors import KwireError


class FeatureError(KwireError, ValueError):
    """An unknown metadata.version or feature level, an unknown feature, or a rule broken."""
