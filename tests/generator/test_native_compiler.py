"""The compiled build's driver: what its cache keys see, and that a rebuild compiles only what changed.

The unit tests need no compiler. The build tests compile a user's package of two small
definitions (seconds), as ``kwire generate --compile`` does, into a package inside another
(``outer.codecs``), then change one definition and check that only its module is compiled
again while the other's library is taken from the cache unchanged.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kwire.cli.main import main
from kwire.generator.definitions.loader import load_definitions
from kwire.generator.emit import render_all, write_package
from kwire.generator.native.build import compile_package, extension_suffix
from kwire.generator.native.compiler import ArtifactCache, CBuild, Toolchain, digest, local_headers
from tests.optional import need_module, need_toolchain

# --- no C compiler needed (CBuild reads mypyc's runtime headers, so those tests need mypyc) -------

def test_local_headers_are_followed_inside_the_build_only(tmp_path) -> None:
    build, group, outside = tmp_path / "c", tmp_path / "c" / "pkg", tmp_path / "lib-rt"
    for d in (build, group, outside):
        d.mkdir(parents=True, exist_ok=True)
    (build / "__native_pkg___m.c").write_text('#include "__native_m.h"\n#include <CPy.h>\n#include "missing.h"\n')
    (group / "__native_m.h").write_text('#include "__native_internal_m.h"\n#include <other/__native__base.h>\n')
    (group / "__native_internal_m.h").write_text("int x;\n")
    (build / "other").mkdir()
    (build / "other" / "__native__base.h").write_text('#include "CPy.h"\n')
    (outside / "CPy.h").write_text("/* mypyc's runtime: outside the build, covered by the toolchain key */\n")
    found = local_headers(build / "__native_pkg___m.c", [outside, build, group], build)
    assert [p.relative_to(build).as_posix() for p in found] == [
        "other/__native__base.h", "pkg/__native_internal_m.h", "pkg/__native_m.h"]


def fake_build(tmp_path: Path) -> CBuild:
    need_module("mypyc.build")
    toolchain = Toolchain(compile=["cc", "-fPIC"], link=["cc", "-shared"], archive=["ar", "rc"], ranlib=[],
                          includes=["/usr/include/python3"], identity="cc 1.0 / py 3.11 / mypyc x")
    return CBuild(toolchain, ArtifactCache(tmp_path / "cache"), tmp_path / "c", jobs=1, log=print, progress=print)


def build_over(tmp_path: Path, files: dict[str, str]) -> tuple[CBuild, Path]:
    """A fake build whose C directory holds ``files`` (relative name -> text), and that directory."""
    c = tmp_path / "c"
    for name, text in files.items():
        (c / name).parent.mkdir(parents=True, exist_ok=True)
        (c / name).write_text(text)
    return fake_build(tmp_path), c


def moved(build: CBuild, tmp_path: Path) -> tuple[CBuild, Path]:
    """The build's C directory moved elsewhere, and a build over it with the same toolchain and cache."""
    elsewhere = tmp_path / "elsewhere"
    build.c_dir.rename(elsewhere)
    return CBuild(build.toolchain, build.cache, elsewhere, jobs=1, log=print, progress=print), elsewhere


def test_an_object_key_changes_with_what_the_compiler_would_see(tmp_path) -> None:
    build, c = build_over(tmp_path, {"__native_pkg___m.c": '#include "__native_m.h"\nint f(void) { return X; }\n',
                                     "pkg/__native_m.h": "#define X 1\n"})
    source, header = c / "__native_pkg___m.c", c / "pkg" / "__native_m.h"

    def key(flags=("-O3",), include=(c / "pkg",)) -> str:
        return build.object_for(source, list(include), list(flags)).key

    first = key()
    assert key() == first
    assert key(flags=("-O1",)) != first
    header.write_text("#define X 2\n")  # the module's own header: its group's struct layout
    assert key() != first
    header.write_text("#define X 1\n")
    assert key() == first
    source.touch()  # time stamps do not matter, only bytes
    assert key() == first
    build, c = moved(build, tmp_path)  # nor where the build directory is
    assert build.object_for(c / source.name, [c / "pkg"], ["-O3"]).key == first


