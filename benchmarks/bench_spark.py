"""Bulk decode speed of Kafka log segments: one process, Spark ``local[1]`` and ``local[2]``.

Run: ``python benchmarks/bench_spark.py [--sizes 0.1,0.25,0.5,1] [--segment-mb 50] [--keep DIR]``

Writes a log directory of segments (several ``topic-N`` partitions, producer-sized batches of
~100 records, codecs none/lz4/zstd in turn) into a temporary directory, deleted at the end, and
reads growing prefixes of it (by whole segments) three ways, every column of every record
decoded each time:

- **single process**: ``kwire.spark.local_reader.iter_batches``, the exact work of the Spark
  tasks done in a row in this process (Arrow batches out, no JVM);
- **Spark local[1]** and **local[2]**: ``spark.read.format("kwire").load(dir)`` written to
  Spark's ``noop`` sink, so every row crosses into the JVM and nothing is written. Each session
  first runs one untimed job (Python worker start-up).

Output: records/s per size and reader, time relative to the smallest input, and the
local[2]/local[1] speed-up; ``--json`` also writes them as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
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


# --- readers --------------------------------------------------------------------------------------


def single_process(path: Path) -> tuple[float, int]:
    from kwire.spark.local_reader import iter_batches

    started = time.perf_counter()
    rows = sum(batch.num_rows for batch in iter_batches(str(path)))
    return time.perf_counter() - started, rows


def spark_run(spark, path: Path) -> float:
    started = time.perf_counter()
    frame = spark.read.format("kwire").option("minPartitions", spark.sparkContext.defaultParallelism).load(str(path))
    frame.write.format("noop").mode("overwrite").save()
    return time.perf_counter() - started


# --- report ---------------------------------------------------------------------------------------


def rate(rows: int, seconds: float) -> str:
    per_second = rows / seconds
    return f"{per_second / 1e6:.2f}M" if per_second >= 1e6 else f"{per_second / 1e3:.0f}k"


def table(results: list[dict]) -> str:
    readers = ["single process", "local[1]", "local[2]"]
    smallest = results[0]
    lines = [
        "| input | records | " + " | ".join(f"{r} records/s" for r in readers)
        + " | " + " | ".join(f"{r} time (x smallest)" for r in readers) + " | local[2] / local[1] |",
        "|---:|---:|" + "---:|" * (2 * len(readers) + 1),
    ]
    for result in results:
        cells = [f"{result['bytes'] / GB:.2f} GB", f"{result['records']:,}"]
        cells += [f"{rate(result['records'], result['seconds'][r])} ({result['seconds'][r]:.1f} s)" for r in readers]
        cells += [f"{result['seconds'][r] / smallest['seconds'][r]:.1f}x" for r in readers]
        cells.append(f"{result['seconds']['local[1]'] / result['seconds']['local[2]']:.2f}x")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="0.1,0.25,0.5,1", help="input sizes in GB (default 0.1,0.25,0.5,1)")
    parser.add_argument("--segment-mb", type=int, default=50, help="segment size in MB (default 50)")
    parser.add_argument("--keep", type=Path, help="write the input here and keep it (default: a temp dir)")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    sizes = [int(float(s) * GB) for s in args.sizes.split(",")]
    warnings.filterwarnings("ignore", category=FutureWarning)

    root = args.keep or Path(tempfile.mkdtemp(prefix="kwire-bench-spark-"))
    try:
        started = time.perf_counter()
        segments = write_segments(root / "segments", max(sizes), args.segment_mb * 1_000_000)
        print(f"wrote {len(segments)} segments in {time.perf_counter() - started:.0f} s under {root}", file=sys.stderr)
        inputs = [prefix_dir(root, segments, size, f"input-{i}") for i, size in enumerate(sizes)]
        results: list[dict[str, Any]] = [{"bytes": total, "seconds": {}} for _, total in inputs]
        for (path, total), result in zip(inputs, results):
            result["seconds"]["single process"], result["records"] = single_process(path)
            print(f"single process {total / GB:.2f} GB: {result['seconds']['single process']:.1f} s", file=sys.stderr)
        from kwire.spark.session import build_session

        for master in ("local[1]", "local[2]"):
            spark = build_session(master, app_name="kwire-bench")
            spark_run(spark, inputs[0][0])  # untimed: starts the Python workers
            for (path, total), result in zip(inputs, results):
                result["seconds"][master] = spark_run(spark, path)
                print(f"{master} {total / GB:.2f} GB: {result['seconds'][master]:.1f} s", file=sys.stderr)
            spark.stop()
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
