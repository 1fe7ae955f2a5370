"""Every decoder the hostile-input run attacks, by name.

Names are ``family:detail``: ``message:FetchResponse:v12``, ``json:FetchResponse``,
``header:request:v2``, ``frame:response``, ``connection:receive``, ``records:reader``, ``definition``. Selections are
shell patterns over the names (``message:Fetch*``, ``records:*``) or family names (``records``).

To add a decoder, return its :class:`Target` from one of the ``*_targets`` functions below
(or a new one listed in :func:`all_targets`); the definition-file target, which needs the
generator, is the command line's:
``kwire.cli.definition_target``.
"""
from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

from .codec_targets import json_targets, message_targets
from .connection_targets import connection_targets
from .metadata_targets import metadata_targets
from .record_targets import record_targets
from .target import Target
from .wire_targets import wire_targets


def all_targets(extra: Sequence[Target] = ()) -> list[Target]:
    """Every runtime decoder's target, then ``extra`` (the command line adds the definition loader's,
    which lives with the generator: the runtime does not import it)."""
    from kwire.generated import MESSAGES

    messages = dict(MESSAGES)
    return [
        *message_targets(messages),
        *json_targets(messages),
        *wire_targets(),
        *connection_targets(),
        *record_targets(),
        *metadata_targets(),
        *extra,
    ]


class UnknownTargetError(ValueError):
    """A selection pattern that names no target."""


def select(targets: list[Target], patterns: list[str] | None) -> list[Target]:
    """The targets matching any of ``patterns`` (all when None), in registry order."""
    if not patterns:
        return list(targets)
    for pattern in patterns:
        if not any(_matches(t, pattern) for t in targets):
            raise UnknownTargetError(f"no target matches {pattern!r}")
    return [t for t in targets if any(_matches(t, p) for p in patterns)]


def _matches(target: Target, pattern: str) -> bool:
    return target.family == pattern or fnmatchcase(target.name, pattern)
