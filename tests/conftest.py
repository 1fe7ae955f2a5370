"""Shared fixtures: codecs generated from kafka-python's shipped definitions, one Spark session,
the compiled build. Where test data lives is ``tests/paths.py``'s business."""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

from kwire.fuzz.hostile.corpus import CORPUS_VARIABLE
from tests.paths import DATA

# The hostile-input fuzzer mutates real frames, batches and logs: the suite's own test data.
os.environ[CORPUS_VARIABLE] = str(DATA)


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
