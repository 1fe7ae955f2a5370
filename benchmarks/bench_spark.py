"""Bulk decode speed of Kafka log segments: one process, Spark ``local[1]``, ``local[2]`` and a
standalone cluster of two one-core workers.

Run: ``python benchmarks/bench_spark.py [--sizes 0.1,0.25,0.5,1] [--segment-mb 50] [--keep DIR]
[--rounds 3] [--no-cluster]``

Writes a log directory of segments (several ``topic-N`` partitions, producer-sized batches of
~100 records, codecs none/lz4/zstd in turn) into a temporary directory, deleted at the end, and
reads growing prefixes of it (by whole segments) three ways, every column of every record
decoded each time:

- **single process**: ``kwire.spark.local_reader.iter_batches``, the exact work of the Spark
  tasks done in a row in this process (Arrow batches out, no JVM);
- **Spark local[1]** and **local[2]**: ``spark.read.format("kwire").load(dir)`` written to
  Spark's ``noop`` sink, so every row crosses into the JVM and nothing is written. Each session
  first runs one untimed job (Python worker start-up);
- **cluster**: the same on a Spark standalone cluster on this machine (a master and two workers
  of one core each, from the Spark in the ``pyspark`` wheel; ``tests/spark/standalone.py``), the
  packages shipped as a zip as on any cluster.

Each size is read ``--rounds`` times by every reader, the readers interleaved round by round (one
Spark session is kept per reader, so Spark readers take turns by master: all rounds of local[1],
then local[2], then the cluster; the single-process reader runs between them). For every run the
CPU time of this process (the driver: planning, and all the work of the single-process reader), of
the JVMs and of the Python workers it started (read from /proc before and after) is recorded: what
each reader spends its cores on.

Output: records/s per size and reader (median of the rounds, min-max), and for each Spark reader
the CPU seconds per million records in the JVMs and in Python, and the cores kept busy;
``--json`` also writes every run.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kwire.records import Codec, RecordBatchBuilder  # noqa: E402

GB = 1_000_000_000
BASE_TS = 1_700_000_000_000
PARTITIONS = 4
RECORDS_PER_BATCH = 100
DISTINCT_BATCHES = 48
CODECS = (Codec.NONE, Codec.LZ4, Codec.ZSTD)


# --- input ----------------------------------------------------------------------------------------


def batch_pool(seed: int = 1) -> list[tuple[bytes, int]]:
    """Distinct batches (wire bytes at base offset 0, record count): JSON-like values of
    80-400 bytes, 16-byte keys, a header on one record in five."""
    rng = random.Random(seed)
    pool = []
    for i in range(DISTINCT_BATCHES):
        builder = RecordBatchBuilder(codec=CODECS[i % len(CODECS)], producer_id=1000 + i, producer_epoch=0,
                                     base_sequence=0)
        for j in range(RECORDS_PER_BATCH):
            words = " ".join(rng.choice(("alpha", "beta", "gamma", "delta", "kafka", "spark", "event"))
                             for _ in range(rng.randrange(8, 50)))
            value = b'{"id":%d,"user":"u-%d","text":"%s"}' % (i * 1000 + j, rng.randrange(10**6), words.encode())
            headers = [("trace-id", rng.randbytes(16))] if j % 5 == 0 else []
            builder.append(BASE_TS + i * 1000 + j, b"key-%012d" % rng.randrange(10**12), value, headers)
        pool.append((builder.build(), RECORDS_PER_BATCH))
    return pool


def write_segments(root: Path, total_bytes: int, segment_bytes: int) -> list[Path]:
    """Segments of about ``segment_bytes`` over PARTITIONS partitions, ``total_bytes`` in all.
    Batches are reused with new base offsets (outside the CRC), as a broker assigns them."""
    pool = batch_pool()
    segments: list[Path] = []
    next_offset = [0] * PARTITIONS
    written = index = 0
    while written < total_bytes:
        partition = len(segments) % PARTITIONS
        folder = root / f"bench-{partition}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{next_offset[partition]:020d}.log"
        size = 0
        with open(path, "wb") as out:
            while size < segment_bytes:
                data, count = pool[index % len(pool)]
                index += 1
                out.write(next_offset[partition].to_bytes(8, "big", signed=True))
                out.write(data[8:])
                next_offset[partition] += count
                size += len(data)
        segments.append(path)
        written += size
    return segments


def prefix_dir(root: Path, segments: list[Path], size: int, name: str) -> tuple[Path, int]:
    """A directory of links to the first segments holding ``size`` bytes (topic-N folders kept)."""
    target = root / name
    total = 0
    for path in segments:
        if total >= size:
            break
        link = target / path.parent.name / path.name
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(path, link)
        total += path.stat().st_size
    return target, total


# --- CPU accounting ---------------------------------------------------------------------------------

_TICKS = os.sysconf("SC_CLK_TCK")


def _descendants() -> dict[int, tuple[str, float]]:
    """Every process below this one: pid -> (kind, CPU seconds so far); kind is ``jvm`` or ``python``."""
    parents: dict[int, int] = {}
    info: dict[int, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        parents[int(entry.name)] = int(fields[1])
        cpu = (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime
        info[int(entry.name)] = ("jvm" if name == "java" else "python", cpu)
    me = os.getpid()
    found = {}
    for pid in info:
        ancestor = parents.get(pid)
        while ancestor not in (None, 0, 1, me):
            ancestor = parents.get(ancestor)
        if ancestor == me:
            found[pid] = info[pid]
    return found


class CpuMeter:
    """CPU seconds spent between ``start`` and ``stop``: this process, and the JVMs and Python
    processes below it (processes that started and ended in between are not seen)."""

    def start(self) -> None:
        self.before = _descendants()
        self.own = os.times()
        self.wall = time.perf_counter()

    def stop(self) -> dict[str, float]:
        wall = time.perf_counter() - self.wall
        own = os.times()
        after = _descendants()
        spent = {"jvm": 0.0, "python": 0.0}
        for pid, (kind, cpu) in after.items():
            spent[kind] += cpu - self.before.get(pid, (kind, 0.0))[1]
        spent["driver"] = (own.user - self.own.user) + (own.system - self.own.system)
        spent["wall"] = wall
        return spent


# --- readers --------------------------------------------------------------------------------------


def single_process(path: Path) -> tuple[dict[str, float], int]:
    from kwire.spark.local_reader import iter_batches

    meter = CpuMeter()
    meter.start()
    rows = sum(batch.num_rows for batch in iter_batches(str(path)))
    return meter.stop(), rows


def spark_run(spark, path: Path) -> dict[str, float]:
    meter = CpuMeter()
    meter.start()
    frame = spark.read.format("kwire").option("minPartitions", spark.sparkContext.defaultParallelism).load(str(path))
    frame.write.format("noop").mode("overwrite").save()
    return meter.stop()


# --- report ---------------------------------------------------------------------------------------

READERS = ["single process", "local[1]", "local[2]", "cluster"]


def rate(rows: int, seconds: float) -> str:
    per_second = rows / seconds
    return f"{per_second / 1e6:.2f}M" if per_second >= 1e6 else f"{per_second / 1e3:.0f}k"


def summary(result: dict, reader: str) -> dict[str, float]:
    """Median wall time and CPU shares of one reader's runs on one input."""
    runs = result["runs"][reader]
    walls = [r["wall"] for r in runs]
    median = statistics.median(walls)
    middle = min(runs, key=lambda r: abs(r["wall"] - median))
    millions = result["records"] / 1e6
    return {"wall": median, "min": min(walls), "max": max(walls),
            "jvm_per_m": middle["jvm"] / millions, "python_per_m": (middle["python"] + middle["driver"]) / millions,
            "cores": (middle["jvm"] + middle["python"] + middle["driver"]) / middle["wall"]}


