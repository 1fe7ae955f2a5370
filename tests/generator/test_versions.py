"""Version ranges: Kafka's syntax, and the set operations checked against plain Python sets."""
from __future__ import annotations

import itertools

import pytest

from kwire.generator.definitions.versions import ALL, MAX_VERSION, NONE, Versions
from tests.optional import need_module


@pytest.mark.parametrize(("text", "expected"), [
    ("none", NONE),
    ("0", Versions(0, 0)),
    ("7", Versions(7, 7)),
    ("1-4", Versions(1, 4)),
    ("2+", Versions(2, MAX_VERSION)),
    ("0+", ALL),
    (" 3-5 ", Versions(3, 5)),
    ("32767", Versions(MAX_VERSION, MAX_VERSION)),
    ("0-32767", ALL),
])
def test_parse(text: str, expected: Versions) -> None:
    assert Versions.parse(text) == expected


@pytest.mark.parametrize("text", ["none", "0", "7", "1-4", "2+", "0+", "12-13", "32767"])
def test_parse_agrees_with_kafka_python(text: str) -> None:
    """kafka-python reads the same syntax into (lowest, highest); "none" is its (-1, -1)."""
    low, high = need_module("kafka.protocol.schemas").BaseField.parse_versions(text)
    parsed = Versions.parse(text)
    if (low, high) == (-1, -1):
        assert parsed.empty
    else:
        assert (parsed.lowest, parsed.highest) == (low, high)


@pytest.mark.parametrize("text", [None, "", "   "])
def test_missing_or_blank_takes_the_default(text: str | None) -> None:
    assert Versions.parse(text, Versions(4, 4)) == Versions(4, 4)
    with pytest.raises(ValueError, match="versions are required"):
        Versions.parse(text)


@pytest.mark.parametrize(("text", "reason"), [
    ("1..3", "expected 'none', 'N', 'N-M' or 'N+'"),
    ("-1", "expected"),
    ("1-", "expected"),
    ("+", "expected"),
    ("1 - 3", "expected"),
    ("None", "expected"),
    ("\u0661", "expected"),  # ARABIC-INDIC DIGIT ONE: only ASCII digits are versions
    ("3-1", "lowest is above highest"),
    ("32768", "versions are int16"),
    ("0-40000", "versions are int16"),
    ("40000+", "versions are int16"),
    ("1" * 50, "expected"),
])
def test_parse_rejects(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason.replace("+", r"\+").replace("(", r"\(")):
        Versions.parse(text)


@pytest.mark.parametrize(("versions", "text"), [
    (NONE, "none"),
    (Versions(3, 3), "3"),
    (Versions(1, 4), "1-4"),
    (Versions(2, MAX_VERSION), "2+"),
    (Versions(MAX_VERSION, MAX_VERSION), "32767"),  # Kafka checks lowest == highest first
    (Versions(5, 2), "none"),
])
def test_str(versions: Versions, text: str) -> None:
    assert str(versions) == text


def test_str_parses_back() -> None:
    for low, high in itertools.product(range(0, 6), [0, 3, 5, MAX_VERSION]):
        if low <= high:
            assert Versions.parse(str(Versions(low, high))) == Versions(low, high)


def test_properties() -> None:
    assert NONE.empty and not NONE.open_ended and list(NONE) == []
    assert Versions(2, MAX_VERSION).open_ended and not Versions(2, 9).open_ended
    assert list(Versions(2, 4)) == [2, 3, 4]
    assert 3 in Versions(2, 4) and 5 not in Versions(2, 4) and 0 not in NONE


# --- set operations, against an oracle made of Python sets -----------------------------------

SMALL = [NONE] + [Versions(low, high) for low in range(6) for high in range(low, 6)]


def as_set(v: Versions) -> set[int]:
    return set(range(v.lowest, v.highest + 1))


def from_set(values: set[int]) -> Versions | None:
    """The range holding exactly ``values``; NONE when empty, None when not contiguous."""
    if not values:
        return NONE
    low, high = min(values), max(values)
    return Versions(low, high) if values == set(range(low, high + 1)) else None


@pytest.mark.parametrize("a", SMALL, ids=str)
def test_intersect_contains_subtract(a: Versions) -> None:
    for b in SMALL:
        assert a.intersect(b) == from_set(as_set(a) & as_set(b)), (a, b)
        assert a.contains(b) == (as_set(b) <= as_set(a)), (a, b)
        assert a.subtract(b) == from_set(as_set(a) - as_set(b)), (a, b)


def test_open_ended_operations() -> None:
    open2 = Versions(2, MAX_VERSION)
    assert open2.intersect(Versions(0, 4)) == Versions(2, 4)
    assert open2.intersect(Versions(0, 1)) == NONE
    assert ALL.contains(open2) and not open2.contains(ALL)
    assert ALL.subtract(open2) == Versions(0, 1)
    assert open2.subtract(Versions(0, 4)) == Versions(5, MAX_VERSION)
    assert open2.subtract(Versions(4, 6)) is None  # a hole: 2-3 and 7+
    assert open2.subtract(ALL) == NONE


def test_empty_range_is_contained_everywhere() -> None:
    assert NONE.contains(NONE) and Versions(3, 3).contains(NONE) and Versions(9, 4).empty
    assert not NONE.contains(Versions(0, 0))


def test_immutable() -> None:
    with pytest.raises(AttributeError):
        Versions(1, 2).lowest = 0  # type: ignore[misc]
