"""Instructions per decode (valgrind's callgrind) of the compiled kwire build and kio, on the
workloads of ``bench_codec.py``: steady to 0.1% under any load, where the clock is not.

    python benchmarks/decode_instructions.py [--calls 50] [--workload fetch_v12 ...] [--impl kio ...]

Each child process sets one codec up (the compiled build is ``bench_codec``'s: the test suite's
mypyc subset), decodes once to warm it, then decodes ``--calls`` times inside
``functools.reduce``, the only code callgrind counts (``--toggle-collect``); the figure is the
count over the calls. ``PYTHONHASHSEED=0`` and the garbage collector off, as in the cost model.
``--compiled-root DIR`` measures the ``kwcompiled`` build under DIR (for instance a copy of
an older ``build/kwire-compiled/<key>``) instead of this checkout's. ``--functions N`` also
prints the N functions with the most instructions (self) per decode.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORKLOADS = ("api_versions_v3", "metadata_v12", "fetch_v12")
IMPLS = ("kwire (mypyc)", "kio", "kwire")


def child(workload: str, impl: str, calls: int) -> None:
    """The measured process: one codec of one workload, decoded ``calls`` times in reduce."""
    import functools
    import gc

    sys.path.insert(0, str(REPO / "benchmarks"))
    import bench_codec

    root = os.environ.get("KWIRE_COMPILED_ROOT")
    if root:  # a compiled build kept elsewhere (a "before"), instead of the one of this checkout's sources
        import importlib

        sys.path.insert(0, root)
        bench_codec.compiled_package = lambda: (importlib.import_module("kwcompiled"), "")
    _key, _title, spec, message = _built(bench_codec, workload)
    data = message.encode(spec.version)
    decode = bench_codec.message_codecs(spec, data)[impl]().decode
    decode()
    gc.disable()
    functools.reduce(lambda _, __: decode(), range(calls), None)


def _built(bench_codec, workload: str):
    """(key, title, spec, message) of a single-message workload, without setting up every codec."""
    builders = {"api_versions_v3": bench_codec.api_versions_workload, "metadata_v12": bench_codec.metadata_workload,
                "fetch_v12": bench_codec.fetch_workload}
    return builders[workload]()


def measure(workload: str, impl: str, calls: int, functions: int,
            root: str | None = None) -> tuple[float, list[tuple[float, str]]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no",
                   "--toggle-collect=functools_reduce", sys.executable, __file__, "--child", workload, impl,
                   str(calls)]
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(REPO))
        if root:
            env["KWIRE_COMPILED_ROOT"] = root
        proc = subprocess.run(command, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{workload} {impl}: exit {proc.returncode}\n{proc.stderr[-3000:]}")
        total = int(re.search(r"Collected : (\d+)", proc.stderr).group(1))
        top: list[tuple[float, str]] = []
        if functions:
            report = subprocess.run(["callgrind_annotate", "--inclusive=no", str(out)], capture_output=True,
                                    text=True, check=True).stdout
            for line in report.splitlines():
                found = re.match(r"\s*([\d,]+) \([^)]*\)\s+(?:\S+:)?(\S+)", line)
                if found and len(top) < functions:
                    top.append((int(found.group(1).replace(",", "")) / calls, found.group(2)))
        return total / calls, top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1], argv[2], int(argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--workload", action="append", choices=WORKLOADS)
    parser.add_argument("--impl", action="append", choices=IMPLS, help="default: kwire (mypyc) and kio")
    parser.add_argument("--compiled-root", help="the directory holding the kwcompiled build to measure")
    parser.add_argument("--functions", type=int, default=0, help="also list the top N functions per decode")
    args = parser.parse_args(argv)
    impls = args.impl or ["kwire (mypyc)", "kio"]
    print("| decode | " + " | ".join(impls) + (" | kio / kwire (mypyc) |" if set(impls) >= set(IMPLS[:2]) else " |"))
    print("|---|" + "---:|" * (len(impls) + (set(impls) >= set(IMPLS[:2]))))
    for workload in args.workload or WORKLOADS:
        counts, tops = {}, {}
        for impl in impls:
            counts[impl], tops[impl] = measure(workload, impl, args.calls, args.functions, args.compiled_root)
        row = " | ".join(f"{counts[i] / 1000:,.1f}k" for i in impls)
        ratio = f" | {counts['kio'] / counts['kwire (mypyc)']:.2f}x" if set(impls) >= set(IMPLS[:2]) else ""
        print(f"| {workload} | {row}{ratio} |", flush=True)
        for impl in impls:
            for count, name in tops[impl]:
                print(f"    {impl}: {count:12,.0f}  {name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
