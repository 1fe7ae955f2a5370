"""A missing optional package or compiler toolchain: a skip on a light checkout, a failure under CI.

tests/optional.py is the one rule; ``make native`` follows it with ``--require``. The end-to-end
tests run pytest in a child whose interpreter cannot see mypy/mypyc (tests/hide_mypy/).
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kwire.generator import native_records
from kwire.generator.native_build import CompileUnavailable
from tests import optional
from tests.paths import REPO

NO_TOOLCHAIN = CompileUnavailable("no C compiler found ('cc' is not on PATH)")


def no_toolchain(*_args, **_kwargs):
    raise NO_TOOLCHAIN


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception),
                                             ("false", pytest.skip.Exception)])
def test_a_missing_toolchain_fails_under_ci_and_skips_elsewhere(monkeypatch, ci, outcome):
    monkeypatch.setenv("CI", ci)
    monkeypatch.setattr("kwire.generator.native_build.check_toolchain", no_toolchain)
    with pytest.raises(BaseException, match="no compiled build: no C compiler found") as raised:
        optional.need_toolchain()
    assert raised.type is outcome  # a skip where a failure is due must fail this test, not skip it


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_missing_package_fails_under_ci_and_skips_elsewhere(monkeypatch, ci, outcome):
    monkeypatch.setenv("CI", ci)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed: importing it fails
    with pytest.raises(BaseException, match="needs matplotlib") as raised:
        optional.need_module("matplotlib")
    assert raised.type is outcome


def test_make_native_requires_the_toolchain_only_with_require(monkeypatch, capsys):
    monkeypatch.setattr(native_records, "build", no_toolchain)
    assert native_records.main(["-q"]) == 0
    assert "record decoder not compiled: no C compiler found" in capsys.readouterr().err
    assert native_records.main(["-q", "--require"]) == 1
    assert "error: record decoder not compiled, and --require was given" in capsys.readouterr().err


def native_command(tmp_path, **env) -> str:
    # --no-print-directory: under `make test` this make is a sub-make, which would print "Leaving directory"
    done = subprocess.run(["make", "-n", "--no-print-directory", "native", f"VENV={tmp_path / 'venv'}"], cwd=REPO,
                          capture_output=True,
                          text=True, check=True, env={**os.environ, **env})
    return done.stdout.splitlines()[-1]


def test_make_native_passes_require_under_ci(tmp_path):
    assert native_command(tmp_path, CI="true").endswith("native_records --cache build/record-decoder --require")
    assert native_command(tmp_path, CI="").endswith("native_records --cache build/record-decoder")


def run_compiled_tests_without_mypy(ci: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CI": ci, "PYTHONPATH": str(REPO / "tests" / "hide_mypy")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-rs",
         "tests/generator/test_native_compiler.py::test_a_rebuild_compiles_only_the_changed_module",
         "tests/records/test_columns.py::test_the_compiled_build_is_the_one_in_use"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_compiled_build_tests_without_mypy_fail_under_ci():
    done = run_compiled_tests_without_mypy("true")
    assert done.returncode == 1, done.stdout[-3000:]  # the fixtures fail: errors, not skips
    assert "2 errors" in done.stdout and "under CI=true this is a failure, not a skip" in done.stdout


def test_compiled_build_tests_without_mypy_skip_elsewhere():
    done = run_compiled_tests_without_mypy("")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "2 skipped" in done.stdout and "mypyc is not installed" in done.stdout