def test_a_translation_unit_s_key_follows_the_files_it_includes(tmp_path) -> None:
    from kwire.generator.native.compiler import Extension

    build, c = build_over(tmp_path, {"__native_pkg___m.c": "int f(void) { return 1; }\n",
                                     "pkg/__native_m.c": "int g(void) { return 2; }\n"})
    code, init = c / "__native_pkg___m.c", c / "pkg" / "__native_m.c"
    ext = Extension("pkg.m__mypyc", [code, init, c / "init.c"], [], ["-O1"])
    (unit,) = build.translation_units(ext)  # the module's code and its group's init file, one file
    assert unit.read_text() == '#include "../__native_pkg___m.c"\n#include "../pkg/__native_m.c"\n'

    def key() -> str:
        return build.object_for(unit, [c / "pkg"], ["-O1"]).key

    first = key()
    init.write_text("int g(void) { return 3; }\n")
    assert key() != first
    init.write_text("int g(void) { return 2; }\n")
    assert key() == first
    build, c = moved(build, tmp_path)
    (unit,) = build.translation_units(Extension("pkg.m__mypyc", [c / code.name, c / "pkg" / init.name, c / "init.c"],
                                                [], ["-O1"]))
    assert build.object_for(unit, [c / "pkg"], ["-O1"]).key == first
    shim = Extension("pkg.m", [c / "pkg" / "m.c"], [], ["-O1"])
    assert build.translation_units(shim) == shim.sources  # one file: compiled as it is


def test_the_cache_drops_entries_unused_for_a_week(tmp_path) -> None:
    import os
    import time

    cache = ArtifactCache(tmp_path)
    old, _ = cache.make(digest("old"), ".o", lambda p: p.write_bytes(b"old"))
    new, hit = cache.make(digest("new"), ".o", lambda p: p.write_bytes(b"new"))
    assert not hit and cache.make(digest("new"), ".o", lambda p: p.write_bytes(b"other"))[1]
    week_ago = time.time() - 8 * 86400
    os.utime(old, (week_ago, week_ago))
    assert cache.prune() == 1 and not old.exists() and new.read_bytes() == b"new"


def test_a_compiled_build_takes_the_hot_path_unless_told_every_module() -> None:
    import kwire.generated as generated
    from kwire.generator.emit import module_name
    from kwire.generator.emit.plan import on_hot_path
    from kwire.generator.native.build import native_sources

    messages = load_definitions([Path(__file__).resolve().parents[2] / "message_defs"])
    default = {name.removesuffix(".py") for name in native_sources(messages)} - {"_base", "_records_view"}
    assert default == generated.COMPILED_BY_DEFAULT
    assert {"fetch_response", "metadata_request", "request_header", "partition_record"} <= default
    assert "create_topics_request" not in default and "voters_record" not in default
    assert default == {module_name(m) for m in messages if on_hot_path(m)} and len(default) < len(messages) / 4
    every = native_sources(messages, {m.name for m in messages})
    assert len(every) == len(messages) + 2  # and the base module and the native RecordsView


# --- real builds -------------------------------------------------------------------------------

GREETING = {"type": "data", "name": "GreetingRecord", "validVersions": "0-1", "flexibleVersions": "1+",
            "fields": [{"name": "Text", "type": "string", "versions": "0+"},
                       {"name": "Count", "type": "int32", "versions": "1+", "default": "1"}]}
FAREWELL = {"type": "data", "name": "FarewellRecord", "validVersions": "0", "flexibleVersions": "none",
            "fields": [{"name": "Words", "type": "[]string", "versions": "0+"}]}


@pytest.fixture(scope="module")
def toolchain():
    return need_toolchain()


def write_defs(defs: Path, *definitions: dict) -> None:
    defs.mkdir(exist_ok=True)
    for definition in definitions:
        (defs / f"{definition['name']}.json").write_text(json.dumps(definition))


