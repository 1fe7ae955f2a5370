"""How long the ``kwire`` command takes to start: wall time of fresh processes, median of rounds.

    python benchmarks/bench_cli_start.py [--rounds 10] [--json OUT] [-- ARGV ...]

Each round runs ``python -m kwire.cli.main ARGV`` (default: ``--help``, then ``dump --help`` and
``--version``) in a new interpreter, as a user's shell would, and times it to the exit. It also
counts the modules the run imports (``-X importtime``) and how many come from the generator. The
first row is the floor: ``python -c pass``, the interpreter's own start (with ``site`` and, in an
editable install, its import hook), which no change to kwire can go below.
Figures are in benchmarks/README.md, section *Command-line start-up*.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

DEFAULT_RUNS = (("--help",), ("dump", "--help"), ("--version",))


FLOOR = ("-c", "pass")


def command(argv: tuple[str, ...]) -> list[str]:
    return list(argv) if argv == FLOOR else ["-m", "kwire.cli.main", *argv]


def wall_times(argv: tuple[str, ...], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run([sys.executable, *command(argv)], stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return times


def imported_modules(argv: tuple[str, ...]) -> list[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", *command(argv)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return [line.rpartition("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time:")
            and not line.endswith("| package")]


def measure(argv: tuple[str, ...], rounds: int) -> dict:
    times = wall_times(argv, rounds)
    modules = imported_modules(argv)
    kwire_modules = [name for name in modules if name.startswith("kwire")]
    return {"argv": list(argv), "rounds": rounds, "median_s": round(statistics.median(times), 4),
            "min_s": round(min(times), 4), "kwire_modules": len(kwire_modules),
            "generator_modules": sum(name.startswith("kwire.generator") for name in kwire_modules),
            "all_modules": len(modules)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="one kwire command line (default: three)")
    args = parser.parse_args()
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv  # `-- --help`: kwire's own option
    runs = (FLOOR, *((tuple(argv),) if argv else DEFAULT_RUNS))
    results = [measure(argv, args.rounds) for argv in runs]
    for result in results:
        name = "python -c pass" if tuple(result["argv"]) == FLOOR else f"kwire {' '.join(result['argv'])}"
        print(f"{name:<18} median {result['median_s'] * 1000:7.1f} ms "
              f"(min {result['min_s'] * 1000:.1f}) over {result['rounds']} runs; imports {result['kwire_modules']} "
              f"kwire modules ({result['generator_modules']} from the generator), {result['all_modules']} in all")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
