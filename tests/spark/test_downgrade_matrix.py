"""``kwire metadata downgrade-matrix --spark``: one task per image gives the local report."""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark is made of it: without it this module skips (fails under CI)

from kwire.metadata.matrix import downgrade_matrix
from kwire.spark.downgrade import spark_matrix
from tests.paths import KRAFT_361, KRAFT_390


def test_spark_matrix_equals_the_local_one(spark):
    paths = [KRAFT_361.resolve(), KRAFT_390.resolve()]
    assert spark_matrix(spark, paths) == downgrade_matrix(paths)
