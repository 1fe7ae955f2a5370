"""``kwire fuzz --spark``: the cross-version sweep's work units run as Spark tasks.

The local sweep (:func:`kwire.fuzz.sweep.sweep`) cuts the work into pure units (message x from
version x case range, :func:`kwire.fuzz.sweep.work_units`); here each unit is one Spark task and
the driver merges and checks the results exactly as the local run does, so the same seed gives
the same report. :func:`results_table` flattens the result into one row per cell for Parquet.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from kwire.wire.files import atomic_output

CELL_SCHEMA = pa.schema(
    [
        pa.field("message", pa.string()),
        pa.field("from_version", pa.int16()),
        pa.field("to_version", pa.int16()),
        pa.field("seed", pa.int64()),
        pa.field("start", pa.int64()),
        pa.field("cases", pa.int64()),
        pa.field("outcome", pa.string()),
        pa.field("lossless", pa.int64()),
        pa.field("lossy", pa.int64()),
        pa.field("refused", pa.int64()),
        pa.field("failed", pa.int64()),
        pa.field("lost_fields", pa.map_(pa.string(), pa.int64())),
        pa.field("refusals", pa.map_(pa.string(), pa.int64())),
        pa.field("contradictions", pa.list_(pa.string())),
        pa.field("unshown_fields", pa.list_(pa.string())),
    ]
)


def map_units_on_spark(spark, fn: Callable[[tuple], Any], units: Sequence[tuple]) -> Iterator[Any]:
    """``fn`` over ``units``, one Spark task per unit; results in unit order."""
    if not units:
        return iter(())
    rdd = spark.sparkContext.parallelize(list(units), len(units))
    return iter(rdd.map(fn).collect())


def spark_sweep(spark, messages: Sequence[str], **options: Any) -> dict[str, Any]:
    """:func:`kwire.fuzz.sweep.sweep` with its work units on ``spark`` (options as sweep's)."""
    from kwire.fuzz.sweep import sweep

    options.pop("jobs", None)
    return sweep(messages, map_units=functools.partial(map_units_on_spark, spark), **options)


def results_table(result: dict[str, Any]) -> pa.Table:
    """One row per (message, from, to) cell of a sweep result."""
    rows: list[dict[str, Any]] = []
    for name, message in result["messages"].items():
        for cell in message["cells"].values():
            observed = cell["observed"]
            rows.append({
                "message": name, "from_version": observed["from"], "to_version": observed["to"],
                "seed": observed["seed"], "start": observed["start"], "cases": observed["count"],
                "outcome": cell["outcome"],
                **{k: observed[k] for k in ("lossless", "lossy", "refused", "failed")},
                "lost_fields": list(observed["lost_fields"].items()),
                "refusals": list(observed["refusals"].items()),
                "contradictions": list(cell["contradictions"]),
                "unshown_fields": sorted(path for path, demo in cell["directed"].items() if not demo["shown"]),
            })
    return pa.Table.from_pylist(rows, schema=CELL_SCHEMA)


def write_results_parquet(result: dict[str, Any], path: Path, *, force: bool = False) -> Path:
    """One row per cell as a Parquet file, written atomically; an existing one only with ``force``."""
    import pyarrow.parquet as pq

    with atomic_output(path, force=force) as out:
        pq.write_table(results_table(result), out)
    return path


def run_spark_sweep(messages: Sequence[str], *, master: str | None = None, show_progress: bool = True,
                    show_jvm_output: bool = True, **options: Any) -> dict[str, Any]:
    """Start (or reuse) the session and run :func:`spark_sweep`, with a progress line on stderr."""
    from kwire.spark.progress import JobProgress
    from kwire.spark.session import build_session
    from kwire.spark.shipping import SHIPPED_PACKAGES, ship_packages, shipping_enabled

    spark = build_session(master, app_name="kwire fuzz", show_jvm_output=show_jvm_output)
    package = options.get("package", "kwire.generated")
    if package not in SHIPPED_PACKAGES and shipping_enabled(spark):  # another generated package
        ship_packages(spark, [package])
    if not show_progress:
        return spark_sweep(spark, messages, **options)
    with JobProgress(spark, "fuzz"):
        return spark_sweep(spark, messages, **options)
