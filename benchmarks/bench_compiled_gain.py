"""How much faster each generated module runs compiled (mypyc) than as plain Python.

    python benchmarks/bench_compiled_gain.py [--examples N] [--rounds R] [--messages A,B] [--json OUT]

Builds every module of message_defs/ compiled (``cached_build`` with every message: minutes the
first time, cached in ``build/compiled-every/``), then, per message at its highest version,
decodes and encodes the same ``--examples`` messages (drawn by ``kwire.testing.messages``,
derandomized, so every run draws the same ones) with the plain module and with the compiled one,
best of ``--rounds``. It prints the per-module speed-ups (plain time / compiled time) summed up
for the modules on the hot path (``plan.on_hot_path``) and for the others: the figures behind
``plan.compiled_by_default``, which decides what ``kwire generate --compile`` builds.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def draw(cls: type, version: int, count: int) -> list:
    """``count`` messages of ``cls`` at ``version``, the same ones every run."""
    from hypothesis import HealthCheck, given, settings

    from kwire.testing import messages

    found: list = []

    @settings(max_examples=count, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(messages(cls, version, unknown_tags=False))
    def collect(message) -> None:
        found.append(message)

    collect()
    return found[:count]


def best_time(run: Callable[[], object], rounds: int, repeat: int = 20) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            run()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


def speed_ups(plain: type, compiled: type, version: int, count: int, rounds: int) -> tuple[float, float]:
    """(decode, encode): time with the plain class over time with the compiled one."""
    data = [m.encode(version) for m in draw(plain, version, count)]
    objects = {cls: [cls.decode(d, version) for d in data] for cls in (plain, compiled)}
    assert [o.encode(version) for o in objects[compiled]] == data, plain.__name__  # the same bytes both ways
    decode = {cls: best_time(lambda cls=cls: [cls.decode(d, version) for d in data], rounds)
              for cls in (plain, compiled)}
    encode = {cls: best_time(lambda cls=cls: [o.encode(version) for o in objects[cls]], rounds)
              for cls in (plain, compiled)}
    return decode[plain] / decode[compiled], encode[plain] / encode[compiled]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=30, help="messages drawn per definition (default: 30)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds, the best kept (default: 3)")
    parser.add_argument("--messages", help="only these messages, comma-separated")
    parser.add_argument("--json", type=Path, help="write every module's figures here")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")

    import importlib

    import kwire.generated as plain_package
    from kwire.generator.definitions.loader import load_definitions
    from kwire.generator.emit.plan import on_hot_path
    from kwire.generator.native.build import cached_build

    if any(not str(sys.modules[plain_package.MESSAGES[m].__module__].__file__).endswith(".py")
           for m in ("ApiVersionsResponse", "FetchResponse")):
        sys.exit("kwire.generated runs compiled here (make compile): the plain side must be plain; "
                 "remove its extension modules (make clean) first")
    definitions = load_definitions([REPO / "message_defs"])
    root = cached_build(definitions, "kwcompiled_every", REPO / "build" / "compiled-every",
                        only={m.name for m in definitions})
    sys.path.insert(0, str(root))
    compiled_package = importlib.import_module("kwcompiled_every")
    wanted = set(args.messages.split(",")) if args.messages else None
    rows = []
    for message in sorted(definitions, key=lambda m: m.name):
        if wanted is not None and message.name not in wanted:
            continue
        plain, compiled = getattr(plain_package, message.name), getattr(compiled_package, message.name)
        version = plain.VALID_VERSIONS[1]
        decode, encode = speed_ups(plain, compiled, version, args.examples, args.rounds)
        rows.append({"message": message.name, "version": version, "hot_path": on_hot_path(message),
                     "decode": round(decode, 3), "encode": round(encode, 3)})
        print(f"{message.name:45} v{version:<3} {'hot ' if rows[-1]['hot_path'] else 'cold'} "
              f"decode {decode:5.2f}x  encode {encode:5.2f}x", flush=True)
    print()
    for hot in (True, False):
        group = [r for r in rows if r["hot_path"] == hot]
        if not group:
            continue
        for op in ("decode", "encode"):
            values = [r[op] for r in group]
            print(f"{'hot path' if hot else 'off it':8} {len(group):3} modules, {op}: geometric mean "
                  f"{statistics.geometric_mean(values):.2f}x, median {statistics.median(values):.2f}x, "
                  f"{min(values):.2f}-{max(values):.2f}x")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
