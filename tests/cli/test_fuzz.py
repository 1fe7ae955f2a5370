"""``kwire fuzz``: exit codes, summary, reports, and failing cases printed with their seed."""
from __future__ import annotations

import json
import shlex
import sys
import textwrap

import pytest

from kwire.cli.main import main
from tests.optional import need_module
from tests.paths import REPO

FIVE = ["ApiVersionsResponse", "UpdateFeaturesRequest", "DescribeQuorumResponse", "QuorumStateData",
        "RegisterBrokerRecord"]


def test_fuzz_passes_and_writes_the_reports(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    need_module("matplotlib")  # the report's pictures
    code = main(["fuzz", "--messages", *FIVE, "--cases", "40", "--seed", "3", "--report", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "passed: 63 cells, 0 failing cases, 0 contradictions, 0 unshown fields" in out
    table_row = next(line for line in out.splitlines() if line.startswith("ApiVersionsResponse"))
    assert table_row.split()[:5] == ["ApiVersionsResponse", "0-4", "17", "8", "0"]  # lossless, lossy, refused
    assert "fuzz [" in err and "100%" in err  # the progress bar, on stderr

    report = json.loads((tmp_path / "report.json").read_text())
    assert report["seed"] == 3 and report["cases"] == 40 and report["summary"]["passed"]
    cell = report["messages"]["ApiVersionsResponse"]["cells"]["3->2"]
    assert cell["outcome"] == "lossy" and cell["static"]["outcome"] == "lossy"
    assert "supported_features" in cell["observed"]["lost_fields"]
    assert report["messages"]["QuorumStateData"]["cells"]["1->0"]["outcome"] == "refused"

    markdown = (tmp_path / "report.md").read_text()
    assert "**PASSED**" in markdown
    assert ("0 failing cases, 0 contradictions with the static classification, 0 fields that the static "
            "classification names as losable or refusing but no directed search could show lost or refused."
            ) in markdown
    assert "![RegisterBrokerRecord cross-version matrix](RegisterBrokerRecord.png)" in markdown
    assert "| **v3** | lossy | lossy | lossy | lossless | lossless |" in markdown  # ApiVersionsResponse row 3
    for name in FIVE:
        picture = (tmp_path / f"{name}.png").read_bytes()
        assert picture.startswith(b"\x89PNG\r\n\x1a\n") and len(picture) > 5000


def test_quiet_prints_nothing_on_success(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "-q", "--messages", "QuorumStateData", "--cases", "10"]) == 0
    assert capsys.readouterr() == ("", "")


def test_unknown_message_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--messages", "NoSuchMessage"]) == 2
    assert "no such message: NoSuchMessage" in capsys.readouterr().err


def test_same_report_in_one_or_two_processes(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fuzz", "-q", "--messages", "ApiVersionsResponse", "QuorumStateData", "--cases", "300"]
    assert main([*args, "--report", str(tmp_path / "one")]) == 0
    assert main([*args, "--jobs", "2", "--report", str(tmp_path / "two")]) == 0
    assert (tmp_path / "one" / "report.json").read_text() == (tmp_path / "two" / "report.json").read_text()


@pytest.fixture()
def broken_package(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """A copy of the generated ApiVersionsRequest whose writer adds a stray byte at version 3."""
    package = tmp_path / "brokenpkg"
    package.mkdir()
    source = (REPO / "generated" / "api_versions_request.py").read_text()
    (package / "api_versions_request.py").write_text(source + textwrap.dedent("""
        _REAL_WRITERS = ApiVersionsRequest._WRITERS
        ApiVersionsRequest._WRITERS = tuple((lambda o, out, f=f: (f(o, out), out.append(0))[0]) if v == 3 else f
                                            for v, f in enumerate(_REAL_WRITERS))
    """))
    (package / "__init__.py").write_text(
        "from .api_versions_request import ApiVersionsRequest\nMESSAGES = {'ApiVersionsRequest': ApiVersionsRequest}\n")
    (package / "_index.py").write_text(  # what `kwire generate` writes, for this one message
        "from kwire.wire.index import ProtocolIndex\n"
        "INDEX = ProtocolIndex('brokenpkg', modules={'ApiVersionsRequest': 'api_versions_request'})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "brokenpkg"
    for module in [m for m in sys.modules if m == "brokenpkg" or m.startswith("brokenpkg.")]:
        del sys.modules[module]


def test_a_failing_case_is_printed_with_the_command_that_reproduces_it(
        broken_package: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fuzz", "--package", broken_package, "--messages", "ApiVersionsRequest",
                 "--cases", "30", "--seed", "8"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "FAILED" in out
    fail_line = next(line for line in err.splitlines() if line.startswith("FAIL ApiVersionsRequest v3 -> v3"))
    assert "(seed 8)" in fail_line and "1 bytes left after ApiVersionsRequest v3" in fail_line
    command = next(line for line in err.splitlines() if "reproduce:" in line).split("reproduce: ", 1)[1]
    argv = shlex.split(command)
    assert argv[:2] == ["kwire", "fuzz"] and "--start" in argv and argv[argv.index("--cases") + 1] == "1"

    # the printed command runs exactly that case, and it fails again
    assert main(argv[1:] + ["-q"]) == 1
    again = capsys.readouterr().err
    index = argv[argv.index("--start") + 1]
    assert f"v3 -> v3 case {index} (seed 8)" in again


def test_a_package_that_does_not_import_is_bad_usage_said_by_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 2, one line on stderr that starts with the command and names the package (kills
    ``fuzz.x__run_sweep__mutmut_6``: the command's name left out of the line)."""
    assert main(["fuzz", "--package", "no_such_kwire_package", "--cases", "1"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("kwire fuzz: ") and "'no_such_kwire_package'" in line
