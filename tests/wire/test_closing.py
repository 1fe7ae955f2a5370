"""``Closing``: ``with`` hands back the object itself and closes it on the way out, error or not."""
from __future__ import annotations

import pytest

from kwire.wire.closing import Closing


class _Held(Closing):
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_with_gives_the_object_and_closes_it_once():
    held = _Held()
    with held as entered:
        assert entered is held
        assert held.closed == 0
    assert held.closed == 1


def test_an_error_inside_closes_and_is_not_swallowed():
    held = _Held()
    with pytest.raises(ValueError, match="inside"), held:
        raise ValueError("inside")
    assert held.closed == 1
