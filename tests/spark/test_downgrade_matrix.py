"""``kwire metadata downgrade-matrix --spark``: one task per image gives the local report."""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark is made of it: without it this module skips (fails under CI)

import json

from kwire.cli.main import main as kwire_main
from kwire.metadata.matrix import downgrade_matrix
from kwire.spark.downgrade import spark_matrix
from tests.paths import KRAFT_361, KRAFT_390


def test_spark_matrix_equals_the_local_one(spark):
    paths = [KRAFT_361.resolve(), KRAFT_390.resolve()]
    assert spark_matrix(spark, paths) == downgrade_matrix(paths)


def test_the_command_on_spark_prints_the_local_report_for_a_release(spark, capsys):
    """Through ``kwire metadata downgrade-matrix --spark``, its progress line on (not -q): --release and
    the snapshots (the default; --from-log gives another report) reach the tasks."""
    paths = [str(KRAFT_361.resolve()), str(KRAFT_390.resolve())]
    for_release = downgrade_matrix(paths, release="3.7.0")
    assert for_release not in (downgrade_matrix(paths), downgrade_matrix(paths, release="3.7.0", use_snapshots=False))
    assert kwire_main(["metadata", "downgrade-matrix", *paths, "--release", "3.7.0", "--json"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert kwire_main(["metadata", "downgrade-matrix", *paths, "--release", "3.7.0", "--json", "--spark"]) == 0
    assert json.loads(capsys.readouterr().out) == local == for_release
