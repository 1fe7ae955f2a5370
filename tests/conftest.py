"""Shared fixtures: codecs generated from kafka-python's shipped definitions, one Spark session,
the compiled builds. Where test data lives is ``tests/paths.py``'s business."""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

from kwire.fuzz.hostile.corpus import CORPUS_VARIABLE
from tests.paths import DATA, REPO

# The hostile-input fuzzer mutates real frames, batches and logs: the suite's own test data.
os.environ[CORPUS_VARIABLE] = str(DATA)


RECORD_DECODER_CACHE = REPO / "build" / "record-decoder"


def pytest_configure(config: pytest.Config) -> None:
    """Build the compiled record decoder before anything imports kwire.records.columns, so the
    whole suite (Spark workers included) runs it; once per run, in the main process (xdist
    workers start after this), cached under build/record-decoder. Without mypyc or a C compiler
    the suite runs the plain-Python decoder, and the tests of the compiled one skip."""
    if hasattr(config, "workerinput"):
        return
    from kwire.generator.native_build import CompileUnavailable
    from kwire.generator.native_records import build

    try:
        build(RECORD_DECODER_CACHE, log=lambda _message: None)
    except CompileUnavailable:
        pass


def kafka_python_definitions() -> Path:
    """The Kafka 4.x client definitions kafka-python 3 ships in its wheel."""
    import kafka.protocol.schemas as schemas

    return Path(schemas.__file__).parent / "resources"


@pytest.fixture(scope="session")
def kp_generated(tmp_path_factory: pytest.TempPathFactory):
    """A package generated (by kwire) from kafka-python's definitions, imported as ``kpgen``."""
    from kwire.generator.emit import render_all, write_package
    from kwire.generator.loader import load_definitions

    root = tmp_path_factory.mktemp("kpgen")
    write_package(render_all(load_definitions([kafka_python_definitions()])), root / "kpgen")
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("kpgen")
    finally:
        sys.path.remove(str(root))


@pytest.fixture(scope="session")
def spark():
    """One local[2] SparkSession for every Spark test (starting one takes several seconds)."""
    from kwire.spark.session import build_session

    session = build_session("local[2]", app_name="kwire-tests", config={"spark.sql.shuffle.partitions": "2"})
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(scope="session")
def compiled_generated():
    """message_defs' codecs with a representative subset compiled by mypyc (package ``kwcompiled``)."""
    from kwire.generator.native_build import CompileUnavailable
    from tests.generated.compiled_build import compiled_package

    try:
        return compiled_package()
    except CompileUnavailable as exc:  # no mypy or no C compiler: only the pure build exists here
        pytest.skip(f"no compiled build: {exc}")


@pytest.fixture(scope="session")
def compiled_record_decoder():
    """kwire.records._column_decoder_mypyc, current (built by pytest_configure, or here)."""
    from kwire.generator.native_build import CompileUnavailable
    from kwire.generator.native_records import build
    from kwire.records.columns import load_compiled

    try:
        build(RECORD_DECODER_CACHE, log=lambda _message: None)
    except CompileUnavailable as exc:
        pytest.skip(f"no compiled record decoder: {exc}")
    module, why_not = load_compiled()
    if module is None:
        raise AssertionError(f"the compiled record decoder was built but is not used: {why_not}")
    return module
