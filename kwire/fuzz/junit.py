"""A sweep as JUnit XML (``kwire fuzz --format junit``): one test case per message and version.

The case of message M at version v covers the row of cells v -> every version: it fails on a
failing case, a contradiction with the static classification, a field no directed search could
show, or (with a baseline) a cell worse than the baseline. What each cell does goes to the case's
system-out, where CI systems show it without failing the build.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from xml.etree import ElementTree

from .baseline import Worse
from .sweep import cell_problems


def junit_report(result: dict[str, Any], worse: Sequence[Worse] = ()) -> str:
    suite = ElementTree.Element("testsuite", name="kwire fuzz")
    properties = ElementTree.SubElement(suite, "properties")  # first, as the JUnit schema orders them
    for setting in ("package", "seed", "start", "cases", "unknown_tags"):
        ElementTree.SubElement(properties, "property", name=setting, value=str(result[setting]))
    if "budget" in result:
        ElementTree.SubElement(properties, "property", name="next_start", value=str(result["budget"]["next_start"]))
    cases: dict[tuple[str, str], tuple[list[str], str]] = {}
    for name, message in result["messages"].items():
        low, high = message["versions"]
        for version in range(low, high + 1):
            row = {key: cell for key, cell in message["cells"].items() if key.split("->")[0] == str(version)}
            cases[(name, f"v{version}")] = (_row_problems(name, row, result), _row_summary(row))
    for found in worse:  # a worse cell fails its row; a removed version or message gets a case of its own
        case = (found.message, "(message)" if found.cell == "*" else f"v{found.cell.split('->')[0]}")
        cases.setdefault(case, ([], ""))[0].append(str(found))
    failures = 0
    for (message, name), (problems, summary) in cases.items():
        failures += _case(suite, message, name, problems, summary)
    return junit_document(suite, tests=len(cases), failures=failures)


def junit_document(suite: ElementTree.Element, *, tests: int, failures: int) -> str:
    """The XML document of one filled ``testsuite`` (also ``kwire check-compat --format junit``'s)."""
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    root = ElementTree.Element("testsuites")
    root.append(suite)
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


def _case(suite: ElementTree.Element, message: str, name: str, problems: list[str], summary: str) -> int:
    case = ElementTree.SubElement(suite, "testcase", classname=f"kwire.fuzz.{message}", name=name)
    if problems:
        failure = ElementTree.SubElement(case, "failure", type="kwire-fuzz",
                                         message=f"{len(problems)} problem{'' if len(problems) == 1 else 's'}: "
                                                 + problems[0][:200])
        failure.text = "\n".join(problems)
    if summary:
        ElementTree.SubElement(case, "system-out").text = summary
    return 1 if problems else 0


# each kind of cell problem (sweep.cell_problems) as a JUnit failure line words it
_PROBLEM_LINES = {
    "failed": "FAIL {name} {key} case {at} (seed {seed}): {detail}",
    "contradiction": "CONTRADICTION {name} {key}: {detail}",
    "unshown": "UNSHOWN {name} {key}: {at}: {detail}",
}


def _row_problems(name: str, row: dict[str, dict[str, Any]], result: dict[str, Any]) -> list[str]:
    return [_PROBLEM_LINES[kind].format(name=name, key=key, at=at, detail=detail, seed=result["seed"])
            for key, cell in row.items() for kind, at, detail in cell_problems(cell)]


def _row_summary(row: dict[str, dict[str, Any]]) -> str:
    lines = []
    for key, cell in row.items():
        lost = ", ".join(cell["observed"]["lost_fields"])
        lines.append(f"{key}: {cell['outcome']}" + (f" (lost: {lost})" if lost else ""))
    return "\n".join(lines)
