"""``kwire.testing``'s bounds and switches, against Kafka's own definition of the message:
ApiVersionsRequest.json (message_defs/, copied from Kafka) says ``"validVersions": "0-4"`` and
``"flexibleVersions": "3+"``; the expected versions below are read from that file, not from kwire.

Mutants these kill (tests/README.md, mutation testing): ``kwire.testing.x_messages__mutmut_*``
(the version bound ``low <= version <= high`` moved by one either side, the ``unknown_tags``
switch dropped or flipped) and ``x_message_versions__mutmut_*`` (the range's ends: its start is checked on
the definitions whose versions start above 0, ShareFetchRequest.json's ``"1-2"`` among them)."""
from __future__ import annotations

import json
import sys

import pytest

from kwire.generated import ApiVersionsRequest
from kwire.testing import assert_round_trip, message_versions, messages
from kwire.wire.errors import UnsupportedVersionError
from tests.optional import need_module
from tests.paths import REPO


def kafka_versions(name: str) -> tuple[int, int]:
    """validVersions of Kafka's own definition file (comments stripped as Kafka's loader does)."""
    text = (REPO / "message_defs" / f"{name}.json").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    low, _, high = json.loads("\n".join(lines))["validVersions"].partition("-")
    return int(low), int(high or low)  # "0" is the one version 0


def test_messages_accepts_both_ends_of_kafkas_version_range_and_refuses_one_past_each() -> None:
    low, high = kafka_versions("ApiVersionsRequest")
    assert (low, high) == (0, 4)
    hypothesis = need_module("hypothesis")
    for version in (low, high):  # both ends are valid: a strategy that draws an instance
        instance = hypothesis.find(messages(ApiVersionsRequest, version), lambda m: True)
        assert isinstance(instance, ApiVersionsRequest)
    for version in (low - 1, high + 1):
        with pytest.raises(UnsupportedVersionError, match=rf"^ApiVersionsRequest has versions 0-4, not {version}$"):
            messages(ApiVersionsRequest, version)


def test_unknown_tags_are_drawn_only_when_asked_and_only_at_flexible_versions() -> None:
    hypothesis = need_module("hypothesis")
    errors = need_module("hypothesis.errors")
    settings = hypothesis.settings(max_examples=200, database=None, deadline=None)
    # flexible since v3 (Kafka's flexibleVersions "3+"): by default a newer peer's unknown tags appear
    found = hypothesis.find(messages(ApiVersionsRequest, 3), lambda m: bool(m.unknown_tagged_fields),
                            settings=settings)
    assert found.unknown_tagged_fields
    for version, unknown_tags in ((3, False), (2, True)):
        with pytest.raises(errors.NoSuchExample):
            hypothesis.find(messages(ApiVersionsRequest, version, unknown_tags=unknown_tags),
                            lambda m: bool(m.unknown_tagged_fields), settings=settings)


def test_message_versions_ends_at_kafkas_last_version() -> None:
    import kwire.generated

    low, high = kafka_versions("ApiVersionsRequest")
    listed = [(cls, v) for cls, v in message_versions(kwire.generated) if cls is ApiVersionsRequest]
    assert listed == [(ApiVersionsRequest, v) for v in range(low, high + 1)]


def test_message_versions_starts_at_kafkas_first_version_where_that_is_not_0() -> None:
    """Each message whose Kafka definition starts above version 0 is listed from that version on, not
    one version before it (kills ``x_message_versions__mutmut_9``: ``range(low, high + 1)`` ->
    ``range(high + 1)``, which listed versions 0 to low - 1 too)."""
    import kwire.generated

    later = {path.stem: kafka_versions(path.stem) for path in sorted((REPO / "message_defs").glob("*.json"))}
    later = {name: bounds for name, bounds in later.items() if bounds[0] > 0}
    assert later["ShareFetchRequest"] == (1, 2) and later["ShareGroupHeartbeatRequest"] == (1, 1)
    listed: dict[str, list[int]] = {}
    for cls, version in message_versions(kwire.generated):
        listed.setdefault(cls.__name__, []).append(version)
    for name, (low, high) in later.items():
        assert listed[name] == list(range(low, high + 1)), name
        assert low - 1 not in listed[name], name


def test_message_versions_takes_a_package_by_name() -> None:
    """By name as by module; ApiVersionsRequest's versions as Kafka's file says.
    Kills ``x_message_versions__mutmut_2`` and ``_4`` (the name never imported)."""
    import kwire.generated

    listed = message_versions("kwire.generated")
    assert listed == message_versions(kwire.generated)
    low, high = kafka_versions("ApiVersionsRequest")
    assert [v for cls, v in listed if cls is ApiVersionsRequest] == list(range(low, high + 1))


def test_assert_round_trip_lists_each_broken_property_on_its_own_line() -> None:
    """A message that equals nothing fails the decode, the offset read and the JSON round trip: three
    findings, one a line. Kills ``x_assert_round_trip__mutmut_10`` (the lines' separator)."""

    class NeverEqual(ApiVersionsRequest):
        __hash__ = None

        def __eq__(self, other: object) -> bool:
            return False

    with pytest.raises(AssertionError) as caught:
        assert_round_trip(NeverEqual(client_software_name="kwire"), 3)
    head, *findings = str(caught.value).split("\n  ")
    assert head == "NeverEqual v3 does not round-trip:"
    assert [f.split(" ")[0] for f in findings] == ["decode(encode(m))", "read", "from_dict(to_dict(m))"]


def test_messages_without_hypothesis_says_what_to_install(monkeypatch) -> None:
    """Kills ``x_messages__mutmut_4`` ... ``_16`` (the missing-hypothesis branch: which module, the
    message, the name the error carries)."""
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # as Python does for a package not installed
    monkeypatch.delitem(sys.modules, "kwire.fuzz.strategies", raising=False)
    with pytest.raises(ModuleNotFoundError) as caught:
        messages(ApiVersionsRequest, 0)
    assert str(caught.value) == "kwire.testing.messages needs hypothesis; install kwire[fuzz]"
    assert caught.value.name == "hypothesis"


def test_messages_does_not_blame_hypothesis_for_another_missing_module(monkeypatch) -> None:
    """Kills ``x_messages__mutmut_7`` (every missing module reported as hypothesis)."""
    monkeypatch.setitem(sys.modules, "kwire.fuzz.strategies", None)
    with pytest.raises(ModuleNotFoundError) as caught:
        messages(ApiVersionsRequest, 0)
    assert caught.value.name == "kwire.fuzz.strategies"
