"""Shared fixtures: codecs generated from kafka-python's shipped definitions, one Spark session,
the compiled builds, an S3 server with Kafka data in it (started on first use, once per test
process). Where test data lives is ``tests/paths.py``'s business."""
from __future__ import annotations

import importlib
import os
import socket
import sys
from pathlib import Path

import pytest

from kwire.fuzz.hostile.corpus import CORPUS_VARIABLE
from tests.paths import DATA, REPO

# The hostile-input fuzzer mutates real frames, batches and logs: the suite's own test data.
os.environ[CORPUS_VARIABLE] = str(DATA)
# Credentials for the test S3 server are dummies, set before any JVM or Python worker starts, so
# that every process the tests start (Spark executors included) finds them in its environment, as
# executors on a real cluster find theirs; and no AWS client here asks a cloud's instance metadata
# service for any.
os.environ.update(AWS_ACCESS_KEY_ID="kwire-tests", AWS_SECRET_ACCESS_KEY="kwire-tests-secret",
                  AWS_DEFAULT_REGION="us-east-1", AWS_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")
# The endpoint too: the test S3 server's socket is bound now and served from when a test first asks
# for the server, so a JVM started before that (the shared Spark session) already knows where it is.
S3_SOCKET = socket.create_server(("127.0.0.1", 0))
os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{S3_SOCKET.getsockname()[1]}"


RECORD_DECODER_CACHE = REPO / "build" / "record-decoder"


def pytest_configure(config: pytest.Config) -> None:
    """Build the compiled record decoder before anything imports kwire.records.columns, so the
    whole suite (Spark workers included) runs it; once per run, in the main process (xdist
    workers start after this), cached under build/record-decoder. Without mypyc or a C compiler
    the suite runs the plain-Python decoder, and the tests of the compiled one skip (fail under
    CI=true: tests/optional.py)."""
    if hasattr(config, "workerinput"):
        return
    if os.environ.get("KWIRE_RECORD_DECODER") == "python":  # columns.CHOICE_VARIABLE: plain Python
        return  # chosen (`make mutation` mutates the decoder's source, which mypyc cannot compile)
    from kwire.generator.native.build import CompileUnavailable
    from kwire.generator.native.records import build

    try:
        build(RECORD_DECODER_CACHE, log=lambda _message: None)
    except CompileUnavailable:
        pass


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the fast tier, which ``make check`` runs (``-m check``): tests/tiers.py. Tests asking for
    the ``spark`` fixture share one xdist worker, so one local Spark session (one JVM) serves them."""
    from tests.tiers import mark_fast_tier

    for item in items:
        if "spark" in getattr(item, "fixturenames", ()) and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group("spark"))
    mark_fast_tier(items)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A parameter that tests/optional.py's params_from could not make: skip, or fail under CI."""
    from tests.optional import missing

    for mark in item.iter_markers("needs_module"):
        missing(f"needs {mark.args[0]}: {mark.args[1]}")


def kafka_python_definitions() -> Path:
    """The Kafka 4.x client definitions kafka-python 3 ships in its wheel (skips, or fails under CI,
    without kafka-python: tests/optional.py)."""
    from tests.optional import need_module

    return Path(need_module("kafka.protocol.schemas").__file__).parent / "resources"


def kafka_python_definition_files() -> list:
    """Parameters: each file of :func:`kafka_python_definitions`, sorted (one that skips, or fails
    under CI, without kafka-python: tests/optional.py's params_from)."""
    from tests.optional import params_from

    return params_from("kafka.protocol.schemas",
                       lambda schemas: sorted((Path(schemas.__file__).parent / "resources").glob("*.json")))


@pytest.fixture(scope="session")
def kp_generated(tmp_path_factory: pytest.TempPathFactory):
    """A package generated (by kwire) from kafka-python's definitions, imported as ``kpgen``."""
    from kwire.generator.definitions.loader import load_definitions
    from kwire.generator.emit import render_all, write_package

    root = tmp_path_factory.mktemp("kpgen")
    write_package(render_all(load_definitions([kafka_python_definitions()])), root / "kpgen")
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("kpgen")
    finally:
        sys.path.remove(str(root))


@pytest.fixture(scope="session")
def spark():
    """One local[2] SparkSession for every Spark test (starting one takes several seconds). Its JVM
    ends with the test session (:func:`end_jvm`)."""
    from kwire.spark.session import build_session
    from tests.optional import need_module

    need_module("pyspark")
    session = build_session("local[2]", app_name="kwire-tests", config={"spark.sql.shuffle.partitions": "2"})
    try:
        yield session
    finally:
        session.stop()
        end_jvm()


def end_jvm() -> None:
    """End the JVM PySpark started in this process, so that the next SparkSession here starts its own.

    PySpark keeps one JVM per process for good. mutmut (``make mutation``) runs the tests in one
    process, then forks a child per mutant that runs them again: a JVM left from that first run
    would serve every child, and its Python workers would keep the environment it started with,
    not the child's ``MUTANT_UNDER_TEST``; so the mutant would not run in Spark's tasks."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None:
        return
    SparkContext._gateway = SparkContext._jvm = None
    gateway.shutdown()
    process = getattr(gateway, "proc", None)
    if process is not None:  # PySpark's JVM exits when its stdin closes
        process.stdin.close()
        process.wait(timeout=60)


@pytest.fixture(scope="session")
def compiled_generated():
    """message_defs' codecs with a representative subset compiled by mypyc (package ``kwcompiled``)."""
    from kwire.generator.native.build import CompileUnavailable
    from tests.generated.compiled_build import compiled_package
    from tests.optional import missing

    try:
        return compiled_package()
    except CompileUnavailable as exc:  # no mypy or no C compiler: only the pure build exists here
        missing(f"no compiled build: {exc}")


def _built_record_decoder(flavour: str, skipped_by: tuple[str, ...]):
    """One compiled flavour of the record decoder, current: built (or taken from the cache) and
    loaded, skipped when KWIRE_RECORD_DECODER chose a later flavour, missing without a toolchain."""
    from kwire.generator.native import records as native_records
    from kwire.generator.native.build import CompileUnavailable
    from kwire.records import columns
    from tests.optional import missing

    chosen = os.environ.get("KWIRE_RECORD_DECODER")
    if chosen in skipped_by:  # chosen, not missing (make check, make mutation)
        pytest.skip(f"KWIRE_RECORD_DECODER={chosen} chose a flavour after the {flavour} one")
    build, load = ((native_records.build_c, columns.load_c) if flavour == "c"
                   else (native_records.build, columns.load_compiled))
    try:
        build(RECORD_DECODER_CACHE, log=lambda _message: None)
    except CompileUnavailable as exc:
        missing(f"no {flavour} record decoder: {exc}")
    module, why_not = load()
    if module is None:
        raise AssertionError(f"the {flavour} record decoder was built but is not used: {why_not}")
    return module


@pytest.fixture(scope="session")
def compiled_record_decoder():
    """kwire.records._column_decoder_mypyc, current (built by pytest_configure, or here)."""
    return _built_record_decoder("mypyc", ("python",))


@pytest.fixture(scope="session")
def c_record_decoder():
    """kwire.records._column_decoder_c, current (built by pytest_configure, or here)."""
    return _built_record_decoder("c", ("python", "mypyc"))


@pytest.fixture(scope="session")
def kafka_dirs(tmp_path_factory) -> dict[str, Path]:
    """Kafka data directories for the remote tests (tests/spark/remote_data.py)."""
    from tests.spark.remote_data import make_kafka_dirs

    return make_kafka_dirs(tmp_path_factory.mktemp("kafka-dirs"))


@pytest.fixture(scope="session")
def s3(kafka_dirs):
    """moto's S3 server on loopback (tests/spark/s3server.py) with ``kraft`` and ``many`` uploaded to
    ``s3://kafka-tier/<name>``, served on the socket this process's AWS_ENDPOINT_URL names."""
    from tests.optional import need_module
    from tests.spark.remote_data import BUCKET

    need_module("moto")
    from tests.spark.s3server import S3Server

    with S3Server(S3_SOCKET) as server:
        assert server.env["AWS_ENDPOINT_URL"] == os.environ["AWS_ENDPOINT_URL"]
        for name in ("kraft", "many"):
            server.upload(kafka_dirs[name], BUCKET, name)
        yield server
