"""``kwire decode`` of one big segment: in-process (the default) against ``--spark`` (local[*]).

Run: ``python benchmarks/bench_decode.py [--records 28800000] [--keep DIR] [--spark]``

Writes one segment of lz4 batches of 1,000 small records each (``RecordBatchBuilder``; 48
distinct batches reused with new base offsets, as a broker assigns them), then decodes it to
Parquet with ``kwire decode`` (and with ``kwire decode --spark`` when asked) and prints, for each
run, the wall time, the CPU time of the command's whole process tree, the peak resident memory of
its largest process and the peak of the sum over the tree (sampled from /proc every 0.1 s: the
worker processes, or the JVM and its Python workers; ``/usr/bin/time -v`` sees neither, as they
are not the command's waited-for children). On a shared machine the CPU seconds are steady where
wall times are not. Issue 27's case is the default: 28.8M records, about 400 MB.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kwire.records import Codec, RecordBatchBuilder  # noqa: E402

RECORDS_PER_BATCH = 1000
DISTINCT_BATCHES = 48
BASE_TS = 1_700_000_000_000


def write_segment(path: Path, records: int) -> int:
    rng = random.Random(27)
    pool = []
    for i in range(DISTINCT_BATCHES):
        builder = RecordBatchBuilder(codec=Codec.LZ4)
        for j in range(RECORDS_PER_BATCH):
            value = b'{"id":%d,"ok":true}' % (i * RECORDS_PER_BATCH + j)  # small JSON: about 14 bytes a record in lz4
            builder.append(BASE_TS + i * RECORDS_PER_BATCH + j, b"key-%03d" % rng.randrange(1000), value)
        pool.append(builder.build())
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        for index in range(records // RECORDS_PER_BATCH):
            out.write((index * RECORDS_PER_BATCH).to_bytes(8, "big"))  # the base offset, outside the CRC
            out.write(pool[index % DISTINCT_BATCHES][8:])
    return path.stat().st_size


_TICKS = os.sysconf("SC_CLK_TCK")


def _tree(root: int, cpu: dict[int, float]) -> tuple[int, int]:
    """(largest RSS, summed RSS) in bytes over ``root`` and its descendants; their CPU seconds so
    far into ``cpu`` (pid -> seconds)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        parent = int(fields[1])
        children.setdefault(parent, []).append(int(entry.name))
        used[int(entry.name)] = (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                rss[int(entry.name)] = int(line.split()[1]) * 1024
    seen, stack = [], [root]
    while stack:
        pid = stack.pop()
        seen.append(pid)
        stack += children.get(pid, [])
    for pid in seen:
        if pid in used:
            cpu[pid] = max(cpu.get(pid, 0.0), used[pid])
    sizes = [rss.get(pid, 0) for pid in seen]
    return max(sizes, default=0), sum(sizes)


def measure(command: list[str]) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds, largest RSS, largest summed RSS) of ``command`` and its processes."""
    started = time.monotonic()
    process = subprocess.Popen(command)
    largest = total = 0
    cpu: dict[int, float] = {}
    while process.poll() is None:
        one, whole = _tree(process.pid, cpu)
        largest, total = max(largest, one), max(total, whole)
        time.sleep(0.1)
    if process.returncode:
        raise SystemExit(f"{command} failed: exit {process.returncode}")
    return time.monotonic() - started, sum(cpu.values()), largest, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=28_800_000)
    parser.add_argument("--keep", type=Path, help="write (or reuse) the segment here instead of a temporary folder")
    parser.add_argument("--spark", action="store_true", help="also run kwire decode --spark (local[*])")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="kwire-bench-decode-"))
    segment = root / "input" / "bench-0" / "00000000000000000000.log"
    try:
        if not segment.exists():
            size = write_segment(segment, args.records)
            print(f"wrote {segment}: {size / 1e6:.0f} MB, {args.records:,} records")
        kwire = [sys.executable, "-m", "kwire", "decode", str(segment.parent.parent), "--mode", "overwrite", "-q"]
        runs = [("in-process (default)", [*kwire, "--out", str(root / "out-here")])]
        if args.spark:
            runs.append(("spark local[*]", [*kwire, "--out", str(root / "out-spark"), "--spark"]))
        for name, command in runs:
            seconds, cpu, largest, total = measure(command)
            print(f"{name}: {seconds:.1f} s, {cpu:.1f} CPU-s, largest process {largest / 2**20:.0f} MiB, "
                  f"all processes {total / 2**20:.0f} MiB at most; load average {os.getloadavg()[0]:.1f}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
