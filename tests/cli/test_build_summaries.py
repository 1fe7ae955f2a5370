"""What ``kwire generate --compile`` and ``kwire build-native`` say about a build, with the build
itself (mypyc and a C compiler, minutes of CPU; tests/cli/test_build_native.py and
tests/generator/test_native_compiler.py run real ones) replaced by a stand-in whose result is known:
the summary counts what the build returned, in the words the commands use. Mutation testing cannot
run a real build (mypyc cannot compile mutmut's mutated sources), so these tests are what reaches
the two commands' reports under mutmut (``generate.x_compile_into__mutmut_101``: "module" shouted as
"MODULE"; ``build_native.x_run__mutmut_145``: the --json report's layout)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kwire.cli.main import main

GREETING = {"type": "data", "name": "GreetingRecord", "validVersions": "0-1", "flexibleVersions": "1+",
            "fields": [{"name": "Text", "type": "string", "versions": "0+"}]}
FAREWELL = {"type": "data", "name": "FarewellRecord", "validVersions": "0", "flexibleVersions": "none",
            "fields": [{"name": "Words", "type": "[]string", "versions": "0+"}]}


def _stand_in_compile(monkeypatch, calls: list) -> None:
    from kwire.generator.native import build

    def compile_package(messages, out_dir, *, only=None, build_dir=None, jobs=None, **_kw):
        calls.append(sorted(only))
        modules = sorted(name.lower() for name in only)
        return build.CompileResult(extensions=[f"{m}.so" for m in modules], modules=modules,
                                   build_dir=build_dir, jobs=jobs, c_files=len(modules) + 1, c_compiled=1,
                                   translate_seconds=12.0, c_seconds=30.0, cpu_seconds=70.0)

    monkeypatch.setattr(build, "compile_package", compile_package)


@pytest.mark.parametrize("definitions", [[GREETING], [GREETING, FAREWELL]], ids=["one", "two"])
def test_the_compile_summary_counts_the_modules_the_build_compiled(definitions, monkeypatch, tmp_path, capsys):
    """One module and two (the plural's bound): "compiled 1 module", "compiled 2 modules", with the
    build's own times and counts."""
    calls: list = []
    _stand_in_compile(monkeypatch, calls)
    defs, out = tmp_path / "defs", tmp_path / "codecs"
    defs.mkdir()
    for definition in definitions:
        (defs / f"{definition['name']}.json").write_text(json.dumps(definition))
    code = main(["generate", "--compile", "all", "--defs", str(defs), "--out", str(out),
                 "--build-dir", str(tmp_path / "build"), "--jobs", "2"])
    printed = capsys.readouterr()
    assert code == 0, printed
    assert calls == [sorted(d["name"] for d in definitions)]
    n = len(definitions)
    modules = "1 module" if n == 1 else f"{n} modules"
    assert (f"compiled {modules} in 42s (mypyc 12s, C 30s; 70s of CPU, 2 at a time; 1 of {n + 1} C files "
            f"compiled, the rest cached): {n} extension files in {out}") in printed.out, printed.out


def test_build_native_json_is_the_report_of_what_was_installed(monkeypatch, tmp_path, capsys):
    """--json prints the report (where, and the files the record decoder's build installed), laid out
    with two spaces a level, one key a line, as people read it in a CI log."""
    from kwire.generator.native import build, records

    into = tmp_path / "kwire"
    (into / "records").mkdir(parents=True)
    shutil.copyfile(records.SOURCE, into / "records" / records.SOURCE.name)
    built = []

    def fake_build(cache: Path, *, install_dir: Path, log) -> list[Path]:
        built.append((cache, install_dir))
        return [install_dir / "column_decoder_c.so", install_dir / "column_decoder.so"]

    monkeypatch.setattr(build, "check_toolchain", lambda: None)
    monkeypatch.setattr(records, "build", fake_build)
    code = main(["build-native", "--into", str(into), "--cache", str(tmp_path / "cache"), "--json"])
    printed = capsys.readouterr()
    assert code == 0, printed
    assert built == [(tmp_path / "cache" / "record-decoder", into.resolve() / "records")]
    report = {"into": str(into.resolve()),
              "record_decoder": {"installed": ["column_decoder_c.so", "column_decoder.so"]}}
    assert json.loads(printed.out) == report
    assert printed.out == json.dumps(report, indent=2) + "\n"
