"""kwire's pytest plugin: the ``kwire_round_trip`` and ``kwire_mock_cluster`` fixtures.

pytest loads it in every project where kwire is installed (the ``pytest11`` entry point), so it
imports nothing at load time but pytest: kwire and hypothesis load when a test asks for the fixture.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")  # session: hypothesis's @given refuses function-scoped fixtures
def kwire_round_trip() -> Callable[[Any, int], Any]:
    """``kwire_round_trip(message, version)``: assert that a generated message round-trips at
    ``version`` (see :func:`kwire.testing.assert_round_trip`); returns it as decoded."""
    from kwire.testing import assert_round_trip

    return assert_round_trip


@pytest.fixture
def kwire_mock_cluster() -> Iterator[str]:
    """The bootstrap servers of a fresh librdkafka mock cluster (one broker on loopback), stopped
    after the test (see :func:`kwire.testing.mock_cluster`; needs ``kwire[mock]``)."""
    from kwire.testing import mock_cluster

    with mock_cluster() as bootstrap:
        yield bootstrap
