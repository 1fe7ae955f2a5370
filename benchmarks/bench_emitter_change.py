"""Speed of the code the emitter writes now, against the code an earlier revision's emitter wrote.

    python benchmarks/bench_emitter_change.py [--base REV] [--compiled] [--runs N] [--target S]
                                              [--workload KEY] [--json OUT]

The emitter of revision REV (default: where this branch left main, ``git merge-base HEAD main``;
its kwire, generator and templates, taken with ``git archive``) renders this checkout's message_defs, in a subprocess,
into ``build/emitter-base/<commit>/`` as package ``kwbase``; with ``--compiled`` it also builds its
mypyc subset (the one tests/generated/compiled_build.py compiles, as ``kwbase_compiled``), which is
set against this checkout's compiled subset. Both packages run here on this checkout's runtime, so
only the generated code differs. Every workload of bench_codec.py is timed for each package with
bench_codec's machinery, the runs of old and new interleaved round-robin; the table gives each
side's median ops/s and the ratio now/base: the median of the per-round ratios, with their
min-max. A ratio within the min-max spread of 1 is no change that these runs can tell.

``--instructions`` counts instructions instead (valgrind's callgrind, deterministic where wall
time on a shared machine is not): each operation runs ``--calls`` times inside
``functools.reduce`` in a child process, callgrind collects inside that call only (after three
warm-up calls; the garbage collector paused, as when timing), and the table gives instructions per operation for each
side and now/base.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_codec as bench  # noqa: E402

REPO = bench.REPO
BUILD = REPO / "build" / "emitter-base"
BASE, BASE_COMPILED = "kwbase", "kwbase_compiled"
SIDES = ("base", "now")

# Run with the base revision's tree first on the path: render its package (and its compiled
# subset) from this checkout's definitions. Arguments: definitions, tree, output and cache
# directories (cache "" for no compiled build), then the names of the compiled subset.
_RENDER = f"""
import sys
from pathlib import Path
import kwire
from kwire.generator.emit import render_all, write_package
from kwire.generator.definitions.loader import load_definitions
defs_dir, tree, out, cache, subset = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4], sys.argv[5:]
assert Path(kwire.__file__).resolve().is_relative_to(tree.resolve()), kwire.__file__
messages = load_definitions([defs_dir])
write_package(render_all(messages), out / "{BASE}")
if cache:
    from kwire.generator.native.build import cached_build
    print(cached_build(messages, "{BASE_COMPILED}", Path(cache), only=set(subset)))
