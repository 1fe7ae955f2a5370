"""``kwire metadata downgrade-matrix --spark``: one Spark task per image.

The row of each image is :func:`kwire.metadata.matrix.image_row`, the same function the local run
calls; only where it runs differs, so both give the same report. Paths are made absolute so that
executors find them (they must see the same files: a local master, or a shared file system).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kwire.spark.fuzz import map_units_on_spark


def spark_matrix(spark, paths: Sequence[str | os.PathLike], *, until: int | None = None,
                 release: str | None = None, use_snapshots: bool = True) -> dict[str, Any]:
    from kwire.metadata.matrix import downgrade_matrix

    absolute = [str(Path(p).resolve()) for p in paths]

    def on_spark(fn, units):
        return map_units_on_spark(spark, fn, units)

    return downgrade_matrix(absolute, until=until, release=release, use_snapshots=use_snapshots, map_rows=on_spark)


def run_spark_matrix(paths: Sequence[str | os.PathLike], *, until: int | None = None, release: str | None = None,
                     master: str | None = None, show_progress: bool = True,
                     show_jvm_output: bool = True, use_snapshots: bool = True) -> dict[str, Any]:
    """Start (or reuse) the session and run :func:`spark_matrix`, with a progress line on stderr."""
    from kwire.spark.progress import JobProgress
    from kwire.spark.session import build_session

    spark = build_session(master, app_name="kwire metadata downgrade-matrix", show_jvm_output=show_jvm_output)
    if not show_progress:
        return spark_matrix(spark, paths, until=until, release=release, use_snapshots=use_snapshots)
    with JobProgress(spark, "downgrade-matrix"):
        return spark_matrix(spark, paths, until=until, release=release, use_snapshots=use_snapshots)
