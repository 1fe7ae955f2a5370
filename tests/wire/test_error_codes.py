"""kwire.wire.error_codes: the one table of Kafka's error codes, at its bounds, and a code it does
not know kept rather than refused (issue 36 §3). The bounds come from Kafka's own facts
(tests/data/kafka-errors, taken from Kafka's classes)."""
from __future__ import annotations

import csv

import pytest

from kwire.network import errors as network_errors
from kwire.wire.error_codes import ErrorCode
from tests.paths import DATA

FACTS = {int(row["code"]): row["name"]
         for row in csv.DictReader((DATA / "kafka-errors" / "errors.tsv").open(), delimiter="\t")}
LOWEST, HIGHEST = min(FACTS), max(FACTS)


def test_the_bounds_are_kafkas():
    assert (LOWEST, FACTS[LOWEST]) == (-1, "UNKNOWN_SERVER_ERROR")
    assert (HIGHEST, FACTS[HIGHEST]) == (133, "SHARE_SESSION_LIMIT_REACHED")


@pytest.mark.parametrize("code", [LOWEST, 0, HIGHEST])
def test_a_known_code_at_the_bounds_is_its_member(code):
    member = ErrorCode.of(code)
    assert member is ErrorCode(code) is ErrorCode[FACTS[code]] and member.known
    assert ErrorCode.lookup(code) is member


@pytest.mark.parametrize("code", [LOWEST - 1, HIGHEST + 1, 999, -32768, 32767])
def test_a_code_past_the_bounds_is_kept_with_its_number_and_a_clear_name(code):
    stand_in = ErrorCode.of(code)
    assert stand_in == code and int(stand_in) == code and stand_in.value == code
    assert isinstance(stand_in, ErrorCode) and not stand_in.known and not stand_in.retriable
    assert stand_in.name == f"UNKNOWN_CODE_{code}" and "does not know" in stand_in.description
    assert ErrorCode(code) == stand_in  # the call is the same lookup
    assert ErrorCode.lookup(code) is None  # lookup still says the table lacks it
    assert len(ErrorCode) == len(FACTS) and code not in [member.value for member in ErrorCode]  # nothing added


@pytest.mark.parametrize("value", ["6", None, b"6"])
def test_what_is_not_a_number_is_still_refused(value):
    with pytest.raises(ValueError, match="is not a valid ErrorCode"):
        ErrorCode.of(value)  # type: ignore[arg-type]


def test_the_old_import_path_is_the_same_table():
    assert network_errors.ErrorCode is ErrorCode
