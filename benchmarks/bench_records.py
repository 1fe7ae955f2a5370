"""Record batch decode speed: kwire against aiokafka (C extension and pure Python) and kafka-python.

Run: ``python benchmarks/bench_records.py [--repeat 7] [--min-time 0.2] [--codecs none,lz4,zstd]``

Every implementation reads the same 1,000-record batch per codec (written by aiokafka's C
builder), checks its CRC, and touches every key and value. kwire reads it two ways: into Arrow
columns (``kwire-arrow-c``: the C flavour, ``kwire.records._column_decoder_c``; ``kwire-arrow``:
the mypyc build of :mod:`kwire.records.column_decoder`; ``kwire-arrow-py``: the same source as
plain Python; all end in the offset, timestamp, key,
value and headers arrays of the data source, whose key and value lengths are summed by Arrow),
and into a Python object per record (``kwire-objects``, ``RecordBatch.records``). Before timing,
every decoder's records are checked against kafka-python's.

Each measurement repeats the decode for at least ``--min-time`` seconds, the decoders taking
turns; the table shows the median of ``--repeat`` measurements in records per second, the spread
(min..max as % of the median), and the median ratios (measured round by round) to kafka-python
and to aiokafka's C reader, with the range of that last ratio over the rounds. The compiled
builds must exist (``make native``); without one its row is left out and the reason printed.

``--instructions`` counts CPU instructions instead (valgrind's callgrind; deterministic, so a
busy machine does not move it): each decoder decodes the batch ``--loops`` times in a process of
its own, and the instructions of a run without those loops are taken away. Slow: about a minute
per decoder and codec.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyarrow.compute as pc  # noqa: E402
from aiokafka.record import _crecords as aiokafka_c  # noqa: E402
from aiokafka.record import default_records as aiokafka_py  # noqa: E402
from kafka.record.default_records import DefaultRecordBatch as KafkaPythonBatch  # noqa: E402

from kwire.arrow.record_arrays import record_arrays  # noqa: E402
from kwire.records import Codec, column_decoder, decode_batch  # noqa: E402
from kwire.records.columns import load_c, load_compiled  # noqa: E402

RECORDS = 1000
BASE_TS = 1_700_000_000_000


def make_batch(codec: Codec) -> bytes:
    builder = aiokafka_c.DefaultRecordBatchBuilder(2, int(codec), 0, -1, -1, -1, 1 << 30)
    for i in range(RECORDS):
        value = b'{"id":%d,"user":"user-%d","event":"page_view","path":"/items/%d","ms":%d}' % (
            i, i % 97, i * 7, i * 13,
        )
        builder.append(i, BASE_TS + i, b"key-%06d" % i, value, [])
    return bytes(builder.build())


def kwire_decode(wire: bytes) -> int:
    touched = 0
    for record in decode_batch(wire).records:
        touched += len(record.key) + len(record.value)
    return touched


def arrow_arrays(builder_class, wire: bytes) -> dict:
    builder = builder_class()
    decode_batch(wire).add_columns_to(builder)  # decode_batch checks the CRC
    return record_arrays(builder.finish())


def arrow_decode(builder_class):
    def decode(wire: bytes) -> int:
        arrays = arrow_arrays(builder_class, wire)
        return sum(pc.sum(pc.binary_length(arrays[name])).as_py() for name in ("key", "value"))

    return decode


def arrow_rows(builder_class, wire: bytes) -> list[tuple]:
    arrays = arrow_arrays(builder_class, wire)
    headers = [[(h["key"], h["value"]) for h in row] for row in arrays["headers"].to_pylist()]
    columns = [arrays[name].to_pylist() for name in ("offset", "timestamp", "key", "value")]
    return list(zip(*columns, headers, strict=True))


def object_rows(records) -> list[tuple]:
    return [(r.offset, r.timestamp, r.key, r.value, list(r.headers)) for r in records]


def reader_decode(batch_cls):
    def decode(wire: bytes) -> int:
        batch = batch_cls(wire)
        if not batch.validate_crc():
            raise AssertionError("CRC")
        touched = 0
        for record in batch:
            touched += len(record.key) + len(record.value)
        return touched

    return decode


COMPILED, NOT_COMPILED = load_compiled()
C_FLAVOUR, NOT_C = load_c()
DECODERS = {
    "kwire-arrow-c": arrow_decode(C_FLAVOUR.ColumnBuilder) if C_FLAVOUR is not None else None,
    "kwire-arrow": arrow_decode(COMPILED.ColumnBuilder) if COMPILED is not None else None,
    "kwire-arrow-py": arrow_decode(column_decoder.ColumnBuilder),
    "kwire-objects": kwire_decode,
    "aiokafka-c": reader_decode(aiokafka_c.DefaultRecordBatch),
    "aiokafka-py": reader_decode(aiokafka_py._DefaultRecordBatchPy),
    "kafka-python": reader_decode(KafkaPythonBatch),
}
if COMPILED is None:
    del DECODERS["kwire-arrow"]
if C_FLAVOUR is None:
    del DECODERS["kwire-arrow-c"]


def check_records(wire: bytes, codec: Codec) -> None:
    """Every decoder's records (Arrow ones row by row) equal kafka-python's."""
    expected = object_rows(KafkaPythonBatch(wire))
    found = {
        "kwire-arrow-py": arrow_rows(column_decoder.ColumnBuilder, wire),
        "kwire-objects": object_rows(decode_batch(wire).records),
        "aiokafka-c": object_rows(aiokafka_c.DefaultRecordBatch(wire)),
        "aiokafka-py": object_rows(aiokafka_py._DefaultRecordBatchPy(wire)),
    }
    if COMPILED is not None:
        found["kwire-arrow"] = arrow_rows(COMPILED.ColumnBuilder, wire)
    if C_FLAVOUR is not None:
        found["kwire-arrow-c"] = arrow_rows(C_FLAVOUR.ColumnBuilder, wire)
    for name, rows in found.items():
        if rows != expected:
            raise SystemExit(f"{name} disagrees with kafka-python on the {codec.name} batch")


def measure(decode, wire: bytes, min_time: float) -> float:
    """Records per second over one run of at least ``min_time`` seconds."""
    loops = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < min_time:
        decode(wire)
        loops += 1
        elapsed = time.perf_counter() - start
    return loops * RECORDS / elapsed


def instructions(name: str, codec: Codec, loops: int) -> int:
    """Instructions callgrind counts for a process that decodes the batch ``loops`` times."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
               "--run-only", name, "--codecs", codec.name.lower(), "--loops", str(loops)]
    proc = subprocess.run(command, env={**os.environ, "PYTHONHASHSEED": "0"}, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run of {name} failed:\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def instruction_table(codecs: list[Codec], loops: int) -> None:
    print(f"CPU instructions per record (callgrind; {loops} decodes of a {RECORDS}-record batch minus none)\n")
    header = f"{'codec':<7} {'decoder':<15} {'instr/record':>13} {'x aiokafka-c':>13}"
    print(header)
    print("-" * len(header))
    for codec in codecs:
        per_record = {}
        for name in DECODERS:
            extra = instructions(name, codec, loops) - instructions(name, codec, 0)
            per_record[name] = extra / (loops * RECORDS)
        for name, count in per_record.items():
            print(f"{codec.name.lower():<7} {name:<15} {count:>13,.0f} {per_record['aiokafka-c'] / count:>12.3f}x")
        print()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.2)
    parser.add_argument("--codecs", default="none,lz4,zstd", help="any of none,gzip,snappy,lz4,zstd")
    parser.add_argument("--instructions", action="store_true", help="count instructions with callgrind instead")
    parser.add_argument("--loops", type=int, default=10, help="decodes per callgrind run")
    parser.add_argument("--run-only", metavar="DECODER", help=argparse.SUPPRESS)  # one callgrind run
    args = parser.parse_args(argv)
    codecs = [Codec[name.strip().upper()] for name in args.codecs.split(",")]
    if args.run_only:
        wire = make_batch(codecs[0])
        decode = DECODERS[args.run_only]
        decode(wire)  # warm: lazy imports, caches
        for _ in range(args.loops):
            decode(wire)
        return
    if args.instructions:
        instruction_table(codecs, args.loops)
        return

    print(f"{RECORDS}-record batches, median of {args.repeat} runs of >= {args.min_time}s, CRC checked, "
          "every key and value touched")
    if COMPILED is None:
        print(f"kwire-arrow left out: the mypyc build is {NOT_COMPILED}")
    if C_FLAVOUR is None:
        print(f"kwire-arrow-c left out: the C flavour is {NOT_C}")
    print()
    header = (f"{'codec':<7} {'decoder':<15} {'records/s':>12} {'spread':>8} {'x kafka-python':>15} "
              f"{'x aiokafka-c':>13} {'(range)':>13}")
    print(header)
    print("-" * len(header))
    for codec in codecs:
        wire = make_batch(codec)
        check_records(wire, codec)
        expected = DECODERS["kafka-python"](wire)
        for name, decode in DECODERS.items():
            if decode(wire) != expected:
                raise SystemExit(f"{name} disagrees with kafka-python on the {codec.name} batch")
        # Round-robin, so that load from elsewhere hits every decoder alike; ratios are taken
        # within each round, then the median over rounds.
        runs: dict[str, list[float]] = {name: [] for name in DECODERS}
        for _ in range(args.repeat):
            for name, decode in DECODERS.items():
                runs[name].append(measure(decode, wire, args.min_time))
        for name in DECODERS:
            median = statistics.median(runs[name])
            spread = (max(runs[name]) - min(runs[name])) / median * 100
            vs_kp = statistics.median(a / b for a, b in zip(runs[name], runs["kafka-python"], strict=True))
            ratios = [a / b for a, b in zip(runs[name], runs["aiokafka-c"], strict=True)]
            print(
                f"{codec.name.lower():<7} {name:<15} {median:>12,.0f} {spread:>7.1f}% "
                f"{vs_kp:>14.2f}x {statistics.median(ratios):>12.3f}x {min(ratios):>6.2f}-{max(ratios):<6.2f}"
            )
        print()


if __name__ == "__main__":
    main()
