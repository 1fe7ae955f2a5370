"""``kwire validate``: exit 0 when every definition is valid, 1 with one problem per stderr line."""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from kwire.cli.main import main

GOOD = {"name": "TestData", "type": "data", "validVersions": "0-1", "flexibleVersions": "0+",
        "fields": [{"name": "Id", "type": "int32", "versions": "0+"}]}


def write(path: Path, raw: dict) -> Path:
    path.write_text(json.dumps(raw))
    return path


def test_valid_directory_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "TestData.json", GOOD)
    write(tmp_path / "OtherData.json", {**GOOD, "name": "OtherData"})
    assert main(["validate", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out == "2 definitions valid\n" and err == ""


def test_quiet_prints_nothing_when_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-q", "validate", str(write(tmp_path / "TestData.json", GOOD))]) == 0
    assert capsys.readouterr() == ("", "")


def test_problems_exit_1_one_per_line_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad_field = write(tmp_path / "A.json", {**GOOD, "name": "AData", "fields": [
        {"name": "Id", "type": "int32", "versions": "0+", "nullableVersions": "0+"},
        {"name": "Name", "type": "string", "versions": "0+", "zeroCopy": True}]})
    broken = tmp_path / "B.json"
    broken.write_text('{"name": "BData",\n  "type": }')
    good = write(tmp_path / "C.json", {**GOOD, "name": "CData"})
    assert main(["validate", str(bad_field), str(broken), str(good)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"{bad_field}: $.fields[0] (Id): type int32 cannot be nullable "
        "(only string, bytes, records, structs and arrays can)",
        f"{bad_field}: $.fields[1] (Name): zeroCopy is only valid on bytes fields",
        f"{broken}: line 2 column 11: Expecting value",
    ]


def test_cross_file_problem_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "A.json", GOOD)
    second = write(tmp_path / "B.json", GOOD)
    assert main(["validate", str(tmp_path)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"{second}: $.name: message TestData is also defined in ")


def test_kafka_python_definitions_validate(capsys: pytest.CaptureFixture[str]) -> None:
    directory = Path(str(resources.files("kafka.protocol.schemas") / "resources"))
    assert main(["validate", str(directory)]) == 0
    assert capsys.readouterr().out == f"{len(list(directory.glob('*.json')))} definitions valid\n"


def test_missing_path_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["validate"])
    assert info.value.code == 2
    assert "PATH" in capsys.readouterr().err


def test_missing_path_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nope")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
