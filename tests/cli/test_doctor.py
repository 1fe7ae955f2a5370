"""``kwire doctor`` and ``kwire --version`` in this process: they report what kwire really imports.

The other states (a wheel with both compiled, the record decoder removed, a source install before
and after ``kwire build-native``) are checked on real installs in tests/test_compiled_wheel.py and
tests/cli/test_build_native.py.
"""
from __future__ import annotations

import importlib.machinery
import json
import sys

import pytest

from kwire import generated
from kwire.cli.main import main
from kwire.records import columns


def test_doctor_json_matches_the_builds_in_use(capsys):
    code = main(["doctor", "--json"])
    report = json.loads(capsys.readouterr().out)
    decoder, codecs = report["parts"]["record_decoder"], report["parts"]["codecs"]
    assert decoder["compiled"] == (columns.IMPLEMENTATION_NAME != "python")
    assert decoder["flavour"] == columns.IMPLEMENTATION_NAME
    assert decoder["reason"] == columns.FALLBACK_REASON
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    modules = {sys.modules[cls.__module__] for cls in generated.MESSAGES.values()}  # imports every codec module
    assert codecs["modules"] == len(modules)
    assert codecs["compiled_modules"] == sum(str(m.__file__).endswith(suffixes) for m in modules)
    assert code == (0 if decoder["compiled"] and codecs["compiled"] else 1)


def test_version_and_doctor_say_the_same(capsys):
    main(["doctor"])
    lines = capsys.readouterr().out.splitlines()
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    version = capsys.readouterr().out.splitlines()
    assert version == ["kwire 0.1.0", "; ".join(lines)]
    assert lines[0].startswith("record decoder: ") and lines[1].startswith("codecs: ")


@pytest.mark.parametrize("command", ["doctor", "build-native"])
def test_help_ends_with_examples(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    tail = capsys.readouterr().out.rstrip().split("examples:\n")[-1].splitlines()
    assert 1 <= len(tail) <= 3 and all(line.startswith(f"  kwire {command}") for line in tail)


def test_codecs_count_as_compiled_when_the_hot_path_is():
    from kwire.cli.commands.doctor import PartStatus, describe

    hot_path = PartStatus(compiled=True, reason=None, location="x", modules=287, compiled_modules=45,
                          hot_path_modules=45)
    assert describe("codecs", hot_path) == ("codecs: 45 of 287 modules compiled (the hot path; the others run "
                                            "about as fast as plain Python)")
    more = PartStatus(compiled=True, reason=None, location="x", modules=287, compiled_modules=50, hot_path_modules=45)
    assert describe("codecs", more) == "codecs: 50 of 287 modules compiled"
    assert 0 < len(generated.COMPILED_BY_DEFAULT) < len(generated.MESSAGES)
