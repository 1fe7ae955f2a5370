"""Servers for the Spark tests beyond one process: an S3-compatible server (moto) with Kafka data
directories in it, and a Spark standalone cluster (a master, two workers) with one driver process
on it. Each is started once per test process and stopped at its end, even after a failure.

Tests that use the cluster carry ``pytest.mark.xdist_group("spark-cluster")`` so that under
``pytest -n 2 --dist loadgroup`` one worker runs them all and only one cluster is started.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.paths import CAPTURES, KRAFT_361, KRAFT_390
from tests.spark.s3server import REGION, S3Server

BUCKET = "kafka-tier"

# Credentials for the S3 server are dummies, set before any JVM or Python worker starts, so that
# every process the tests start (Spark executors included) finds them in its environment, as
# executors on a real cluster find theirs; and no AWS client here ever asks a cloud's instance
# metadata service for any.
os.environ.update(AWS_ACCESS_KEY_ID="kwire-tests", AWS_SECRET_ACCESS_KEY="kwire-tests-secret",
                  AWS_DEFAULT_REGION=REGION, AWS_REGION=REGION, AWS_EC2_METADATA_DISABLED="true")


def partition_log(path: Path, batches: int, records: int, seed: int) -> None:
    """A segment of ``batches`` batches written by aiokafka's C builder (value sizes vary, every
    codec), at consecutive offsets as a broker would assign them."""
    import random
    import struct

    from aiokafka.record._crecords import DefaultRecordBatchBuilder

    rng = random.Random(seed)
    parts, offset = [], 0
    for i in range(batches):
        builder = DefaultRecordBatchBuilder(2, i % 5, False, -1, -1, -1, 10**9)
        for j in range(records):
            value = b"%d:" % (offset + j) + rng.randbytes(rng.randrange(20, 200))
            key = None if j % 7 == 0 else b"key-%d" % rng.randrange(100)
            headers = [("h", b"%d" % j)] if j % 3 == 0 else []
            assert builder.append(j, 1_700_000_000_000 + offset + j, key, value, headers) is not None
        parts.append(struct.pack(">q", offset) + bytes(builder.build())[8:])
        offset += records
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(parts))


@pytest.fixture(scope="session")
def kafka_dirs(tmp_path_factory) -> dict[str, Path]:
    """Local data directories the remote tests use, by name:

    - ``kraft``: a Kafka 3.9.0 node's data directory, as the broker wrote it (tests/data);
    - ``many``: six partitions of 1.2 MB, batches of 4-20 KB from aiokafka's C builder and
      librdkafka's captured batches in a loose file: cut into a dozen tasks at 1 MB splits.
    """
    root = tmp_path_factory.mktemp("kafka-dirs")
    kraft = root / "kraft"
    shutil.copytree(KRAFT_390, kraft)
    many = root / "many"
    for partition in range(6):
        partition_log(many / f"orders-{partition}" / "00000000000000000000.log", batches=150, records=60,
                      seed=partition)
    loose = many / "loose"
    loose.mkdir()
    for path in sorted((CAPTURES / "librdkafka-mock" / "batches").glob("cap-*.batch"))[:3]:
        shutil.copy(path, loose / path.name)
    return {"kraft": kraft, "many": many, "kraft361": KRAFT_361}


@pytest.fixture(scope="session")
def s3(kafka_dirs):
    """moto's S3 server on loopback with ``kraft`` and ``many`` uploaded to ``s3://kafka-tier/<name>``;
    this process's AWS_ENDPOINT_URL points at it while it runs."""
    with S3Server() as server, pytest.MonkeyPatch.context() as patch:
        for key, value in server.env.items():
            patch.setenv(key, value)
        for name in ("kraft", "many"):
            server.upload(kafka_dirs[name], BUCKET, name)
        yield server


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """A standalone cluster: a master and two workers (one core, 1 GiB each) on 127.0.0.1."""
    from tests.spark.standalone import StandaloneCluster

    with StandaloneCluster(tmp_path_factory.mktemp("spark-cluster")) as running:
        yield running


@pytest.fixture(scope="session")
def cluster_driver(cluster, s3, tmp_path_factory):
    """One driver process on ``cluster`` for the kwire commands of every cluster test (see
    cluster_driver.py), with an event log to read what the scheduler did."""
    from tests.spark.cluster_driver import ClusterDriver

    root = tmp_path_factory.mktemp("cluster-driver")
    conf = root / "conf"
    conf.mkdir()
    events = root / "events"
    events.mkdir()
    (conf / "spark-defaults.conf").write_text(
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
