"""``kwire build-native`` and ``kwire doctor`` on a kwire laid out as an install from source.

The real builds go into a copy of the package (``--into``), never into this checkout: the record
decoder (seconds, cached under build/record-decoder) and the codecs of one small message (mypyc
and the C compiler on ``_base`` and ``api_versions_request``, cached under build/build-native-test).
The installed wheel's side (doctor in a fresh venv, ``--remove``, build-native back) is in
tests/test_compiled_wheel.py.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from kwire.cli.main import main
from tests.optional import need_toolchain
from tests.paths import REPO

SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def needs_toolchain() -> None:
    need_toolchain()


def source_install(root: Path) -> Path:
    """kwire as `pip install .` lays it out (kwire/, with generator, generated and message_defs inside), no .so."""
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc")
    shutil.copytree(REPO / "kwire", root / "kwire", ignore=ignore)
    for folder, name in (("generator", "generator"), ("generated", "generated"), ("message_defs", "message_defs")):
        shutil.copytree(REPO / folder, root / "kwire" / name, ignore=ignore)
    return root / "kwire"


def installed(root: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m kwire.cli.main ARGS`` with the copy at ``root`` as its kwire, run from ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root), "KWIRE_RECORD_DECODER": ""}
    return subprocess.run([sys.executable, "-m", "kwire.cli.main", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


def test_without_a_c_compiler_it_exits_2_saying_what_to_install(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("CC", "/nonexistent/kwire-test-cc")
    assert main(["build-native", "--cache", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no C compiler found" in err and "pip install 'kwire[native]'" in err
    assert not list(tmp_path.iterdir())


def test_without_mypyc_it_exits_2_saying_what_to_install(monkeypatch, capsys, tmp_path):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mypyc" else real(name, *a))
    assert main(["build-native", "--codecs", "--cache", str(tmp_path)]) == 2
    assert capsys.readouterr().err == ("kwire build-native: cannot compile: mypyc is not installed; install it with: "
                                       "pip install 'kwire[native]' (and a C compiler, e.g. gcc)\n")


def test_bad_targets_are_usage_errors(tmp_path, capsys):
    needs_toolchain()
    assert main(["build-native", "--into", str(tmp_path), "--cache", str(tmp_path / "cache")]) == 2
    assert "is not this kwire's package directory" in capsys.readouterr().err
    kwire_dir = source_install(tmp_path / "install")
    assert main(["build-native", "--into", str(kwire_dir), "--messages", "NoSuchRequest",
                 "--cache", str(REPO / "build" / "record-decoder-cli")]) == 2
    assert "no such messages: NoSuchRequest" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["build-native", "--codecs", "--messages", "ApiVersionsRequest"])
    assert exc.value.code == 2


def test_build_native_compiles_the_record_decoder_and_one_codec_into_a_source_install(tmp_path):
    needs_toolchain()
    root = tmp_path / "install"
    kwire_dir = source_install(root)

    before = installed(root, "doctor", "--json")
    assert before.returncode == 1, before.stderr
    parts = json.loads(before.stdout)["parts"]
    assert parts["record_decoder"] == {"compiled": False, "reason": "not built (run: kwire build-native)",
                                       "location": str(kwire_dir / "records"), "modules": 1, "compiled_modules": 0,
                                       "hot_path_modules": None, "flavour": "python"}
    assert parts["codecs"]["compiled_modules"] == 0
    assert parts["codecs"]["reason"] == "not built (run: kwire build-native --codecs)"

    cache = REPO / "build" / "build-native-test"
    built = installed(root, "build-native", "--into", str(kwire_dir), "--messages", "ApiVersionsRequest",
                      "--cache", str(cache), "--jobs", "1", "--json")
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    assert report["codecs"]["modules"] == ["api_versions_request"]
    assert sorted(report["codecs"]["installed"]) == sorted(
        f"{m}{SUFFIX}" for m in ("_base", "_base__mypyc", "api_versions_request", "api_versions_request__mypyc"))
    decoders = sorted(p.name for p in (kwire_dir / "records").glob("*" + SUFFIX))
    assert decoders == sorted(report["record_decoder"]["installed"])
    assert not list(kwire_dir.rglob(".*.so.*"))  # no temporary file of the atomic install left behind

    after = installed(root, "doctor", "--json")
    parts = json.loads(after.stdout)["parts"]
    assert parts["record_decoder"]["compiled"] is True and parts["record_decoder"]["reason"] is None
    assert parts["record_decoder"]["flavour"] == "c"
    hot = parts["codecs"]["hot_path_modules"]
    assert parts["codecs"]["compiled_modules"] == 1 and parts["codecs"]["reason"].startswith(
        f"{hot - 1} of the {hot} modules on the hot path are plain Python (")
    assert after.returncode == 1  # some codecs still plain Python

    # a package whose hot path is that one module counts as compiled: doctor exits 0
    init = kwire_dir / "generated" / "__init__.py"
    text = init.read_text()
    start = text.index("COMPILED_BY_DEFAULT: frozenset[str] = frozenset({")
    end = text.index("})", start) + 2
    init.write_text(text[:start] + 'COMPILED_BY_DEFAULT: frozenset[str] = frozenset({"api_versions_request"})'
                    + text[end:])
    only_hot = installed(root, "doctor")
    assert only_hot.returncode == 0, only_hot.stdout
    assert only_hot.stdout.splitlines()[1] == (f"codecs: 1 of {parts['codecs']['modules']} modules compiled "
                                               "(the hot path; the others run about as fast as plain Python)")
    init.write_text(text)

    # the compiled codec reads an ApiVersionsRequest v3 body laid out by hand from Kafka's definition:
    # compact strings (length + 1) ClientSoftwareName "kwire", ClientSoftwareVersion "0.1", no tagged fields
    body = bytes([6]) + b"kwire" + bytes([4]) + b"0.1" + bytes([0])
    probe = ("import sys; from kwire.generated import ApiVersionsRequest as A; m = sys.modules[A.__module__]; "
             f"r = A.decode({body!r}, 3); print(m.__file__, r.client_software_name, r.client_software_version, "
             f"r.encode(3) == {body!r})")
    out = subprocess.run([sys.executable, "-c", probe], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    path, name, version, same = out.stdout.split()
    assert path == str(kwire_dir / "generated" / f"api_versions_request{SUFFIX}")
    assert (name, version, same) == ("kwire", "0.1", "True")