def table(results: list[dict]) -> str:
    readers = [r for r in READERS if r in results[0]["runs"]]
    lines = [
        "| input | records | " + " | ".join(f"{r} records/s (min-max)" for r in readers) + " |",
        "|---:|---:|" + "---:|" * len(readers),
    ]
    for result in results:
        cells = [f"{result['bytes'] / GB:.2f} GB", f"{result['records']:,}"]
        for reader in readers:
            s = summary(result, reader)
            cells.append(f"{rate(result['records'], s['wall'])} ({rate(result['records'], s['max'])}-"
                         f"{rate(result['records'], s['min'])})")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "| input | reader | wall s | JVM CPU s per M records | Python CPU s per M records | cores busy |",
              "|---:|---|---:|---:|---:|---:|"]
    for result in results:
        for reader in readers:
            s = summary(result, reader)
            lines.append(f"| {result['bytes'] / GB:.2f} GB | {reader} | {s['wall']:.1f} | {s['jvm_per_m']:.2f} | "
                         f"{s['python_per_m']:.2f} | {s['cores']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="0.1,0.25,0.5,1", help="input sizes in GB (default 0.1,0.25,0.5,1)")
    parser.add_argument("--segment-mb", type=int, default=50, help="segment size in MB (default 50)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each reader per size (default 3)")
    parser.add_argument("--no-cluster", action="store_true", help="leave the standalone cluster out")
    parser.add_argument("--keep", type=Path, help="write the input here and keep it (default: a temp dir)")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    sizes = [int(float(s) * GB) for s in args.sizes.split(",")]
    warnings.filterwarnings("ignore", category=FutureWarning)

    root = args.keep or Path(tempfile.mkdtemp(prefix="kwire-bench-spark-"))
    cluster = None
    try:
        started = time.perf_counter()
        segments = write_segments(root / "segments", max(sizes), args.segment_mb * 1_000_000)
        print(f"wrote {len(segments)} segments in {time.perf_counter() - started:.0f} s under {root}", file=sys.stderr)
        inputs = [prefix_dir(root, segments, size, f"input-{i}") for i, size in enumerate(sizes)]
        results: list[dict[str, Any]] = [{"bytes": total, "runs": {r: [] for r in READERS}} for _, total in inputs]
        from kwire.spark.session import build_session

        masters = ["local[1]", "local[2]"]
        if not args.no_cluster:
            from tests.spark.standalone import StandaloneCluster

            cluster = StandaloneCluster(root / "cluster").start()
            masters.append(cluster.url)
        else:
            for result in results:
                del result["runs"]["cluster"]
        for master in masters:
            reader = "cluster" if master.startswith("spark://") else master
            spark = build_session(master, app_name="kwire-bench", config={"spark.executor.memory": "1g"})
            spark_run(spark, inputs[0][0])  # untimed: starts the executors' Python workers
            for round_ in range(args.rounds):
                for (path, total), result in zip(inputs, results):
                    result["runs"][reader].append(spark_run(spark, path))
                    runs, result["records"] = single_process(path)
                    result["runs"]["single process"].append(runs)
                    print(f"round {round_ + 1}: {reader} {total / GB:.2f} GB: {result['runs'][reader][-1]['wall']:.1f} s, "
                          f"single process {runs['wall']:.1f} s", file=sys.stderr)
            spark.stop()
    finally:
        if cluster is not None:
            cluster.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
