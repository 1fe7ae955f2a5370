"""A target kwire cannot write (a read-only directory): the error names the target, in one line,
not the temporary file beside it that the system call was about."""
from __future__ import annotations

import errno
import os
import tempfile

import pytest

from kwire.cli.main import main as kwire_main
from kwire.wire import files
from kwire.wire.errors import KwireError
from tests.optional import need_module
from tests.paths import KRAFT_361


def refused_as_read_only(monkeypatch) -> None:
    """What the system answers in a read-only directory, whoever runs the test (root may write
    through a chmod): creating the temporary file or directory beside the target fails."""
    def deny(*args, dir=None, prefix="", suffix="", **kwargs):
        temporary = os.path.join(dir, f"{prefix}x1y2z3{suffix}")
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), temporary)

    monkeypatch.setattr(tempfile, "mkstemp", deny)
    monkeypatch.setattr(tempfile, "mkdtemp", deny)


@pytest.mark.parametrize("write", [
    lambda path: files.atomic_write(path, b"x", force=False),
    lambda path: files.atomic_directory(path, force=False).__enter__(),
])
def test_the_error_names_the_target(tmp_path, monkeypatch, write):
    refused_as_read_only(monkeypatch)
    target = tmp_path / "out"
    with pytest.raises(KwireError) as raised:
        write(target)
    assert isinstance(raised.value, OSError) and raised.value.errno == errno.EACCES
    assert str(raised.value) == f"cannot write {target}: Permission denied"
    assert raised.value.filename == str(target)


def test_decode_into_a_read_only_directory(tmp_path, monkeypatch, capsys):
    need_module("pyarrow")  # kwire decode: the arrow extra
    refused_as_read_only(monkeypatch)
    target = tmp_path / "decoded"
    assert kwire_main(["decode", str(KRAFT_361), "--out", str(target)]) == 2
    assert capsys.readouterr().err == f"kwire decode: cannot write {target}: Permission denied\n"
    assert os.listdir(tmp_path) == []

