"""``kwire fuzz --report DIR`` finds out that DIR cannot be written before the sweep, not after it
(a sweep can take hours); the check itself leaves nothing behind."""
from __future__ import annotations

import pytest

import kwire.cli.commands.fuzz
import kwire.fuzz.hostile
from kwire.cli.main import main as kwire_main
from kwire.wire.files import UnwritableError, check_writable


def never(*args, **kwargs):
    raise AssertionError("the sweep ran although its report could not be written")


@pytest.mark.parametrize("mode", [[], ["--bytes"]])
def test_a_report_directory_under_a_file_is_refused_before_the_sweep(tmp_path, monkeypatch, capsys, mode):
    monkeypatch.setattr(kwire.cli.commands.fuzz, "sweep", never)
    monkeypatch.setattr(kwire.fuzz.hostile, "run_hostile", never)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    messages = [] if mode else ["--messages", "ApiVersionsRequest"]
    code = kwire_main(["fuzz", *mode, *messages, "--cases", "1", "--report", str(blocker / "reports"), "-q"])
    assert (code, capsys.readouterr().err) == (2, f"kwire fuzz: cannot write {blocker / 'reports'}: Not a directory\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_the_check_leaves_nothing_behind(tmp_path):
    check_writable(tmp_path / "new" / "deeper")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "kept").mkdir()
    check_writable(tmp_path / "kept")
    assert [p.name for p in tmp_path.iterdir()] == ["kept"] and list((tmp_path / "kept").iterdir()) == []


def test_the_check_names_the_directory(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(UnwritableError, match=f"^cannot write {tmp_path / 'a-file' / 'x'}: Not a directory$"):
        check_writable(tmp_path / "a-file" / "x")
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]