"""


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True).stdout.strip()


def base_tree(commit: str) -> Path:
    """The base revision laid out as an importable ``kwire`` (generator and generated inside it)."""
    root = BUILD / commit[:12]
    tree = root / "tree"
    if not (tree / "kwire" / "generator").is_dir():
        parts = ("generator", "generated", "message_defs")
        archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "kwire", *parts],
                                 check=True, capture_output=True).stdout
        staging = root / "tree.tmp"
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(staging, filter="data")
        for part in parts:
            (staging / part).rename(staging / "kwire" / part)
        staging.rename(tree)
    return root


def render_base(commit: str, compiled: bool) -> tuple[Path, Path | None]:
    """(sys.path root of kwbase, of kwbase_compiled or None), rendered by the base emitter."""
    from tests.generated.compiled_build import SUBSET

    root = base_tree(commit)
    cache = root / "compiled" if compiled else None
    if cache is not None and not (cache.is_dir() and any(cache.iterdir())):
        print("building the base revision's mypyc subset (minutes, once) ...", file=sys.stderr)
    env = dict(os.environ, PYTHONPATH=str(root / "tree"))
    done = subprocess.run([sys.executable, "-c", _RENDER, str(REPO / "message_defs"), str(root / "tree"),
                           str(root / "pure"), str(cache or ""), *sorted(SUBSET)],
                          env=env, cwd=root, capture_output=True, text=True)  # not this checkout's kwire
    if done.returncode != 0:
        raise SystemExit(f"the base emitter failed:\n{done.stderr}")
    compiled_root = Path(done.stdout.strip().splitlines()[-1]) if compiled else None
    return root / "pure", compiled_root


# --- workloads, one codec per side ---------------------------------------------------------------

def twin(package, cls: type) -> type:
    """The class of ``package`` that matches a class of kwire.generated."""
    module = importlib.import_module(cls.__module__.replace("kwire.generated.", f"{package.__name__}.", 1))
    return getattr(module, cls.__name__)


def stream_codec(package, values: list[bytes]) -> bench.Codec:
    # API keys from kwire.generated's classes: a compiled class's ClassVars are not class attributes
    from kwire import generated

    classes = {cls.API_KEY: twin(package, cls) for cls in map(generated.MESSAGES.__getitem__, (
        "FeatureLevelRecord", "TopicRecord", "PartitionRecord", "RegisterBrokerRecord"))}

    def decode_body(api_key: int, version: int, value: bytes, pos: int):
        obj, end = classes[api_key].read(value, pos, version)
        assert end == len(value)
        return obj

    return bench.stream_codec(values, lambda k, v, obj: obj.encode(v), decode_body)


def build_workloads(packages: dict[str, Any], keys: list[str]) -> list[bench.Workload]:
    workloads = []
    factories: dict[str, Callable[[], bench.Codec]]
    singles = {"api_versions_v3": bench.api_versions_workload, "metadata_v12": bench.metadata_workload,
               "fetch_v12": bench.fetch_workload, "offset_commit_v9": bench.offset_commit_workload,
               "offset_fetch_v8": bench.offset_fetch_workload}
    for key in keys:
        if key in singles:
            _, title, spec, message = singles[key]()
            data = message.encode(spec.version)
            workload = bench.Workload(key, title, data, len(data))
            factories = {side: partial(bench.kwire_codec, twin(package, spec.cls), spec.version, data)
                         for side, package in packages.items()}
        else:
            records: list[tuple[Any, int]] = bench.metadata_stream_records()
            values = [bench.frame_header(type(obj).API_KEY, v) + obj.encode(v) for obj, v in records]
            workload = bench.Workload(key, "metadata record stream", values, sum(map(len, values)))
            factories = {side: partial(stream_codec, package, values) for side, package in packages.items()}
        bench.add_codecs(workload, factories)
        for side, why in {**workload.skipped, **workload.mismatched}.items():
            raise SystemExit(f"{key}: {side} does not run or does not reproduce the bytes: {why}")
        workloads.append(workload)
    return workloads


# --- instruction counts ----------------------------------------------------------------------------

def count_child(argv: list[str]) -> int:
    """Under callgrind: set up one side's codec, then run one operation in functools.reduce."""
    import functools
    import gc

    build, side, key, op, calls = argv
    packages = sides(build, side)
    codec = build_workloads(packages, [key])[0].codecs[side]
    run = getattr(codec, op)
    for _ in range(3):  # warm-up: lazily made defaults, CPython's specializing interpreter
        run()
    # As bench_codec times, without collections: their cost depends on everything else in the
    # process (a threshold of 0 also stops them, and freeze() leaves nothing for one to look at).
    # The collections callgrind once showed here came from setting the compiled side up, which
    # runs inside a functools.reduce too: instructions() subtracts two counts for that.
    gc.collect()
    gc.freeze()
    gc.set_threshold(0)
    gc.disable()
    functools.reduce(lambda acc, _: (run(), acc)[1], range(int(calls)), 0)
    return 0


def sides(build: str, only: str) -> dict[str, Any]:
    """The package of side ``only`` ('base' or 'now') of ``build`` ('pure' or 'mypyc')."""
    if only == "now":
        if build == "pure":
            return {"now": importlib.import_module("kwire.generated")}
        current, why = bench.compiled_package()
        if current is None:
            raise SystemExit(f"no compiled build here: {why}")
        return {"now": current}
    return {"base": importlib.import_module(BASE if build == "pure" else BASE_COMPILED)}


def instructions(roots: list[Path], build: str, side: str, key: str, op: str, calls: int) -> float:
    """Instructions per ``op`` of one side: callgrind counts inside functools.reduce for ``calls``
    and for twice as many operations, and the difference is divided by ``calls``. Setting a side
    up may itself run inside a functools.reduce (the compiled side renders every definition to
    find its build), with collections in it; the same in both runs, it cancels out."""
    once, twice = (_collected(roots, build, side, key, op, n) for n in (calls, 2 * calls))
    return (twice - once) / calls


def _collected(roots: list[Path], build: str, side: str, key: str, op: str, calls: int) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--collect-atstart=no",
               "--toggle-collect=functools_reduce", sys.executable, __file__, "--count-child",
               build, side, key, op, str(calls)]
    env = dict(os.environ, PYTHONHASHSEED="0",
               PYTHONPATH=os.pathsep.join([str(REPO)] + [str(root) for root in roots]))
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=REPO)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run of {build} {side} {key} {op} failed:\n{done.stderr[-3000:]}")
    return int(found.group(1))


