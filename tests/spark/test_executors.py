"""``executor_report``: what the Python workers of a Spark application import, asked of the local
session's workers (test_cluster.py asks a standalone cluster's executors)."""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark is made of it: without it this module skips (fails under CI)

import os
import platform
import socket
import sys

import kwire
import kwire.generated
from kwire.records import columns
from kwire.spark.shipping import executor_report


def test_the_local_workers_import_this_kwire_and_say_what_runs_there(spark):
    # the workers import mypy_extensions first (Python workers are reused from task to task)
    spark.sparkContext.parallelize(range(2), 2).foreach(lambda _: __import__("mypy_extensions"))
    import mypy_extensions

    rows = executor_report(spark, tasks=2)
    assert len(rows) == 2
    for row in rows:
        assert set(row) == {"host", "directory", "python", "kwire", "generated", "record_decoder",
                            "record_decoder_file", "fallback_reason", "librt", "mypy_extensions"}
        assert row["host"] == socket.gethostname()
        version, _, executable = row["python"].partition(" (")
        assert version == platform.python_version() and os.path.samefile(executable.rstrip(")"), sys.executable)
        assert (row["kwire"], row["generated"]) == (kwire.__file__, kwire.generated.__file__)
        assert (row["record_decoder"], row["record_decoder_file"], row["fallback_reason"]) == (
            columns.IMPLEMENTATION_NAME, columns.IMPLEMENTATION.__file__, columns.FALLBACK_REASON)
        assert row["mypy_extensions"] == mypy_extensions.__file__
