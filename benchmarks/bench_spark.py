"""Bulk decode speed of Kafka log segments: one process, Spark ``local[1]``, ``local[2]`` and a
standalone cluster of two workers, with the compiled record decoder and (on the cluster) without.

Run: ``python benchmarks/bench_spark.py [--sizes 0.1,0.25] [--segment-mb 50] [--keep DIR]
[--rounds 5] [--no-cluster] [--json spark.json]``

Writes a log directory of segments (several ``topic-N`` partitions, producer-sized batches of
~100 records, codecs none/lz4/zstd in turn) into a temporary directory, deleted at the end, and
reads growing prefixes of it (by whole segments), every column of every record decoded each time:

- **single process**: ``kwire.arrow.reader.iter_record_batches``, the exact work of the Spark
  tasks done in a row in this process (Arrow batches out, no JVM);
- **local[1]** and **local[2]**: ``spark.read.format("kwire").load(dir)`` written to Spark's
  ``noop`` sink, so every row crosses into the JVM and nothing is written;
- **cluster**: the same on a Spark standalone cluster on this machine (a master and two workers,
  from the Spark in the ``pyspark`` wheel; ``tests/spark/standalone.py``), the application given
  one executor of one core on each worker, kwire shipped as ``build_session`` ships it (archives,
  the compiled decoder included);
- **cluster, plain Python**: the same with ``KWIRE_RECORD_DECODER=python`` on the executors, as
  every executor ran before kwire was shipped as archives (a zip on ``sys.path`` cannot load the
  compiled decoder).

Each Spark reader is a driver process of its own (this script, ``--serve MASTER``), started once
and kept, with one untimed read first (Python workers start, JIT warms up); it reports which record
decoder its executors load. The readers then take turns round by round, the order rotated each
round, so that load from elsewhere on a shared machine falls on all alike. For every run the CPU
time of the reader's own processes is read from /proc before and after: its driver, the JVMs and
Python workers below it and, on the cluster, its executors (JVMs whose command line names its
application) with their Python workers. CPU seconds are steady where wall times are not.

Output: records/s per size and reader (median of the rounds, min-max), and for each reader the
CPU time per record in the JVMs and in Python (range over the rounds) and the cores kept busy;
``--json`` also writes every run, with the load average when it started.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kwire.records import Codec, RecordBatchBuilder  # noqa: E402
from tests.processes import end_process  # noqa: E402

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


def _process_table() -> dict[int, tuple[int, str, float]]:
    """Every process: pid -> (parent pid, ``jvm`` or ``python``, CPU seconds so far)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime
        table[int(entry.name)] = (int(fields[1]), "jvm" if name == "java" else "python", cpu)
    return table


def _executors_of(app_id: str, table: dict[int, tuple[int, str, float]]) -> set[int]:
    """The executor JVMs of one application (their command line names it)."""
    found = set()
    for pid, (_parent, kind, _cpu) in table.items():
        if kind == "jvm":
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if app_id.encode() in command:
                found.add(pid)
    return found


