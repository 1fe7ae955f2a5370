"""``Closing``: the one ``with`` protocol of kwire's objects that hold a file, a socket or a peer."""
from __future__ import annotations

from typing import Self


class Closing:
    """A base for objects whose ``close()`` releases what they hold: ``with obj:`` closes it on the way out."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
