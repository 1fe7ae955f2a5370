"""kwire's pytest plugin: the ``kwire_round_trip`` fixture.

pytest loads it in every project where kwire is installed (the ``pytest11`` entry point), so it
imports nothing at load time but pytest: kwire and hypothesis load when a test asks for the fixture.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture(scope="session")  # session: hypothesis's @given refuses function-scoped fixtures
def kwire_round_trip() -> Callable[[Any, int], Any]:
    """``kwire_round_trip(message, version)``: assert that a generated message round-trips at
    ``version`` (see :func:`kwire.testing.assert_round_trip`); returns it as decoded."""
    from kwire.testing import assert_round_trip

    return assert_round_trip