def _below(roots: set[int], table: dict[int, tuple[int, str, float]]) -> set[int]:
    """``roots`` and every process below them."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _kind, _cpu) in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), [pid for pid in roots if pid in table]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


class CpuMeter:
    """CPU seconds spent between ``start`` and ``stop`` by one reader's processes: ``driver_pid``
    and what runs below it, plus the executors of ``app_id`` and what runs below them (processes
    that started and ended in between are not seen); for this process (the single-process
    reader), only itself."""

    def __init__(self, driver_pid: int, app_id: str | None = None) -> None:
        self.driver_pid = driver_pid
        self.app_id = app_id

    def _sample(self) -> dict[int, tuple[str, float]]:
        table = _process_table()
        if self.driver_pid == os.getpid():  # the single-process reader: not the readers' drivers below
            return {self.driver_pid: (table[self.driver_pid][1], table[self.driver_pid][2])}
        roots = {self.driver_pid} | (_executors_of(self.app_id, table) if self.app_id else set())
        return {pid: (table[pid][1], table[pid][2]) for pid in _below(roots, table)}

    def start(self) -> None:
        self.before = self._sample()
        self.load = os.getloadavg()[0]
        self.wall = time.perf_counter()

    def stop(self) -> dict[str, float]:
        wall = time.perf_counter() - self.wall
        after = self._sample()
        spent = {"jvm": 0.0, "python": 0.0, "driver": 0.0}
        for pid, (kind, cpu) in after.items():
            used = cpu - self.before.get(pid, (kind, 0.0))[1]
            spent["driver" if pid == self.driver_pid else kind] += used
        spent["wall"] = wall
        spent["load"] = self.load
        return spent


# --- readers --------------------------------------------------------------------------------------


def single_process(path: Path) -> tuple[dict[str, float], int]:
    from kwire.arrow.reader import iter_record_batches

    meter = CpuMeter(os.getpid())
    meter.start()
    rows = sum(batch.num_rows for batch in iter_record_batches(str(path)))
    return meter.stop(), rows


def spark_read(spark, path: Path) -> None:
    frame = spark.read.format("kwire").option("minPartitions", spark.sparkContext.defaultParallelism).load(str(path))
    frame.write.format("noop").mode("overwrite").save()


def serve(master: str, conf: list[str], warm_up: Path) -> int:
    """``--serve``: a driver on ``master`` that reads paths on stdin and answers each with a line
    (JSON) once it has read that path; the first line says it is ready."""
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything Spark prints goes to stderr, never into the answers
    from kwire.spark.session import build_session
    from kwire.spark.shipping import executor_report

    config = {"spark.executor.memory": "1g", **dict(item.split("=", 1) for item in conf)}
    spark = build_session(master, app_name="kwire-bench", config=config)
    decoders = [task["record_decoder"] for task in executor_report(spark)]
    spark_read(spark, warm_up)
    channel.write(json.dumps({"app_id": spark.sparkContext.applicationId, "decoders": decoders}) + "\n")
    channel.flush()
    for line in sys.stdin:
        spark_read(spark, Path(json.loads(line)))
        channel.write("{}\n")
        channel.flush()
    spark.stop()
    return 0


class SparkReader:
    """One ``--serve`` driver process, started now and kept until ``close``."""

    def __init__(self, name: str, master: str, conf: list[str], warm_up: Path, log: Path) -> None:
        self.name = name
        self.log = open(log, "wb")
        command = [sys.executable, __file__, "--serve", master, "--warm-up", str(warm_up)]
        for item in conf:
            command += ["--conf", item]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                        text=True)

    def ready(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name}: the driver exited ({self.process.wait()}); see {self.log.name}")
        self.info = json.loads(line)
        return self.info

    def run(self, path: Path) -> dict[str, float]:
        assert self.process.stdin is not None and self.process.stdout is not None
        meter = CpuMeter(self.process.pid, self.info["app_id"] if self.name.startswith("cluster") else None)
        meter.start()
        self.process.stdin.write(json.dumps(str(path)) + "\n")
        self.process.stdin.flush()
        if not self.process.stdout.readline():
            raise RuntimeError(f"{self.name}: the driver exited; see {self.log.name}")
        return meter.stop()

    def close(self) -> None:
        end_process(self.process, 120)  # stdin closed: the driver stops its session and exits
        self.log.close()


# --- report ---------------------------------------------------------------------------------------

SINGLE = "single process"
CLUSTER_PYTHON = "cluster, plain Python"
READERS = [SINGLE, "local[1]", "local[2]", "cluster", CLUSTER_PYTHON]


def rate(rows: int, seconds: float) -> str:
    per_second = rows / seconds
    return f"{per_second / 1e6:.2f}M" if per_second >= 1e6 else f"{per_second / 1e3:.0f}k"


def micros(runs: list[dict], records: int, *kinds: str) -> str:
    values = sorted(sum(run[kind] for kind in kinds) / records * 1e6 for run in runs)
    low, high = values[0], values[-1]
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}"


def table(results: list[dict]) -> str:
    readers = [r for r in READERS if r in results[0]["runs"]]
    lines = [
        "| input | records | " + " | ".join(f"{r}: records/s (min-max)" for r in readers) + " |",
        "|---:|---:|" + "---:|" * len(readers),
    ]
    for result in results:
        cells = [f"{result['bytes'] / GB:.2f} GB", f"{result['records']:,}"]
        for reader in readers:
            walls = [run["wall"] for run in result["runs"][reader]]
            cells.append(f"{rate(result['records'], statistics.median(walls))} ({rate(result['records'], max(walls))}-"
                         f"{rate(result['records'], min(walls))})")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "CPU per record, range over the rounds:", "",
              "| input | reader | Python µs (driver + workers) | JVM µs | total µs | cores busy (median) |",
              "|---:|---|---:|---:|---:|---:|"]
    for result in results:
        for reader in readers:
            runs, records = result["runs"][reader], result["records"]
            cores = statistics.median((r["jvm"] + r["python"] + r["driver"]) / r["wall"] for r in runs)
            lines.append(f"| {result['bytes'] / GB:.2f} GB | {reader} | {micros(runs, records, 'python', 'driver')} | "
                         f"{micros(runs, records, 'jvm')} | {micros(runs, records, 'python', 'driver', 'jvm')} | "
                         f"{cores:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="0.1,0.25", help="input sizes in GB (default 0.1,0.25)")
    parser.add_argument("--segment-mb", type=int, default=50, help="segment size in MB (default 50)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each reader per size (default 5)")
    parser.add_argument("--no-cluster", action="store_true", help="leave the standalone cluster out")
    parser.add_argument("--keep", type=Path, help="write the input here and keep it (default: a temp dir)")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    parser.add_argument("--serve", metavar="MASTER", help=argparse.SUPPRESS)  # a reader's driver process
    parser.add_argument("--warm-up", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--conf", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=FutureWarning)
    if args.serve:
        return serve(args.serve, args.conf, args.warm_up)
    sizes = [int(float(s) * GB) for s in args.sizes.split(",")]

    root = args.keep or Path(tempfile.mkdtemp(prefix="kwire-bench-spark-"))
    cluster = None
    readers: list[SparkReader] = []
    try:
        started = time.perf_counter()
        segments = write_segments(root / "segments", max(sizes), args.segment_mb * 1_000_000)
        print(f"wrote {len(segments)} segments in {time.perf_counter() - started:.0f} s under {root}", file=sys.stderr)
        inputs = [prefix_dir(root, segments, size, f"input-{i}") for i, size in enumerate(sizes)]
        warm_up, _ = prefix_dir(root, segments, 1, "warm-up")  # one segment
        masters = {"local[1]": ("local[1]", []), "local[2]": ("local[2]", [])}
        if not args.no_cluster:
            from tests.spark.standalone import StandaloneCluster

            # two workers of two cores; each application gets one one-core executor on each
            cluster = StandaloneCluster(root / "cluster", cores=2, memory="2g").start()
            one_per_worker = ["spark.cores.max=2", "spark.executor.cores=1"]
            masters["cluster"] = (cluster.url, one_per_worker)
            masters[CLUSTER_PYTHON] = (cluster.url, [*one_per_worker, "spark.executorEnv.KWIRE_RECORD_DECODER=python"])
        for name, (master, conf) in masters.items():
            readers.append(SparkReader(name, master, conf, warm_up, root / f"{name}.log"))
        from kwire.records import columns

        decoders = {SINGLE: [columns.IMPLEMENTATION_NAME]}
        for reader in readers:
            decoders[reader.name] = reader.ready()["decoders"]
        print("record decoder: " + "; ".join(f"{name}: {', '.join(sorted(set(d)))}" for name, d in decoders.items()),
              file=sys.stderr)
        names = [SINGLE, *masters]
        results: list[dict[str, Any]] = [{"bytes": total, "decoders": decoders, "runs": {r: [] for r in names}}
                                         for _, total in inputs]
        by_name = {reader.name: reader for reader in readers}
        for round_ in range(args.rounds):
            order = names[round_ % len(names):] + names[:round_ % len(names)]
            for (path, total), result in zip(inputs, results, strict=True):
                for name in order:
                    if name == SINGLE:
                        run, result["records"] = single_process(path)
                    else:
                        run = by_name[name].run(path)
                    result["runs"][name].append(run)
                print(f"round {round_ + 1}, {total / GB:.2f} GB: " + ", ".join(
                    f"{name} {result['runs'][name][-1]['wall']:.1f} s" for name in names)
                    + f" (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
    finally:
        for reader in readers:
            reader.close()
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
