"""``kwire fuzz`` as a CI gate: ``--baseline``/``--update-baseline``, ``--format junit``, ``--max-seconds``.

The gate is tested on a package generated from a small definition and from deliberately worsened
copies of it: a field moved to later versions (non-ignorable: older versions now refuse it;
ignorable: older versions now lose it silently).
"""
from __future__ import annotations

import copy
import itertools
import json
import sys
import uuid

import pytest

from kwire.cli.main import main
from tests.packages import junitparser

PROBE = {
    "apiKey": 90, "type": "request", "name": "GateProbeRequest",
    "validVersions": "0-2", "flexibleVersions": "2+",
    "fields": [
        {"name": "Name", "type": "string", "versions": "0+", "about": "a name"},
        {"name": "Count", "type": "int32", "versions": "0+", "about": "a count"},
        {"name": "Labels", "type": "[]string", "versions": "1+", "ignorable": True, "about": "labels"},
    ],
}


def worsened(field: str, **changes) -> dict:
    definition = copy.deepcopy(PROBE)
    next(f for f in definition["fields"] if f["name"] == field).update(changes)
    return definition


@pytest.fixture()
def package(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """Generate a package from one definition; importable for the test's duration. ``make`` returns
    its name: ``name`` with a suffix no other test session uses, because kwire reads a package's
    index once per process (``kwire.wire.index.load`` caches it by name). A later pytest session in
    the same process (mutmut runs its stats pass and its clean run in one process, and forks each
    mutant's run from it) would otherwise fuzz the classes an earlier session generated, not the
    ones this test patches."""
    made = []
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(name: str, definition: dict) -> str:
        name = f"{name}_{uuid.uuid4().hex[:12]}"
        defs = tmp_path / f"{name}-defs"
        defs.mkdir()
        (defs / "GateProbeRequest.json").write_text(json.dumps(definition, indent=2))
        assert main(["generate", "-q", "--defs", str(defs), "--out", str(tmp_path / name)]) == 0
        made.append(name)
        return name

    yield make
    for module in [m for m in sys.modules if m.split(".")[0] in made]:
        del sys.modules[module]


def fuzz(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["fuzz", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_worsened_definition_fails_the_gate_and_only_its_cells_are_printed(
        tmp_path, package, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "reports" / "fuzz" / "report.json"
    good = package("goodpkg", PROBE)
    code, _, err = fuzz(capsys, "--package", good, "--cases", "60", "--baseline", str(baseline), "--update-baseline")
    assert code == 0, err
    assert f"baseline written: {baseline} (9 cells)" in err
    written = json.loads(baseline.read_text())
    assert written["messages"]["GateProbeRequest"]["cells"]["1->0"]["outcome"] == "lossy"  # Labels is lost

    # the same definitions, another seed and fewer cases: nothing is worse
    code, out, err = fuzz(capsys, "-q", "--package", good, "--cases", "15", "--seed", "9", "--baseline", str(baseline))
    assert (code, out, err) == (0, "", "")

    # Count only from v1 on, not ignorable: a v1 or v2 Count has nowhere to go at v0
    refusing = package("refusingpkg", worsened("Count", versions="1+"))
    code, out, _ = fuzz(capsys, "-q", "--package", refusing, "--cases", "30", "--baseline", str(baseline))
    assert code == 1
    assert out.splitlines() == [
        "WORSE GateProbeRequest 1->0: lossy -> refused: lossy turned refused; refused because of count",
        "WORSE GateProbeRequest 2->0: lossy -> refused: lossy turned refused; refused because of count",
    ]

    # Name only from v1 on, ignorable: v0 silently drops it; 0->0 .. 2->2 and the up-conversions are unchanged
    lossy = package("lossypkg", worsened("Name", versions="1+", ignorable=True))
    code, out, _ = fuzz(capsys, "--package", lossy, "--cases", "30", "--baseline", str(baseline))
    assert code == 1
    worse = [line for line in out.splitlines() if line.startswith("WORSE")]
    assert worse == [
        "WORSE GateProbeRequest 1->0: lossy -> lossy: loses name",
        "WORSE GateProbeRequest 2->0: lossy -> lossy: loses name",
    ]
    assert f"baseline {baseline}: 9 cells compared, 2 worse" in out

    # accepting the change: --update-baseline rewrites the file, and the gate passes again
    assert fuzz(capsys, "-q", "--package", lossy, "--cases", "30", "--baseline", str(baseline),
                "--update-baseline")[0] == 0
    assert fuzz(capsys, "-q", "--package", lossy, "--cases", "30", "--baseline", str(baseline))[:2] == (0, "")


def _probe_baseline(tmp_path, package, capsys, name: str):
    """A baseline of 20 cases of the probe as defined, its package called ``name``."""
    baseline = tmp_path / "baseline.json"
    assert fuzz(capsys, "-q", "--package", package(name, PROBE), "--cases", "20", "--baseline", str(baseline),
                "--update-baseline")[0] == 0
    return baseline


def test_a_lossless_cell_turned_lossy_and_a_removed_version_are_worse(
        tmp_path, package, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = _probe_baseline(tmp_path, package, capsys, "p1")
    # Labels (ignorable) from v2 only: 2->1, lossless before, now loses it; 1->0 no longer can (better)
    code, out, _ = fuzz(capsys, "--package", package("p2", worsened("Labels", versions="2+")), "--cases", "20",
                        "--baseline", str(baseline))
    assert code == 1
    assert [line for line in out.splitlines() if line.startswith("WORSE")] == [
        "WORSE GateProbeRequest 2->1: lossless -> lossy: lossless turned lossy; loses labels"]
    assert f"baseline {baseline}: 9 cells compared, 1 worse, 1 better (--update-baseline records them)" in out

    # version 2 removed: its cells are gone
    fewer = copy.deepcopy(PROBE)
    fewer["validVersions"] = "0-1"
    fewer["flexibleVersions"] = "none"
    code, out, _ = fuzz(capsys, "-q", "--package", package("p3", fewer), "--cases", "20", "--baseline", str(baseline))
    assert code == 1
    assert out.splitlines() == [
        "WORSE GateProbeRequest 0->2: lossless -> absent: a version of this cell is no longer in the definition",
        "WORSE GateProbeRequest 1->2: lossless -> absent: a version of this cell is no longer in the definition",
        "WORSE GateProbeRequest 2->0: lossy -> absent: a version of this cell is no longer in the definition",
        "WORSE GateProbeRequest 2->1: lossless -> absent: a version of this cell is no longer in the definition",
        "WORSE GateProbeRequest 2->2: lossless -> absent: a version of this cell is no longer in the definition",
    ]


def test_an_unusable_baseline_is_bad_input(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--messages", "QuorumStateData", "--cases", "5", "-q"]
    code, _, err = fuzz(capsys, *args, "--baseline", str(tmp_path / "none.json"))
    assert code == 2 and "none.json: no such file (a baseline is made with --update-baseline)" in err
    broken = tmp_path / "broken.json"
    broken.write_text('{"messages": {"A": {"cells": {}}}, oops}')
    code, _, err = fuzz(capsys, *args, "--baseline", str(broken))
    assert code == 2 and "broken.json: not JSON at byte offset 35 (line 1)" in err  # the o of oops
    other = tmp_path / "other.json"
    other.write_text('[1, 2]')
    code, _, err = fuzz(capsys, *args, "--baseline", str(other))
    assert code == 2 and "other.json: not a kwire fuzz report" in err
    code, _, err = fuzz(capsys, *args, "--update-baseline")
    assert code == 2 and "--update-baseline needs --baseline FILE" in err
    (tmp_path / "a-file").write_text("")
    code, _, err = fuzz(capsys, *args, "--baseline", str(tmp_path / "a-file" / "b.json"), "--update-baseline")
    assert code == 2 and "cannot write the baseline" in err and "a-file/b.json" in err
    # a baseline made with --unknown-tags classifies every cell differently
    tags = tmp_path / "tags.json"
    assert fuzz(capsys, *args, "--unknown-tags", "--baseline", str(tags), "--update-baseline")[0] == 0
    code, _, err = fuzz(capsys, *args, "--baseline", str(tags))
    assert code == 2 and "the baseline was made with --unknown-tags" in err


def test_the_baseline_is_written_in_report_json_s_own_text(
        tmp_path, package, capsys: pytest.CaptureFixture[str]) -> None:
    """The same run's --update-baseline file and --report's report.json are the same bytes, so a
    baseline can be made by copying a report (kills ``baseline.x_save__mutmut_14``: another indent)."""
    baseline, reports = tmp_path / "baseline.json", tmp_path / "reports"
    assert fuzz(capsys, "-q", "--package", package("t1", PROBE), "--cases", "10", "--report", str(reports),
                "--baseline", str(baseline), "--update-baseline")[0] == 0
    assert baseline.read_bytes() == (reports / "report.json").read_bytes()


def test_junit_output_has_one_case_per_message_and_version(
        tmp_path, package, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = _probe_baseline(tmp_path, package, capsys, "j1")
    code, out, err = fuzz(capsys, "--package", package("j2", worsened("Count", versions="1+")), "--cases", "20",
                          "--baseline", str(baseline), "--format", "junit")
    assert code == 1
    assert "WORSE GateProbeRequest 1->0" in err and "passed: 9 cells" in err  # the text goes to stderr
    report = tmp_path / "fuzz.xml"
    report.write_text(out)
    xml = junitparser.JUnitXml.fromfile(str(report))
    [suite] = list(xml)
    assert (suite.name, suite.tests, suite.failures, suite.errors) == ("kwire fuzz", 3, 2, 0)
    cases = {case.name: case for case in suite}
    assert set(cases) == {"v0", "v1", "v2"}
    assert all(c.classname == "kwire.fuzz.GateProbeRequest" for c in cases.values())
    assert cases["v0"].is_passed and "0->1: lossless" in cases["v0"].system_out
    [failure] = cases["v1"].result
    assert isinstance(failure, junitparser.Failure)
    assert failure.text == ("WORSE GateProbeRequest 1->0: lossy -> refused: lossy turned refused; "
                            "refused because of count")
    assert {p.name: p.value for p in suite.properties()}["cases"] == "20"

    # every message of the shipped package, no baseline: all pass
    code, out, _ = fuzz(capsys, "-q", "--messages", "ApiVersionsResponse", "QuorumStateData", "--cases", "10",
                        "--format", "junit")
    report.write_text(out)
    [suite] = list(junitparser.JUnitXml.fromfile(str(report)))
    assert code == 0 and (suite.tests, suite.failures) == (5 + 2, 0)
    assert sorted(f"{c.classname} {c.name}" for c in suite)[:2] == ["kwire.fuzz.ApiVersionsResponse v0",
                                                                      "kwire.fuzz.ApiVersionsResponse v1"]


def test_a_time_budget_says_how_far_it_got_and_the_next_run_goes_on_from_there(
        tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    clock = itertools.count(0, 10)  # each look at the clock is 10 s later: the budget of 25 s lasts three rounds
    monkeypatch.setattr("kwire.fuzz.sweep.monotonic", lambda: next(clock))
    messages = ["--messages", "ApiVersionsResponse", "QuorumStateData", "--seed", "4"]
    code, _, err = fuzz(capsys, *messages, "--cases", "1000", "--max-seconds", "25",
                        "--report", str(tmp_path / "budget"))
    assert code == 0, err
    assert ("time budget of 25 s spent after cases 0..59 of every version (seed 4), 940 of the 1000 asked for "
            "not run; the next run goes on from there with --seed 4 --start 60") in err
    budgeted = json.loads((tmp_path / "budget" / "report.json").read_text())
    assert budgeted["budget"] == {"max_seconds": 25.0, "planned_cases": 1000, "next_start": 60, "complete": False}

    # what it ran is exactly the first 60 cases of an unbudgeted run
    assert fuzz(capsys, *messages, "-q", "--cases", "60", "--report", str(tmp_path / "full"))[0] == 0
    full = json.loads((tmp_path / "full" / "report.json").read_text())
    del budgeted["budget"]
    assert budgeted == full

    # the next run starts at case 60 (and, given enough time, runs all it is asked for)
    code, _, err = fuzz(capsys, *messages, "--start", "60", "--cases", "30", "--max-seconds", "1000",
                        "--report", str(tmp_path / "next"))
    assert code == 0 and "time budget of 1000 s: all cases 60..89 of every version (seed 4) ran" in err
    after = json.loads((tmp_path / "next" / "report.json").read_text())
    assert after["start"] == 60 and after["cases"] == 30 and after["budget"]["next_start"] == 90

    # --resume reads the seed and the next case from a report
    code, _, err = fuzz(capsys, *messages[:3], "--cases", "10", "--resume", str(tmp_path / "next" / "report.json"),
                        "--report", str(tmp_path / "resumed"))
    assert code == 0 and "going on from" in err and "seed 4, cases from 90" in err
    resumed = json.loads((tmp_path / "resumed" / "report.json").read_text())
    assert (resumed["seed"], resumed["start"], resumed["cases"]) == (4, 90, 10)
    code, _, err = fuzz(capsys, *messages, "--resume", str(tmp_path / "next" / "report.json"))
    assert code == 2 and "--resume takes --seed and --start from the report; give neither" in err


def test_gate_options_do_not_apply_to_hostile_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = fuzz(capsys, "--bytes", "--cases", "5", "--format", "junit")
    assert code == 2 and "not to --bytes" in err


# --- a sweep that itself finds failing cases ------------------------------------------------------

def _planted(package_name: str, monkeypatch: pytest.MonkeyPatch, version: int, plant: str):
    """Plant one bug in the generated GateProbeRequest: ``json`` (to_dict at ``version`` loses the
    sign of a negative Count, so that version's JSON round trip fails for those cases) or ``codec``
    (reading at ``version`` flips the low bit of Count, so every cell that reads that version fails)."""
    import importlib

    cls = importlib.import_module(package_name).MESSAGES["GateProbeRequest"]
    if plant == "json":
        original_to_dict = cls.to_dict

        def to_dict(self, v):
            form = original_to_dict(self, v)
            if v == version:
                form = {key: abs(value) if key.lower() == "count" else value for key, value in form.items()}
            return form

        monkeypatch.setattr(cls, "to_dict", to_dict)
    else:
        original_read, original_decode = cls.read.__func__, cls.decode.__func__

        def read(klass, data, pos, v):
            back, end = original_read(klass, data, pos, v)
            if v == version:
                back.count ^= 1
            return back, end

        def decode(klass, data, v):
            back = original_decode(klass, data, v)
            if v == version:
                back.count ^= 1
            return back

        monkeypatch.setattr(cls, "read", classmethod(read))
        monkeypatch.setattr(cls, "decode", classmethod(decode))
    return cls


def test_junit_shows_the_failing_cases_a_sweep_finds_and_the_gate_fails(
        tmp_path, package, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from kwire.fuzz.values import case_instance

    name = package("jsonbug", PROBE)
    cls = _planted(name, monkeypatch, 1, "json")
    seed, cases = 5, 80
    # which cases must fail: those whose Count is negative, computed from the inputs
    failing = [i for i in range(cases) if case_instance(cls, 1, seed, i).count < 0]
    assert 5 < len(failing) < cases  # the check below names more than the five kept, and not every case fails
    code, out, err = fuzz(capsys, "--package", name, "--cases", str(cases), "--seed", str(seed),
                          "--format", "junit")
    assert code == 1  # no baseline: the failing cases alone fail the gate
    assert f"FAILED: 9 cells, {len(failing)} failing cases, 0 contradictions" in err
    report = tmp_path / "fuzz.xml"
    report.write_text(out)
    [suite] = list(junitparser.JUnitXml.fromfile(str(report)))
    assert (suite.tests, suite.failures, suite.errors) == (3, 1, 0)
    cases_by_name = {case.name: case for case in suite}
    assert cases_by_name["v0"].is_passed and cases_by_name["v2"].is_passed
    [failure] = cases_by_name["v1"].result
    assert isinstance(failure, junitparser.Failure) and failure.type == "kwire-fuzz"
    kept = failing[:5]  # the sweep keeps the first five failures of a cell
    lines = failure.text.splitlines()
    assert len(lines) == len(kept) and failure.message == f"5 problems: {lines[0]}"
    for line, i in zip(lines, kept, strict=True):
        # abs() of int32's lowest value does not fit: that case fails reading the JSON form back
        why = ("json raised DecodeError: invalid int32 value 2147483648: out of range" if
               case_instance(cls, 1, seed, i).count == -2**31 else "from_dict(to_dict(m)) != m, fields differ: count")
        assert line.startswith(f"FAIL GateProbeRequest 1->1 case {i} (seed {seed}): {why}"), line
    assert "1->1: failed" in cases_by_name["v1"].system_out


def test_junit_names_every_row_a_codec_bug_reaches(
        tmp_path, package, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    name = package("codecbug", PROBE)
    _planted(name, monkeypatch, 2, "codec")
    code, out, _ = fuzz(capsys, "-q", "--package", name, "--cases", "8", "--format", "junit")
    assert code == 1
    report = tmp_path / "fuzz.xml"
    report.write_text(out)
    [suite] = list(junitparser.JUnitXml.fromfile(str(report)))
    assert (suite.tests, suite.failures) == (3, 3)  # every row has a cell that reads v2: 0->2, 1->2, 2->2
    for case in suite:
        [failure] = case.result
        fails = [line for line in failure.text.splitlines() if line.startswith("FAIL GateProbeRequest ")]
        assert {line.split()[2] for line in fails} == {f"{case.name[1:]}->2"}, failure.text
        assert len(fails) == 5  # eight failing cases, the first five kept
    code, out, _ = fuzz(capsys, "-q", "--package", name, "--cases", "8")
    assert code == 1  # the text form fails the gate the same way
