"""Instruction counts behind the cost model in README.md (needs valgrind; a few minutes).

    python benchmarks/cost_model.py [--compiled]

Each figure is the difference in instructions (valgrind --tool=callgrind) between two runs that
call encode or decode 20 and 220 times, divided by 200, and then between two messages that
differ in one thing. Wall time on a shared machine varies by 2x; instruction counts do not.
``--compiled`` measures the mypyc build of tests/generated/compiled_build.py instead of generated/.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SMALL, LARGE = 20, 220

# unit -> (message with it, message without it, how many of the unit the first one adds)
UNITS = {
    "fixed-width struct in an array": ("api100", "api0", 100),
    "struct with its own reader": ("md100e", "md0", 100),
    # 3 replicas and 3 in-sync against 1 and 1: elements only (an empty array has a cheaper path)
    "int32 element of a short array": ("md100", "md100one", 400),
    "tagged field present": ("api0tag", "api0", 1),
}


def message(package: str, case: str):
    import importlib

    avr = importlib.import_module(f"{package}.api_versions_response")
    mdr = importlib.import_module(f"{package}.metadata_response")

    def api(keys: int, epoch: int = -1):
        return avr.ApiVersionsResponse(api_keys=[avr.ApiVersion(api_key=i, max_version=3) for i in range(keys)],
                                       finalized_features_epoch=epoch), 3

    def metadata(partitions: int, replicas: tuple[int, ...]):
        return mdr.MetadataResponse(topics=[mdr.MetadataResponseTopic(
            name="t", topic_id=uuid.UUID(int=1), partitions=[mdr.MetadataResponsePartition(
                partition_index=i, replica_nodes=list(replicas), isr_nodes=list(replicas))
                for i in range(partitions)])]), 12

    return {"api0": lambda: api(0), "api100": lambda: api(100), "api0tag": lambda: api(0, 5),
            "md0": lambda: metadata(0, ()), "md100": lambda: metadata(100, (1, 2, 3)),
            "md100one": lambda: metadata(100, (1,)),
            "md100e": lambda: metadata(100, ())}[case]()


def run_calls(package: str, root: str, case: str, op: str, calls: int) -> None:
    """The measured child: build the message, then encode or decode it ``calls`` times."""
    import gc

    sys.path.insert(0, root)
    obj, version = message(package, case)
    data, cls = obj.encode(version), type(obj)
    gc.disable()
    for _ in range(calls):
        cls.decode(data, version) if op == "decode" else obj.encode(version)


def instructions(package: str, root: str, case: str, op: str, calls: int) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
               "--child", package, root, case, op, str(calls)]
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(REPO))
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def per_call(package: str, root: str, case: str, op: str) -> float:
    large, small = instructions(package, root, case, op, LARGE), instructions(package, root, case, op, SMALL)
    return (large - small) / (LARGE - SMALL)


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        package, root, case, op, calls = sys.argv[2:7]
        run_calls(package, root, case, op, int(calls))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiled", action="store_true", help="measure the mypyc build")
    args = parser.parse_args()
    package, root = "kwire.generated", str(REPO)
    if args.compiled:
        sys.path.insert(0, str(REPO))
        from tests.generated.compiled_build import compiled_package

        compiled = compiled_package()
        package, root = compiled.__name__, str(Path(compiled.__file__).parents[1])
    cache: dict[tuple[str, str], float] = {}
    print(f"| one ... | decode | encode |  ({package})\n|---|---:|---:|")
    print(f"| message (ApiVersionsResponse v3, empty) | {per_call(package, root, 'api0', 'decode'):.0f} "
          f"| {per_call(package, root, 'api0', 'encode'):.0f} |")
    for unit, (with_it, without, count) in UNITS.items():
        cells = []
        for op in ("decode", "encode"):
            for case in (with_it, without):
                if (case, op) not in cache:
                    cache[case, op] = per_call(package, root, case, op)
            cells.append(f"{(cache[with_it, op] - cache[without, op]) / count:.0f}")
        print(f"| {unit} | {cells[0]} | {cells[1]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
