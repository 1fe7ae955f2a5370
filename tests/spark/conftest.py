"""A Spark standalone cluster and a driver process on it, for the tests that run on a cluster (the
``s3`` fixture is in tests/conftest.py: a README example uses it too).

Tests that use the cluster carry ``pytest.mark.xdist_group("spark-cluster")`` so that under
``pytest -n 2 --dist loadgroup`` one worker runs them all and only one cluster is started.
"""
from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """A Spark standalone cluster on 127.0.0.1: a master and two workers of one core and 1 GiB
    (tests/spark/standalone.py). Tests using it carry ``pytest.mark.xdist_group("spark-cluster")``."""
    from tests.optional import need_module
    from tests.spark.standalone import StandaloneCluster

    need_module("pyspark")
    with StandaloneCluster(tmp_path_factory.mktemp("spark-cluster")) as running:
        yield running


@pytest.fixture(scope="module")
def cluster_driver(cluster, s3, tmp_path_factory):
    """One driver process on ``cluster`` for the kwire commands of a module's cluster tests (see
    cluster_driver.py), with an event log to read what the scheduler did. Its application holds
    every core of the cluster while it runs, so it ends with the module: other applications (the
    README's examples) then get the cores."""
    from tests.spark.cluster_driver import ClusterDriver

    root = tmp_path_factory.mktemp("cluster-driver")
    conf = root / "conf"
    conf.mkdir()
    events = root / "events"
    events.mkdir()
    # Two attempts per task, not four: one lost executor is survived, and a task over damaged
    # input fails twice instead of four times before its job does.
    (conf / "spark-defaults.conf").write_text(
        "spark.task.maxFailures 2\n"
        "spark.eventLog.enabled true\n"
        "spark.eventLog.compress false\n"
        f"spark.eventLog.dir {events.as_uri()}\n"
        "spark.executor.memory 512m\n")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(s3.env, SPARK_CONF_DIR=str(conf), SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    driver = ClusterDriver(env, root / "driver.log")
    driver.events = events
    try:
        yield driver
    finally:
        driver.close()
