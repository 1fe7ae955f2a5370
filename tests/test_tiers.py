"""The fast tier (``make check``, tests/tiers.py): it covers every part, and holds no Spark, live
peer, compiler or other test tests/tiers.py leaves to ``make test``."""
from __future__ import annotations

import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests import tiers
from tests.paths import REPO

PARTS = ("wire", "records", "generated", "logs", "network", "features", "metadata", "fuzz", "arrow", "testing",
         "cli", "generator")


def make_dry_run(target: str, tmp_path) -> list[str]:
    done = subprocess.run(["make", "-n", "--no-print-directory", target, f"VENV={tmp_path / 'venv'}"], cwd=REPO,
                          capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_make_check_runs_the_fast_tier_without_compiling(tmp_path):
    lines = make_dry_run("check", tmp_path)
    assert f"{tmp_path / 'venv'}/bin/pip install --quiet -e '.[test]'" in lines
    (run,) = [line for line in lines if " -m pytest " in line]
    assert run.startswith("KWIRE_RECORD_DECODER=python ") and run.endswith(" -m check")
    assert not any("native.records" in line for line in lines)  # no compiler: `make native` is not run
    (run,) = [line for line in make_dry_run("test", tmp_path) if " -m pytest " in line]
    assert " -m " not in run.partition(" -m pytest ")[2]  # make test selects nothing out: the whole suite


@pytest.mark.parametrize(("count", "kept"), [(0, set()), (1, {0}), (5, {0, 1, 2, 3, 4}), (6, {0, 1, 2, 4, 5}),
                                             (101, {0, 25, 50, 75, 100})])
def test_the_sample_keeps_the_first_the_last_and_evenly_between(count, kept):
    assert tiers.sample(count) == kept


def item(nodeid: str, fixtures=(), marks=()) -> SimpleNamespace:
    return SimpleNamespace(nodeid=nodeid, fixturenames=list(fixtures),
                           iter_markers=lambda: [SimpleNamespace(name=m) for m in marks])


def test_spark_live_and_compiled_tests_are_left_out():
    assert tiers.why_slow(item("tests/spark/test_decode.py::test_x")) == "Spark"
    assert tiers.why_slow(item("tests/records/test_x.py::test_y", fixtures=["tmp_path", "spark"])) == "a Spark session"
    assert tiers.why_slow(item("tests/records/test_x.py::test_y", fixtures=["compiled_record_decoder"]))
    assert tiers.why_slow(item("tests/network/test_x.py::test_y", marks=["parametrize", "live"]))
    assert tiers.why_slow(item("tests/records/test_x.py::test_y", fixtures=["tmp_path"], marks=["parametrize"])) is None
    kept = tiers.fast_tier([item(f"tests/wire/test_x.py::test_p[{i}]") for i in range(9)]
                           + [item("tests/wire/test_x.py::test_q"), item("tests/spark/test_s.py::test_r")])
    assert [i.nodeid for i in kept] == ["tests/wire/test_x.py::test_p[0]", "tests/wire/test_x.py::test_p[2]",
                                        "tests/wire/test_x.py::test_p[4]", "tests/wire/test_x.py::test_p[6]",
                                        "tests/wire/test_x.py::test_p[8]", "tests/wire/test_x.py::test_q"]


def test_every_slow_entry_names_a_test_that_exists():
    # a renamed test must not slip into the fast tier unnoticed
    for prefix in tiers.SLOW:
        path, _, name = prefix.partition("::")
        assert (REPO / path).exists(), prefix
        if name:  # a test's name, or the start of the names of a few
            assert re.search(rf"^def {re.escape(name)}\w*\(", (REPO / path).read_text(), re.MULTILINE), prefix


def fast_tier_ids(session: pytest.Session) -> list[str]:
    """The fast tier's test ids: from this session when it collected the whole suite (make test: each
    xdist worker collects all of it), else from a collection of its own."""
    if {item.nodeid.partition("::")[0].split("/")[1] for item in session.items} >= {*PARTS, "spark"}:
        return [item.nodeid for item in session.items if item.get_closest_marker("check")]
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-m", "check"],
                          cwd=REPO, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_the_fast_tier_covers_every_part_and_nothing_it_leaves_out(request):
    selected = fast_tier_ids(request.session)
    for part in PARTS:
        assert any(line.startswith(f"tests/{part}/") for line in selected), part
    assert not [line for line in selected if line.startswith(tuple(tiers.SLOW))]
