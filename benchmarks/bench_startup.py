"""Start-up cost of the first things a user does, before (``--before PYTHON``) and after (this checkout).

Run: ``python benchmarks/bench_startup.py --before /path/to/main/.venv/bin/python [--rounds 9]``

Each workload runs in a fresh interpreter, once per round; rounds alternate between the two
interpreters so that both share whatever load the machine has. Bytecode is cached as on a user's
machine, but outside both checkouts (``PYTHONPYCACHEPREFIX`` in a temporary directory, whatever
``PYTHONDONTWRITEBYTECODE`` says), and one untimed round fills that cache first. Per workload the table gives the
median over the rounds of the time the work took inside the child (imports included, interpreter
start-up not) and of the child's whole wall time, and how many generated message modules the
child imported. ``--before`` is any interpreter that imports another kwire checkout (e.g. main's
virtual environment); without it only this checkout is measured.

Workloads:

- ``import_generated``: ``import kwire.generated``.
- ``correlator``: ``Correlator()``, then one ApiVersionsResponse v0 frame parsed (bytes written by
  hand from the wire rules: correlation id 7, no error, one api key 18 at versions 0-3).
- ``dump_library``: ``kwire.logs.dump.dump_paths`` over the one-segment metadata log that a Kafka
  3.9.0 node wrote (``tests/data/kraft-ichwansh03-kafka-migration-log4j2``, 668 KB), every event
  consumed: the library's path, without the command line's parser.
- ``dump_command``: ``kwire dump`` of the same segment, output to /dev/null.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEGMENT = REPO / "tests/data/kraft-ichwansh03-kafka-migration-log4j2/__cluster_metadata-0/00000000000000000000.log"
# size 16 | correlation id 7 | error 0 | api_keys: 1 x (api key 18, min 0, max 3)
API_VERSIONS_V0_FRAME = "00000010" "00000007" "0000" "00000001" "0012" "0000" "0003"

# Each child prints {"seconds": <the work, imports included>, "cpu": <its CPU seconds>,
# "modules": <generated message modules imported>}.
_REPORT = """
import json, sys
print(json.dumps({"seconds": time.perf_counter() - _start, "cpu": time.process_time() - _cpu, "modules": sorted(
    m for m in sys.modules if m.startswith("kwire.generated.") and m != "kwire.generated._index")}))
"""
WORKLOADS = {
    "import_generated": "import kwire.generated\n",
    "correlator": f"""
from kwire.network.framing import Correlator
correlator = Correlator()
correlator.expect(7, 18, 0)
assert correlator.parse_response(bytes.fromhex("{API_VERSIONS_V0_FRAME}")).body.api_keys[0].max_version == 3
""",
    "dump_library": f"""
from kwire.logs.dump import dump_paths
events = sum(1 for _ in dump_paths([{str(SEGMENT)!r}]))
assert events > 1000, events
""",
}


def child_source(workload: str) -> str:
    return "import time\n_start, _cpu = time.perf_counter(), time.process_time()\n" + WORKLOADS[workload] + _REPORT


def run_once(python: str, workload: str, env: dict[str, str]) -> tuple[float | None, float | None, float, int | None]:
    """(seconds inside the child, its CPU seconds (None for the command), wall seconds, generated
    modules imported (None for the command))."""
    if workload == "dump_command":
        kwire = str(Path(python).with_name("kwire"))
        start = time.perf_counter()
        subprocess.run([kwire, "dump", str(SEGMENT)], check=True, stdout=subprocess.DEVNULL, cwd="/", env=env)
        return None, None, time.perf_counter() - start, None
    start = time.perf_counter()
    done = subprocess.run([python, "-c", child_source(workload)], check=True, capture_output=True, text=True,
                          cwd="/", env=env)
    wall = time.perf_counter() - start
    report = json.loads(done.stdout.splitlines()[-1])
    return report["seconds"], report["cpu"], wall, len(report["modules"])


def _median_ms(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{statistics.median(known) * 1000:.0f}" if known else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="the interpreter of the kwire to compare with (e.g. main's venv)")
    parser.add_argument("--after", default=sys.executable, help="default: this interpreter")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--workload", action="append", choices=[*WORKLOADS, "dump_command"])
    args = parser.parse_args(argv)
    sides = {"after": args.after, **({"before": args.before} if args.before else {})}
    workloads = args.workload or [*WORKLOADS, "dump_command"]
    runs: dict[str, dict[str, list]] = {w: {side: [] for side in sides} for w in workloads}
    with tempfile.TemporaryDirectory(prefix="kwire-bench-pycache-") as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        for round_ in range(args.rounds + 1):  # round 0 fills the bytecode cache, untimed
            for workload in workloads:
                for side, python in sides.items():
                    timing = run_once(python, workload, env)
                    if round_:
                        runs[workload][side].append(timing)
    print(f"{'workload':<18} {'side':<7} {'in child ms':>12} {'child CPU ms':>13} {'wall ms':>9} {'modules':>8}")
    for workload, by_side in runs.items():
        for side, rounds in sorted(by_side.items(), reverse=True):
            inside, cpu = (_median_ms([r[i] for r in rounds]) for i in (0, 1))
            modules = rounds[0][3] if rounds[0][3] is not None else "-"
            print(f"{workload:<18} {side:<7} {inside:>12} {cpu:>13} {_median_ms([r[2] for r in rounds]):>9} "
                  f"{modules!s:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
