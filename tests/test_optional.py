"""A missing optional package or compiler toolchain: a skip on a light checkout, a failure under CI.

tests/optional.py is the one rule; ``make native`` follows it with ``--require``. The end-to-end
tests run pytest in a child whose interpreter cannot see mypy/mypyc, or nothing of the test extra
(tests/hide_packages/): the whole suite must still collect, each test that needs a hidden package
skipping (failing under CI).
"""
from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap

import pytest
from packaging.requirements import Requirement

from kwire.generator.native import records as native_records
from kwire.generator.native.build import CompileUnavailable
from tests import optional
from tests.paths import REPO

NO_TOOLCHAIN = CompileUnavailable("no C compiler found ('cc' is not on PATH)")


def no_toolchain(*_args, **_kwargs):
    raise NO_TOOLCHAIN


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception),
                                             ("false", pytest.skip.Exception)])
def test_a_missing_toolchain_fails_under_ci_and_skips_elsewhere(monkeypatch, ci, outcome):
    monkeypatch.setenv("CI", ci)
    monkeypatch.setattr("kwire.generator.native.build.check_toolchain", no_toolchain)
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
    assert "record decoder not compiled (or only its C flavour): no C compiler found" in capsys.readouterr().err
    assert native_records.main(["-q", "--require"]) == 1
    assert "error: record decoder not compiled, and --require was given" in capsys.readouterr().err


def native_command(tmp_path, **env) -> str:
    # --no-print-directory: under `make test` this make is a sub-make, which would print "Leaving directory"
    done = subprocess.run(["make", "-n", "--no-print-directory", "native", f"VENV={tmp_path / 'venv'}"], cwd=REPO,
                          capture_output=True,
                          text=True, check=True, env={**os.environ, **env})
    return done.stdout.splitlines()[-1]


def test_make_native_passes_require_under_ci(tmp_path):
    assert native_command(tmp_path, CI="true").endswith("native.records --cache build/record-decoder --require")
    assert native_command(tmp_path, CI="").endswith("native.records --cache build/record-decoder")


