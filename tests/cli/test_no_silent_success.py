"""Commands that found nothing to work on say what they looked for and exit non-zero; commands
whose optional extras are missing say which extra to install, in one line, without a traceback."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kwire.cli.main import main
from tests.paths import KRAFT_361, MESSAGE_DEFS

GOOD = {"name": "TestData", "type": "data", "validVersions": "0", "flexibleVersions": "0+",
        "fields": [{"name": "Id", "type": "int32", "versions": "0+"}]}


def one_definition(folder: Path, name: str = "TestData") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps({**GOOD, "name": name}))
    return folder


# --- nothing to work on ---------------------------------------------------------------------------

def test_check_compat_with_an_empty_side_is_an_error(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["check-compat", str(empty), str(MESSAGE_DEFS)]) == 2
    assert f"{empty}: no definitions (*.json files) found" in capsys.readouterr().err
    assert main(["check-compat", str(MESSAGE_DEFS), str(empty)]) == 2


def test_check_compat_with_no_message_in_common_is_an_error(tmp_path, capsys):
    # e.g. git:HEAD:generated given for OLD by mistake reads no definitions; a wrong folder of
    # other definitions has none in common
    old, new = one_definition(tmp_path / "old", "OldData"), one_definition(tmp_path / "new", "NewData")
    assert main(["check-compat", str(old), str(new)]) == 2
    assert "have no message in common (1 and 1 definitions): nothing to compare" in capsys.readouterr().err


def test_check_compat_git_errors_name_the_source_without_a_json_path(capsys):
    assert main(["check-compat", "git:HEAD:no/such/folder", str(MESSAGE_DEFS)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("git:HEAD:no/such/folder: cannot read from git:") and "$:" not in err


def test_validate_and_generate_of_a_folder_without_definitions(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["validate", str(empty)]) == 2
    assert capsys.readouterr().err == f"kwire validate: no definitions (*.json files) in {empty}\n"
    out = tmp_path / "pkg"
    assert main(["generate", "--defs", str(empty), "--out", str(out)]) == 2
    assert "nothing written" in capsys.readouterr().err and not out.exists()


def test_validate_says_definition_in_the_singular(tmp_path, capsys):
    assert main(["validate", str(one_definition(tmp_path))]) == 0
    assert capsys.readouterr().out == "1 definition valid\n"


def test_dump_of_a_folder_without_kafka_files(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("nothing Kafka wrote")
    assert main(["dump", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kwire dump: no Kafka files in {tmp_path} (looked for log segments")


def test_decode_of_a_folder_without_kafka_files_fails_before_spark_starts(tmp_path, capsys, monkeypatch):
    (tmp_path / "notes.txt").write_text("nothing Kafka wrote")
    import kwire.spark.session as session

    def no_spark(*args, **kwargs):
        raise AssertionError("Spark must not start when there is nothing to decode")

    monkeypatch.setattr(session, "build_session", no_spark)
    assert main(["decode", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "no Kafka log files in" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# --- optional extras missing ------------------------------------------------------------------------

def test_fuzz_report_without_matplotlib_still_writes_the_data(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed: importing it fails
    code = main(["fuzz", "--messages", "ApiVersionsRequest", "--cases", "5", "--report", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0
    assert "kwire fuzz: report without pictures: matplotlib is not installed; install kwire[report]" in err
    assert json.loads((tmp_path / "report.json").read_text())["summary"]["passed"]
    assert "**PASSED**" in (tmp_path / "report.md").read_text() and not list(tmp_path.glob("*.png"))
    assert "report: " in out and "and 0 pictures" in out


@pytest.mark.parametrize(("argv", "absent", "expected"), [
    (["decode", str(KRAFT_361), "--out", "OUT", "--spark"], "pyspark",
     "kwire decode: pyspark is not installed; install kwire[spark]"),
    (["decode", str(KRAFT_361), "--out", "OUT"], "pyarrow",
     "kwire decode: pyarrow is not installed; install kwire[arrow]"),
    (["generate", "--check"], "jinja2", "kwire generate: jinja2 is not installed; install kwire[generator]"),
    (["validate", "message_defs"], "jsonschema",
     "kwire validate: jsonschema is not installed; install kwire[generator]"),
    (["fuzz", "--spark", "--messages", "ApiVersionsRequest"], "pyarrow",
     "kwire fuzz: pyarrow is not installed; install kwire[spark]"),
])
def test_commands_without_their_extra_say_which_to_install(argv, absent, expected, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, absent, None)
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    assert capsys.readouterr().err == expected + "\n"
