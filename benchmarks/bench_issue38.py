"""Issue 38's targets in one run: each kwire decode next to its peer, by the clock.

    python benchmarks/bench_issue38.py [--rounds 11] [--target 0.2] [--compiled]

Rows (the peer in brackets, the target after it):

- FetchResponse v12 decode, pure Python (kafka-python 3.0.12): >= 2x
- records into Arrow, none / lz4 / zstd: kwire's fastest record decoder built (the C flavour,
  else mypyc; ``bench_records.py``'s 1,000-record batch and touch) (aiokafka's C reader):
  >= 3x / 2x / 2x
- records into Arrow, uncompressed, absolute: >= 14M records/s
- with ``--compiled``, also ApiVersionsResponse v3 / MetadataResponse v12 / FetchResponse v12
  decode by the mypyc build of generated/ (kio 0.6.5): >= 1.6x each (the build takes minutes
  the first time; ``bench_codec.py`` describes it)

The workloads are ``bench_codec.py``'s and ``bench_records.py``'s, checked there against the peers
before anything is timed (bytes re-encoded, records compared with kafka-python's). Each round
times every row's two sides back to back (one run each of about ``--target`` seconds, calls
calibrated once, garbage collector paused), so load from elsewhere hits both alike; a row's
ratio is the median of its per-round ratios, shown with their range. Run it on an idle machine:
under load the ranges widen, and instruction counts (``fetch_decode_instructions.py``,
``record_decode_instructions.py``) are the steadier figure.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import bench_codec  # noqa: E402
import bench_records  # noqa: E402

from kwire.records import Codec, columns  # noqa: E402


@dataclass
class Row:
    label: str
    target: str
    mine: Callable[[], object]
    peer: Callable[[], object] | None  # None: an absolute figure (records/s of ``mine``)
    per_call: int = 1                  # records per call, for an absolute row
    goal: float = 0.0
    ratios: list[float] = field(default_factory=list)
    calls: tuple[int, int] = (0, 0)


def fetch_row() -> Row:
    _, _, spec, message = bench_codec.fetch_workload()
    data = message.encode(spec.version)
    mine = bench_codec.kwire_codec(spec.cls, spec.version, data)
    peer = bench_codec.kafka_python_codec(*spec.kafka_python, spec.version, data)
    return Row("FetchResponse v12 decode, pure, x kafka-python 3.0.12", ">= 2x", mine.decode, peer.decode, goal=2.0)


def compiled_rows() -> list[Row]:
    rows = []
    for build, name in ((bench_codec.api_versions_workload, "ApiVersionsResponse v3"),
                        (bench_codec.metadata_workload, "MetadataResponse v12"),
                        (bench_codec.fetch_workload, "FetchResponse v12")):
        _, _, spec, message = build()
        data = message.encode(spec.version)
        mine = bench_codec.kwire_codec(bench_codec.compiled_twin(spec.cls), spec.version, data)
        peer = bench_codec.kio_codec(*spec.kio, data)
        rows.append(Row(f"{name} decode, compiled, x kio 0.6.5", ">= 1.6x", mine.decode, peer.decode, goal=1.6))
    return rows


def record_rows() -> tuple[list[Row], str]:
    flavour = "kwire-arrow-c" if "kwire-arrow-c" in bench_records.DECODERS else "kwire-arrow"
    if flavour not in bench_records.DECODERS:
        raise SystemExit(f"no compiled record decoder: {columns.FALLBACK_REASON} (run: make native)")
    mine, peer = bench_records.DECODERS[flavour], bench_records.DECODERS["aiokafka-c"]
    rows = []
    for codec, goal in ((Codec.NONE, 3.0), (Codec.LZ4, 2.0), (Codec.ZSTD, 2.0)):
        wire = bench_records.make_batch(codec)
        bench_records.check_records(wire, codec)
        rows.append(Row(f"records into Arrow, {codec.name.lower()}, x aiokafka-c", f">= {goal:g}x",
                        lambda wire=wire: mine(wire), lambda wire=wire: peer(wire), goal=goal))
    wire = bench_records.make_batch(Codec.NONE)
    rows.append(Row("records into Arrow, none, records/s", ">= 14M/s", lambda: mine(wire), None,
                    per_call=bench_records.RECORDS, goal=14e6))
    return rows, flavour


def measure(rows: list[Row], rounds: int, target: float) -> None:
    for row in rows:
        row.calls = (bench_codec.calibrate(row.mine, target),
                     bench_codec.calibrate(row.peer, target) if row.peer else 0)
    for _ in range(rounds):
        for row in rows:
            mine = row.calls[0] / bench_codec.time_calls(row.mine, row.calls[0])
            if row.peer is None:
                row.ratios.append(mine * row.per_call)
            else:
                row.ratios.append(mine / (row.calls[1] / bench_codec.time_calls(row.peer, row.calls[1])))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="example: python benchmarks/bench_issue38.py --rounds 11 --compiled")
    parser.add_argument("--rounds", type=int, default=11, help="interleaved rounds (default 11)")
    parser.add_argument("--target", type=float, default=0.2, help="seconds per run of one side (default 0.2)")
    parser.add_argument("--compiled", action="store_true", help="also the compiled-vs-kio rows (builds mypyc)")
    args = parser.parse_args(argv)
    rows = compiled_rows() if args.compiled else []
    records, flavour = record_rows()
    rows += [fetch_row(), *records]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"issue 38 targets: median of {args.rounds} interleaved rounds, runs of ~{args.target}s; "
          f"record decoder {flavour}; load average {load:.1f}")
    measure(rows, args.rounds, args.target)
    width = max(len(row.label) for row in rows)
    print(f"\n{'workload':<{width}}  {'median':>9}  {'range over rounds':>19}  {'target':>9}")
    for row in rows:
        median = statistics.median(row.ratios)
        low, high = min(row.ratios), max(row.ratios)
        if row.peer is None:
            shown, spread = f"{median / 1e6:.2f}M", f"{low / 1e6:.2f}M-{high / 1e6:.2f}M"
        else:
            shown, spread = f"{median:.2f}x", f"{low:.2f}x-{high:.2f}x"
        verdict = "met" if median >= row.goal else "missed"
        print(f"{row.label:<{width}}  {shown:>9}  {spread:>19}  {row.target:>9}  {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
