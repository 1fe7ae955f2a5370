"""``kwire fuzz --spark``: the sweep's work units as Spark tasks give the local sweep's result."""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark is made of it: without it this module skips (fails under CI)

import json

from kwire.cli.main import main as kwire_main
from kwire.fuzz.sweep import sweep, work_units
from kwire.spark.fuzz import results_table, spark_sweep
from tests.packages import pq

# Small messages with several versions, flexible and not, with tagged fields and lossy conversions.
MESSAGES = ["ApiVersionsRequest", "OffsetCommitValue", "LeaveGroupResponse"]


def test_spark_sweep_equals_the_local_sweep(spark):
    options = {"seed": 11, "start": 5, "cases": 300}  # 300 cases: two work units per version
    assert len(work_units(MESSAGES, "kwire.generated", 11, 5, 300, False)) > len(MESSAGES) * 2
    local = sweep(MESSAGES, **options)
    context = spark.sparkContext
    context.setJobGroup("kwire-test-sweep", "the sweep's units")
    try:
        on_spark = spark_sweep(spark, MESSAGES, **options)
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    assert on_spark == local
    # and the units ran as Spark's tasks, one each (Spark's own status tracker says so), not here
    tracker = context.statusTracker()
    jobs = [tracker.getJobInfo(job) for job in tracker.getJobIdsForGroup("kwire-test-sweep")]
    assert len(jobs) == 1 and jobs[0].status == "SUCCEEDED"
    [stage] = [tracker.getStageInfo(stage) for stage in jobs[0].stageIds]
    assert stage.numTasks == stage.numCompletedTasks == len(work_units(MESSAGES, "kwire.generated", 11, 5, 300,
                                                                       False))
    # and a different seed really changes the result (the comparison can fail)
    assert spark_sweep(spark, MESSAGES[:1], seed=12, cases=50) != sweep(MESSAGES[:1], seed=11, cases=50)


def test_results_table_has_a_row_per_cell(spark):
    result = spark_sweep(spark, MESSAGES, seed=3, cases=40)
    table = results_table(result)
    cells = {(name, cell["observed"]["from"], cell["observed"]["to"]): cell
             for name, message in result["messages"].items() for cell in message["cells"].values()}
    assert table.num_rows == len(cells) == result["summary"]["cells"]
    for row in table.to_pylist():
        cell = cells[(row["message"], row["from_version"], row["to_version"])]
        assert row["outcome"] == cell["outcome"] and row["cases"] == 40
        assert row["lossless"] + row["lossy"] + row["refused"] + row["failed"] == 40
        assert dict(row["lost_fields"]) == cell["observed"]["lost_fields"]


def test_fuzz_command_on_spark_writes_the_local_report(spark, tmp_path):
    common = ["fuzz", "--messages", *MESSAGES, "--cases", "60", "--seed", "4", "-q"]
    local_code = kwire_main([*common, "--report", str(tmp_path / "local")])
    spark_code = kwire_main([*common, "--spark", "--report", str(tmp_path / "spark")])
    assert spark_code == local_code
    local_report = json.loads((tmp_path / "local" / "report.json").read_text())
    assert json.loads((tmp_path / "spark" / "report.json").read_text()) == local_report
    assert (tmp_path / "spark" / "report.md").read_text() == (tmp_path / "local" / "report.md").read_text()
    table = pq.read_table(tmp_path / "spark" / "results.parquet")
    assert table.num_rows == local_report["summary"]["cells"]
    assert not (tmp_path / "local" / "results.parquet").exists()
