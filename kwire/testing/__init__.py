"""Fuzz your own generated codecs inside your own test suite.

For any package ``kwire generate`` wrote (kwire's own ``kwire.generated`` included):

* :func:`messages` — a hypothesis strategy of instances of a message class valid at a version
  (needs hypothesis: ``pip install kwire[fuzz]``; imported only when called);
* :func:`assert_round_trip` — the round-trip properties ``kwire fuzz`` checks, as one assertion;
* :func:`message_versions` — every (class, version) of a package, for ``pytest.mark.parametrize``;
* :func:`mock_cluster` — librdkafka's mock Kafka cluster on loopback, for tests that need a broker
  (needs confluent-kafka: ``pip install 'kwire[mock]'``; imported only when called);
* a pytest plugin (``kwire.testing.plugin``, loaded by pytest through its ``pytest11`` entry point
  once kwire is installed) with the ``kwire_round_trip`` and ``kwire_mock_cluster`` fixtures.

For example::

    @pytest.mark.parametrize("cls, version", message_versions(mycodecs))
    def test_round_trip(cls, version, kwire_round_trip):
        @hypothesis.given(messages(cls, version))
        def check(message):
            kwire_round_trip(message, version)
        check()
"""
from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from kwire.testing.cluster import MockClusterError, mock_cluster
from kwire.wire.errors import UnsupportedVersionError

# The pytest plugin (kwire.testing.plugin) loads this package in every pytest run where kwire is
# installed: the fuzz machinery and hypothesis are imported only when a function here is called.
if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from kwire.wire.index import ProtocolIndex
    from kwire.wire.message import GeneratedStruct

__all__ = ["MockClusterError", "assert_round_trip", "message_versions", "messages", "mock_cluster"]


def messages(cls: type[GeneratedStruct], version: int, *, unknown_tags: bool = True) -> SearchStrategy:
    """Instances of ``cls`` valid at ``version``, with shrinking (hypothesis).

    ``unknown_tags`` adds unknown tagged fields at flexible versions, as a newer peer would send."""
    low, high = cls.VALID_VERSIONS
    if not low <= version <= high:
        raise UnsupportedVersionError(f"{cls.__name__} has versions {low}-{high}, not {version}")
    try:
        from kwire.fuzz.strategies import instances
    except ModuleNotFoundError as exc:
        if exc.name != "hypothesis":
            raise
        raise ModuleNotFoundError("kwire.testing.messages needs hypothesis; install kwire[fuzz]",
                                  name="hypothesis") from None
    return instances(cls, version, unknown_tags=unknown_tags)


def assert_round_trip(message: GeneratedStruct, version: int) -> GeneratedStruct:
    """Check that ``message`` round-trips at ``version``; return it as decoded from its bytes.

    size == len(encode), decode(encode(m)) == m (also at an offset), encode(decode(b)) == b and
    from_dict(to_dict(m)) == m through JSON text. An ``AssertionError`` lists every property that
    fails."""
    from kwire.fuzz.properties import check_round_trip

    problems = check_round_trip(message, version)
    if problems:
        raise AssertionError(f"{type(message).__name__} v{version} does not round-trip:\n  " + "\n  ".join(problems))
    return type(message).decode(message.encode(version), version)


def message_versions(package: str | ModuleType | ProtocolIndex) -> list[tuple[type[GeneratedStruct], int]]:
    """Every (message class, version) of a generated package (its index's messages), by name and version."""
    # imported here: the pytest plugin imports this module in every run
    from kwire.wire.index import load

    pairs = []
    for _name, cls in sorted(load(package).messages.items()):
        low, high = cls.VALID_VERSIONS
        pairs += [(cls, version) for version in range(low, high + 1)]
    return pairs
