"""Record batch decode speed: kwire against aiokafka (C extension and pure Python) and kafka-python.

Run: ``python benchmarks/bench_records.py [--repeat 7] [--min-time 0.2] [--codecs none,gzip]``

Every implementation reads the same 1,000-record batch per codec (written by aiokafka's C
builder), checks its CRC, and touches every key and value. Each measurement repeats the decode
for at least ``--min-time`` seconds, the decoders taking turns; the table shows the median of
``--repeat`` measurements in records per second, the spread (min..max as % of the median), and
the median ratios (measured round by round) to kafka-python and to aiokafka's C reader.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiokafka.record import _crecords as aiokafka_c  # noqa: E402
from aiokafka.record import default_records as aiokafka_py  # noqa: E402
from kafka.record.default_records import DefaultRecordBatch as KafkaPythonBatch  # noqa: E402

from kwire.records import Codec, decode_batch  # noqa: E402

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


DECODERS = {
    "kwire": kwire_decode,
    "aiokafka-c": reader_decode(aiokafka_c.DefaultRecordBatch),
    "aiokafka-py": reader_decode(aiokafka_py._DefaultRecordBatchPy),
    "kafka-python": reader_decode(KafkaPythonBatch),
}


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.2)
    parser.add_argument("--codecs", default=",".join(c.name.lower() for c in Codec))
    args = parser.parse_args(argv)
    codecs = [Codec[name.strip().upper()] for name in args.codecs.split(",")]

    print(f"{RECORDS}-record batches, median of {args.repeat} runs of >= {args.min_time}s, CRC checked, "
          "every key and value touched\n")
    header = f"{'codec':<7} {'decoder':<13} {'records/s':>12} {'spread':>8} {'x kafka-python':>15} {'x aiokafka-c':>13}"
    print(header)
    print("-" * len(header))
    for codec in codecs:
        wire = make_batch(codec)
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
            vs_kp = statistics.median(a / b for a, b in zip(runs[name], runs["kafka-python"]))
            vs_c = statistics.median(a / b for a, b in zip(runs[name], runs["aiokafka-c"]))
            print(
                f"{codec.name.lower():<7} {name:<13} {median:>12,.0f} {spread:>7.1f}% "
                f"{vs_kp:>14.2f}x {vs_c:>12.3f}x"
            )
        print()


if __name__ == "__main__":
    main()