def count_instructions(roots: list[Path], builds: list[str], keys: list[str], calls: int) -> list[dict]:
    print("| build | workload | op | base instructions | now instructions | now/base |")
    print("|---|---|---|---:|---:|---:|")
    rows = []
    for build in builds:
        for key in keys:
            for op in ("decode", "encode"):
                base, now = (instructions(roots, build, side, key, op, calls) for side in SIDES)
                print(f"| {build} | {key} | {op} | {base:,.0f} | {now:,.0f} | {now / base:.3f} |", flush=True)
                rows.append({"build": build, "workload": key, "operation": op,
                             "instructions": {"base": base, "now": now}, "ratio": now / base})
    return rows


def round_ratios(now: bench.Cell, base: bench.Cell) -> list[float]:
    return [a / b for a, b in zip(now.run_ops, base.run_ops, strict=True)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="the revision whose emitter is the baseline (default: git merge-base HEAD main)")
    parser.add_argument("--compiled", action="store_true", help="also compare the mypyc-compiled subsets")
    parser.add_argument("--runs", type=int, default=11, help="timed runs per side and cell (default 11)")
    parser.add_argument("--target", type=float, default=0.2, help="seconds per run (default 0.2)")
    parser.add_argument("--workload", action="append", choices=list(bench.WORKLOAD_BUILDERS),
                        help="only this workload (repeatable)")
    parser.add_argument("--json", type=Path, help="write every run here")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions per operation with callgrind instead of timing")
    parser.add_argument("--calls", type=int, default=20, help="operations per callgrind count (default 20)")
    parser.add_argument("--build", action="append", choices=["pure", "mypyc"],
                        help="with --instructions: count only this build (repeatable; default every build; "
                             "mypyc implies --compiled)")
    if argv is None and sys.argv[1:2] == ["--count-child"]:
        return count_child(sys.argv[2:])
    args = parser.parse_args(argv)
    if "mypyc" in (args.build or ()):
        args.compiled = True  # counting the mypyc build needs it built

    base = args.base or git("merge-base", "HEAD", "main")
    commit = git("rev-parse", base)
    pure_root, compiled_root = render_base(commit, args.compiled)
    sys.path[:0] = [str(pure_root)] + ([str(compiled_root)] if compiled_root else [])
    import kwire.generated as now

    builds = {"pure": {"base": importlib.import_module(BASE), "now": now}}
    if args.compiled:
        current, why = bench.compiled_package()
        if current is None:
            raise SystemExit(f"no compiled build here: {why}")
        builds["mypyc"] = {"base": importlib.import_module(BASE_COMPILED), "now": current}
        # a class of the compiled subset must run compiled on both sides, not its .py fallback
        for package in builds["mypyc"].values():
            module = sys.modules[package.MESSAGES["MetadataResponse"].__module__]
            assert (module.__file__ or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), module

    keys = args.workload or list(bench.WORKLOAD_BUILDERS)
    if args.instructions:
        roots = [pure_root] + ([compiled_root] if compiled_root else [])
        print(f"base: {base} ({commit[:12]}); now: this checkout; callgrind, {args.calls} calls per count")
        rows = count_instructions(roots, [b for b in builds if b in (args.build or builds)], keys, args.calls)
        if args.json:
            args.json.write_text(json.dumps({"base": base, "commit": commit, "calls": args.calls,
                                             "results": rows}, indent=2) + "\n")
        return 0
    print(f"base: {base} ({commit[:12]}); now: this checkout; {args.runs} runs of ~{args.target}s per cell")
    print("| build | workload | op | base ops/s | now ops/s | now/base (median of rounds) | rounds min-max |")
    print("|---|---|---|---:|---:|---:|---:|")
    rows = []
    for build, packages in builds.items():
        for workload in build_workloads(packages, keys):
            for op in ("encode", "decode"):
                cells = bench.measure(workload, op, args.runs, args.target)
                ratios = round_ratios(cells["now"], cells["base"])
                median = statistics.median(ratios)
                print(f"| {build} | {workload.key} | {op} | {bench.human(cells['base'].median)} | "
                      f"{bench.human(cells['now'].median)} | {median:.3f} | {min(ratios):.3f}-{max(ratios):.3f} |",
                      flush=True)
                rows.append({"build": build, "workload": workload.key, "operation": op,
                             "runs_ops_per_s": {side: cells[side].run_ops for side in SIDES},
                             "ratio_median": median, "ratios": ratios})
    if args.json:
        args.json.write_text(json.dumps({"base": base, "commit": commit, "machine": bench.machine_info(),
                                         "runs": args.runs, "target_seconds_per_run": args.target,
                                         "results": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