def test_a_rebuild_compiles_only_the_changed_module(toolchain, tmp_path, capsys) -> None:
    defs, out, build_dir = tmp_path / "defs", tmp_path / "outer" / "codecs", tmp_path / "kwire-build"
    write_defs(defs, GREETING, FAREWELL)
    (tmp_path / "outer").mkdir()
    (tmp_path / "outer" / "__init__.py").write_text("")
    # --compile alone builds the hot path, which a user's own data definitions are not on
    code = main(["generate", "--compile", "all", "--defs", str(defs), "--out", str(out), "--package", "outer.codecs",
                 "--build-dir", str(build_dir), "--jobs", "2"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "compiled 2 modules in" in printed and "2 at a time" in printed
    # mypyc's shims include nothing but Python.h, first: what the precompiled header relies on
    shim = build_dir / "c" / "outer" / "codecs" / "greeting_record.c"
    assert shim.read_text().startswith("#include <Python.h>\n"), shim
    if "Free Software Foundation" in toolchain.identity:
        assert (build_dir / "c" / "precompiled" / "Python.h.gch").is_file()

    check = """
import sys
import outer.codecs.greeting_record as m
assert m.__file__.endswith(sys.argv[1]), m.__file__
g = m.GreetingRecord(text="hi", count=3)
assert m.GreetingRecord.decode(g.encode(1), 1) == g
print(g.encode(1).hex())
"""
    run = [sys.executable, "-c", check, extension_suffix()]

    def encoded() -> bytes:
        return bytes.fromhex(subprocess.run(run, cwd=tmp_path, check=True, capture_output=True, text=True).stdout)

    assert encoded() == b"\x03hi" + b"\x00\x00\x00\x03" + b"\x00"  # compact string, int32, no tags
    farewell_library = out / ("farewell_record__mypyc" + extension_suffix())
    before = farewell_library.read_bytes()

    changed = {**GREETING, "fields": [*GREETING["fields"], {"name": "Mood", "type": "string", "versions": "1+"}]}
    write_defs(defs, changed)
    messages = load_definitions([defs])
    write_package(render_all(messages), out)
    result = compile_package(messages, out, package="outer.codecs", build_dir=build_dir, jobs=2,
                             only={m.name for m in messages})
    # the changed module's C (its functions and its group's init file, one translation unit); the
    # runtime, the base class and the other module come from the cache
    assert result.c_compiled == 1 and result.c_files > 20, result
    assert farewell_library.read_bytes() == before
    # the new field (an empty compact string) is encoded; checked in a fresh process, since an
    # extension module is loaded once per process
    assert encoded() == b"\x03hi" + b"\x00\x00\x00\x03" + b"\x01" + b"\x00"


def test_the_shims_include_python_h_precompiled(toolchain, tmp_path) -> None:
    import subprocess as sp

    build = CBuild(toolchain, ArtifactCache(tmp_path / "cache"), tmp_path / "c", jobs=1, log=print, progress=print)
    (tmp_path / "c").mkdir()
    flags = ["-O1", "-g0"]
    directory = build.precompiled_python_header(flags)
    if "Free Software Foundation" not in toolchain.identity:
        assert directory is None  # not GCC: no precompiled header, the shims parse Python.h
        return
    assert directory is not None and (directory / "Python.h.gch").is_file()
    shim = tmp_path / "c" / "shim.c"
    shim.write_text("#include <Python.h>\nPyMODINIT_FUNC PyInit_shim(void) { return NULL; }\n")
    obj = build.object_for(shim, [], flags, (directory,))
    # -H lists the headers used; GCC marks a precompiled header it uses with "!"
    used = sp.run([*obj.command, "-H", "-o", str(tmp_path / "shim.o")], capture_output=True, text=True, check=True)
    assert f"! {directory / 'Python.h.gch'}" in used.stderr, used.stderr[:500]


def test_a_python_h_that_does_not_precompile_leaves_the_shims_to_parse_it(tmp_path) -> None:
    import sysconfig

    need_module("mypyc.build")
    failing = Toolchain(compile=["false"], link=["cc", "-shared"], archive=["ar", "rc"], ranlib=[],
                        includes=[sysconfig.get_path("include")], identity="gcc (Free Software Foundation) 99")
    logged: list[str] = []
    build = CBuild(failing, ArtifactCache(tmp_path / "cache"), tmp_path / "c", jobs=1, log=logged.append,
                   progress=print)
    (tmp_path / "c").mkdir()
    assert build.precompiled_python_header(["-O1"]) is None
    assert "precompiling Python.h failed" in logged[-1] and "the shims parse Python.h themselves" in logged[-1]


def test_a_type_error_is_reported_with_mypy_s_words(toolchain, tmp_path) -> None:
    from kwire.generator.native.build import CompileFailed, build_extensions

    with pytest.raises(CompileFailed) as failed:
        build_extensions("broken", {"m.py": "x: int = 'a'\n"}, tmp_path / "build")
    assert "mypyc failed" in str(failed.value) and "Incompatible types in assignment" in failed.value.log