def run_compiled_tests_without_mypy(ci: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CI": ci, "PYTHONPATH": str(REPO / "tests" / "hide_packages"),
           "KWIRE_HIDDEN_PACKAGES": "mypy,mypyc"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-rs",
         "tests/generator/test_native_compiler.py::test_a_rebuild_compiles_only_the_changed_module",
         "tests/records/test_columns.py::test_the_fastest_build_is_the_one_in_use"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_compiled_build_tests_without_mypy_fail_under_ci():
    done = run_compiled_tests_without_mypy("true")
    assert done.returncode == 1, done.stdout[-3000:]  # the fixtures fail: errors, not skips
    assert "2 errors" in done.stdout and "under CI=true this is a failure, not a skip" in done.stdout


def test_compiled_build_tests_without_mypy_skip_elsewhere():
    done = run_compiled_tests_without_mypy("")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "2 skipped" in done.stdout and "mypyc is not installed" in done.stdout


# --- a light checkout: kwire and pytest, nothing of the test extra ---------------------------------

def _name(distribution: str) -> str:
    return distribution.lower().replace("_", "-")


def _installed_with(roots: list[str]) -> set[str]:
    """The distributions ``roots`` need, themselves included (no extras), as pip would install them."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = _name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        for text in importlib.metadata.distribution(name).requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return seen


def light_checkout() -> tuple[list[str], list[str]]:
    """What ``pip install -e . pytest`` would not have installed here: the top-level modules of every
    other installed distribution (the test extra and all it pulls in), and the pytest plugins
    those distributions bring (which a light checkout would not load)."""
    kept = _installed_with(["kwire", "pytest"]) | {"pip", "setuptools"}  # every venv has these
    hidden = sorted(module for module, distributions in importlib.metadata.packages_distributions().items()
                    if not any(_name(d) in kept for d in distributions))
    plugins = sorted(entry.name for entry in importlib.metadata.entry_points(group="pytest11")
                     if _name(entry.dist.name) not in kept)
    return hidden, plugins


def run_light(argv: list[str], ci: str = "", cwd=REPO) -> subprocess.CompletedProcess:
    hidden, plugins = light_checkout()
    env = {**os.environ, "CI": ci, "KWIRE_HIDDEN_PACKAGES": ",".join(hidden),
           "PYTHONPATH": os.pathsep.join([str(REPO / "tests" / "hide_packages"), str(REPO)])}
    no_plugins = [arg for plugin in plugins for arg in ("-p", f"no:{plugin}")]
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *no_plugins, *argv],
                          check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_a_light_checkout_lacks_the_test_extra():
    hidden, plugins = light_checkout()
    # the oracles and the optional parts' libraries are hidden; kwire's own dependencies are not
    assert {"kio", "kafka", "aiokafka", "confluent_kafka", "construct", "hypothesis", "pyarrow", "pyspark",
            "moto", "boto3", "junitparser", "mypy", "jinja2"} <= set(hidden)
    assert not {"kwire", "pytest", "crc32c", "zstandard", "lz4", "cramjam"} & set(hidden)
    assert {"xdist", "hypothesispytest"} <= set(plugins)


def test_the_suite_collects_on_a_light_checkout():
    """Every test module follows tests/optional.py: without the test extra the suite collects with no
    error (a module that needs a package throughout skips), and under CI each lack is an error."""
    done = run_light(["--collect-only", "tests"])
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert " error" not in done.stdout.splitlines()[-1], done.stdout[-5000:]


def test_a_bare_import_fails_the_light_collection_and_later_skips(tmp_path):
    """The hiding is real: a module importing kio at its top fails to collect; one naming it with
    later() collects, its test that uses it skips (fails under CI) and its other test passes."""
    (tmp_path / "test_bare.py").write_text("import kio\n\n\ndef test_nothing():\n    pass\n")
    done = run_light(["test_bare.py"], cwd=tmp_path)
    assert done.returncode == 2 and "No module named 'kio'" in done.stdout, done.stdout[-3000:]
    (tmp_path / "test_bare.py").unlink()
    (tmp_path / "test_later.py").write_text(textwrap.dedent("""
        from tests.optional import later

        schema_name_map = later("kio.schema.index", "schema_name_map")


        def test_uses_it():
            assert schema_name_map


        def test_does_not():
            pass
    """))
    done = run_light(["-rs", "test_later.py"], cwd=tmp_path)
    assert done.returncode == 0 and "1 passed, 1 skipped" in done.stdout, done.stdout[-3000:]
    assert "needs kio.schema.index: No module named 'kio'" in done.stdout
    done = run_light(["test_later.py"], ci="true", cwd=tmp_path)
    assert done.returncode == 1 and "1 failed, 1 passed" in done.stdout, done.stdout[-3000:]


# --- the helpers a test module names optional packages with ----------------------------------------

def test_later_imports_at_first_use_and_stands_in_for_what_it_names(monkeypatch):
    monkeypatch.delitem(sys.modules, "json.decoder", raising=False)
    monkeypatch.delitem(sys.modules, "json", raising=False)
    decoder = optional.later("json.decoder", "JSONDecoder")
    assert decoder.__name__ == "JSONDecoder" and "json" not in sys.modules  # naming it imported nothing
    assert decoder().decode("[1]") == [1]
    assert isinstance(decoder(), decoder)
    import xml

    monkeypatch.delitem(sys.modules, "xml.dom", raising=False)
    monkeypatch.delattr(xml, "dom", raising=False)
    dom = optional.later("xml", "dom")  # a submodule its package has not imported
    assert dom.Node.ELEMENT_NODE == 1
    table = optional.later("string", "ascii_lowercase")
    assert table[0] == "a" and len(table) == 26 and "z" in table and list(table)[-1] == "z"


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_missing_package_named_with_later_skips_the_test_that_uses_it(monkeypatch, ci, outcome):
    monkeypatch.setenv("CI", ci)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    plot = optional.later("matplotlib", "pyplot")
    assert plot.__name__ == "pyplot"  # collection (pytest's ids) does not import it
    with pytest.raises(BaseException, match="needs matplotlib") as raised:
        plot.figure()
    assert raised.type is outcome


def test_params_from_a_missing_package_is_one_parameter_that_skips_or_fails(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    (param,) = optional.params_from("matplotlib", lambda m: [1, 2], width=3)
    assert param.values == (None, None, None) and param.id == "needs-matplotlib"
    assert [(m.name, m.args[0]) for m in param.marks] == [("needs_module", "matplotlib")]
    assert optional.params_from("json", lambda m: [m.dumps(1), m.dumps(2)]) == ["1", "2"]


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_missing_program_fails_under_ci_and_skips_elsewhere(monkeypatch, ci, outcome):
    monkeypatch.setenv("CI", ci)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(BaseException, match="needs the program git: it is not on PATH") as raised:
        optional.need_program("git")
    assert raised.type is outcome
