"""Every kind of problem a sweep cell can have (a failing case, a contradiction with the static
classification, a field no directed search showed) reaches both reports, worded as each words it."""
from __future__ import annotations

from xml.etree import ElementTree

from kwire.fuzz.junit import junit_report
from kwire.fuzz.report import markdown

CELL = {
    "outcome": "failed",
    "observed": {"failures": [{"index": 7, "problems": ["json raised DecodeError", "fields differ: a"]}],
                 "failed": 1, "lost_fields": {}, "lossless": 0, "lossy": 0, "refused": 0},
    "contradictions": ["a was lost but static does not list it as losable"],
    "directed": {"b": {"shown": False, "detail": "no case reached it"}, "c": {"shown": True, "detail": ""}},
    "static": {"losable": [], "refusing": []},
}
RESULT = {
    "package": "kwire.generated", "seed": 3, "start": 0, "cases": 10, "unknown_tags": False,
    "summary": {"passed": False, "cells": 1, "failed_cases": 1, "contradictions": 1, "unshown_fields": 1},
    "messages": {"ProbeRequest": {"versions": [1, 1], "cells": {"1->1": CELL}}},
}


def test_junit_lists_each_problem_of_the_cell_in_order():
    [failure] = ElementTree.fromstring(junit_report(RESULT)).iter("failure")
    assert failure.text.splitlines() == [
        "FAIL ProbeRequest 1->1 case 7 (seed 3): json raised DecodeError; fields differ: a",
        "CONTRADICTION ProbeRequest 1->1: a was lost but static does not list it as losable",
        "UNSHOWN ProbeRequest 1->1: b: no case reached it",
    ]


def test_markdown_lists_each_problem_of_the_cell_in_order():
    text = markdown(RESULT)
    listed = text.split("## Failing cases\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert listed == [
        "- `ProbeRequest` 1->1 case 7: json raised DecodeError; fields differ: a "
        "(reproduce: `kwire fuzz --messages ProbeRequest --seed 3 --start 7 --cases 1`)",
        "- `ProbeRequest` 1->1: contradiction: a was lost but static does not list it as losable",
        "- `ProbeRequest` 1->1: b not shown: no case reached it",
    ]
