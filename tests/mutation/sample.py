"""Mutation testing part by part: draw the seeded sample, run one part against its own tests.

    python tests/mutation/sample.py draw            # list every mutant, keep/top up tests/mutation/sample.txt
    python tests/mutation/sample.py run PART...     # run the sampled mutants of those parts
    python tests/mutation/sample.py parts           # the parts and their sizes

mutmut 3.8.1 runs, for each mutant, the tests its stats pass saw reaching the mutated function,
out of ``pytest_add_cli_args_test_selection``. One selection for every part would make the stats
pass the whole suite and let a wire mutant run the CLI's tests too; so ``run`` gives mutmut, for
one part at a time, that part's files to mutate and that part's tests (``PARTS``), by replacing
its loaded configuration before calling its own ``run``. Each part is a separate process, so each
has its own stats. The sample is seeded and stable: ``draw`` keeps every sampled mutant that still
exists and tops each part up to ``PER_PART`` (all of a part that has fewer) with a seeded draw
from that part's other mutants, so survivors already analysed keep their names.

The generator is imported as ``kwire.generator`` (a package-dir mapping in pyproject.toml), while
mutmut names its mutants after the file (``generator.compat...``); for that part ``run`` installs
an import alias so that ``kwire.generator.X`` is the mutated ``generator.X`` of mutmut's copy.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import json
import os
import random
import sys
from dataclasses import replace
from fnmatch import fnmatch
from pathlib import Path
from typing import ClassVar

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "mutation" / "sample.txt"
SEED = 37
PER_PART = 40

GOLDEN = [
    "tests/generated/test_golden_vectors.py", "tests/generated/test_codec_regressions.py",
    "tests/generated/test_vectors_alter_partition.py",
]
# part -> (files mutmut mutates, the tests that speak to them)
PARTS: dict[str, tuple[list[str], list[str]]] = {
    "wire": (["kwire/wire/*"], ["tests/wire", *GOLDEN]),
    "records": (["kwire/records/*"], ["tests/records"]),
    "logs": (["kwire/logs/*"], ["tests/logs"]),
    "network": (["kwire/network/*"], ["tests/network"]),
    "features": (["kwire/features/*"], ["tests/features"]),
    "metadata": (["kwire/metadata/*"], ["tests/metadata"]),
    "fuzz": (["kwire/fuzz/*"], ["tests/fuzz/test_hostile_input.py", "tests/fuzz/test_value_ranges.py",
                                "tests/fuzz/test_report_force.py", "tests/fuzz/test_hostile_cli.py",
                                "tests/fuzz/test_directed_and_static.py", "tests/cli/test_fuzz.py",
                                "tests/cli/test_fuzz_gate.py"]),
    "arrow": (["kwire/arrow/*"], ["tests/arrow"]),
    "testing": (["kwire/testing/*"], ["tests/testing"]),
    "cli": (["kwire/cli/*", "kwire/__main__.py", "kwire/__init__.py"],
            # build-native compiles with mypyc, which cannot compile mutmut's mutated sources; the
            # Ctrl-C test waits a fixed time for a subprocess's workers, too short under trampolines;
            # the Makefile's tests read the Makefile, which mutmut's copy does not have
            ["tests/cli", "--ignore=tests/cli/test_build_native.py", "--ignore=tests/cli/test_interrupt.py",
             "--ignore=tests/cli/test_make_targets.py", "tests/metadata/test_cli.py", "tests/metadata/test_matrix.py",
             "tests/metadata/test_quorum.py", "tests/generator/test_check_compat.py",
             "tests/features/test_features_command.py",
             "tests/features/test_storage_command.py", "tests/logs/test_dump.py",
             "tests/arrow/test_decode_files.py"]),
    "evolution": (["generator/evolution/compat.py", "generator/evolution/history_merge.py",
                   "generator/evolution/release_tables.py", "generator/definitions/versions.py"],
                  ["tests/generator/test_check_compat.py", "tests/generator/test_history_merge.py",
                   "tests/generator/test_evolution_details.py",
                   "tests/generator/test_versions.py", "tests/cli/test_merge_versions.py",
                   "tests/network/test_releases.py", "tests/cli/test_versions.py"]),
    # The tests that start a JVM share one local[2] session (tests/conftest.py's ``spark``), which
    # each mutant's child process starts for itself (see SPARK_TIMEOUT). mutmut's stats see only what
    # runs in the test's own process: not a subprocess (left out: the standalone cluster's tests, the
    # command-line ones), nor Spark's Python workers, where the data source and decode_column's tasks
    # run; test_offline.py drives those here. Of test_decode.py, whose other tests read through the
    # data source, the tests that call kwire.spark in this process.
    "spark": (["kwire/spark/*"], [
        "tests/spark/test_planning.py", "tests/spark/test_shipping.py", "tests/spark/test_error_text.py",
        "tests/spark/test_offline.py", "tests/spark/test_fuzz.py", "tests/spark/test_downgrade_matrix.py",
        "tests/spark/test_executors.py",
        *(f"tests/spark/test_decode.py::test_{name}" for name in (
            "decode_column_matches_kafka_python_on_real_responses", "decode_column_keeps_records_bytes",
            "decode_column_on_bad_bodies", "decode_here_writes_what_decode_on_spark_writes"))]),
}
# mutmut's wall limit per mutant is (the stats pass's time of its tests + timeout_constant) x
# timeout_multiplier; a test's time there leaves out its fixtures, and a spark mutant's child starts
# its own JVM first (tests/conftest.py's end_jvm): the constant covers that start.
SPARK_TIMEOUT = {"timeout_constant": 40.0, "timeout_multiplier": 4.0}


def part_of(path: str) -> str | None:
    for name, (globs, _tests) in PARTS.items():
        if any(fnmatch(path, g) for g in globs):
            return name
    return None


def _part_of_mutant(name: str) -> str | None:
    module = name.rsplit(".", 1)[0].replace(".", "/")
    return part_of(module + ".py") or part_of(module + "/__init__.py")


def _configure(part: str | None) -> None:
    """Point mutmut's test selection at one part's tests. Every part's files stay mutated (were
    the others left out, mutmut would copy them back unmutated), and a change of selection resets
    the verdicts of this part's mutants only, not those the other parts' runs recorded."""
    os.chdir(ROOT)
    import mutmut.__main__ as mutmut_main
    from mutmut import configuration

    base = configuration.config()
    globs = [g for gs, _t in PARTS.values() for g in gs]
    tests = PARTS[part][1] if part else base.pytest_add_cli_args_test_selection
    args = base.pytest_add_cli_args
    if part == "evolution":
        # pytest rewrites the asserts of every module of a distribution with a pytest11 entry
        # point (kwire.testing.plugin): its import hook, ahead of the generator alias, would load
        # a second kwire.generator.X from mutmut's copy, and a test that patches one copy while
        # the code calls the other fails unmutated (the stats pass stopped there).
        args = [*args, "--assert=plain"]
    timeouts = SPARK_TIMEOUT if part == "spark" else {}
    configuration._config = replace(base, only_mutate=globs, pytest_add_cli_args=args,
                                    pytest_add_cli_args_test_selection=tests, **timeouts)
    _own_forkserver_in_each_child()
    reset = mutmut_main._reset_mutant_results
    mutmut_main._reset_mutant_results = lambda should: reset(
        lambda key, code: _part_of_mutant(key) == part and should(key, code))


def _own_forkserver_in_each_child() -> None:
    """mutmut forks each mutant's child from the process that ran the clean tests; when those used
    multiprocessing's forkserver (``kwire decode --jobs N``, the fuzz sweep's workers), the child
    inherits that process's forkserver, which is not its own child: starting a worker there fails
    with ECHILD ("[Errno 10] No child processes"), and the mutant would count as killed. A child
    forgets the inherited server (without stopping it: the parent's) and starts its own, whose
    workers also see the child's ``MUTANT_UNDER_TEST``."""
    import multiprocessing.forkserver

    from mutmut.runners.harness import PytestRunner

    owner, run_tests = os.getpid(), PytestRunner.run_tests

    def run_tests_with_own_forkserver(self, *, mutant_name, tests):
        server = multiprocessing.forkserver._forkserver
        if os.getpid() != owner and server._forkserver_pid is not None:
            server._forkserver_pid = server._forkserver_alive_fd = server._forkserver_address = None
        return run_tests(self, mutant_name=mutant_name, tests=tests)

    PytestRunner.run_tests = run_tests_with_own_forkserver


def _mutant_names() -> dict[str, list[str]]:
    """Every mutant mutmut generated, by part (from its .meta files)."""
    by_part: dict[str, list[str]] = {name: [] for name in PARTS}
    for meta in sorted((ROOT / "mutants").rglob("*.py.meta")):
        path = meta.relative_to(ROOT / "mutants").as_posix()[: -len(".meta")]
        part = part_of(path)
        if part is not None:
            by_part[part] += sorted(json.loads(meta.read_text())["exit_code_by_key"])
    return by_part


def draw() -> None:
    _configure(None)
    from mutmut.__main__ import (
        copy_also_copy_files,
        copy_src_dir,
        create_mutants,
        setup_source_paths,
    )

    os.makedirs("mutants", exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    setup_source_paths()
    create_mutants(1)
    SAMPLE.write_text("\n".join(top_up(_previous_sample(), _mutant_names())) + "\n")


def _previous_sample() -> list[str]:
    return SAMPLE.read_text().split() if SAMPLE.exists() else []


def top_up(previous: list[str], names_by_part: dict[str, list[str]]) -> list[str]:
    """The sample stays stable: every previously sampled mutant that still exists is kept (so the
    survivors already analysed in tests/README.md keep their meaning), and each part is topped up
    to ``PER_PART`` with a draw seeded by ``SEED`` and the part's name from its mutants not yet
    sampled. Sampled names that no longer exist (code moved or changed) are dropped."""
    lines = []
    for part, names in names_by_part.items():
        existing = set(names)
        kept = sorted(n for n in set(previous) if n in existing)
        rest = sorted(existing.difference(kept))
        rng = random.Random(f"{SEED}:{part}")
        added = rng.sample(rest, max(0, min(PER_PART - len(kept), len(rest))))
        gone = sum(1 for n in set(previous) if _part_of_mutant(n) == part and n not in existing)
        print(f"{part}: {len(kept) + len(added)} of {len(names)} ({len(kept)} kept, {len(added)} new, {gone} gone)")
        lines += sorted(kept + added)
    return lines


class _GeneratorAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``kwire.generator.X`` is mutmut's ``generator.X`` (the same module object, which keeps its
    own ``__spec__``: the loader reads definition_schema.json through it)."""

    def find_spec(self, name, path=None, target=None):
        if name != "kwire.generator" and not name.startswith("kwire.generator."):
            return None
        real = importlib.import_module("generator" + name[len("kwire.generator"):])
        return importlib.util.spec_from_loader(name, self, is_package=hasattr(real, "__path__"))

    real_specs: ClassVar[dict[str, object]] = {}

    def create_module(self, spec):
        module = importlib.import_module("generator" + spec.name[len("kwire.generator"):])
        self.real_specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module) -> None:
        module.__spec__ = self.real_specs[module.__name__]  # the import gave it the alias's spec


def run(parts: list[str]) -> None:
    sample = SAMPLE.read_text().split()
    for part in parts:
        names = [n for n in sample if _part_of_mutant(n) == part]
        print(f"== {part}: {len(names)} mutants", flush=True)
        pid = os.fork()
        if pid == 0:
            _configure(part)
            if part == "evolution":
                sys.meta_path.insert(0, _GeneratorAlias())
            from mutmut.__main__ import _run

            try:
                _run(names, 1)
            except SystemExit as stop:
                os._exit(stop.code if isinstance(stop.code, int) else 1)
            os._exit(0)
        os.waitpid(pid, 0)


def main(argv: list[str]) -> int:
    if argv[:1] == ["draw"]:
        draw()
    elif argv[:1] == ["run"]:
        run(argv[1:] or list(PARTS))
    elif argv[:1] == ["parts"]:
        for part, names in _mutant_names().items():
            print(part, len(names))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
