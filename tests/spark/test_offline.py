"""The Python side of kwire on Spark, run here without a JVM.

On Spark 4 the JVM asks Python worker processes for a data source's schema, its partitions and
each partition's rows, and ``decode_column``'s tasks decode in workers too: neither the test's
process nor mutmut's stats pass (``make mutation``) sees those calls. Here the same objects are
driven directly: ``KwireDataSource`` as the JVM's workers drive it, and ``decode_column`` over a
stand-in frame whose ``mapInArrow`` runs the task's function on Arrow batches in this process.
The expected rows come from kafka-python (``MemoryRecords``, its ``MetadataResponse``).
"""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark is made of it: without it this module skips (fails under CI)
need_module("pyspark")  # its DataSource classes and type converters, not a JVM

import contextlib
import io
import os
import random
import struct
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from kwire.arrow import schemas
from kwire.records import Codec
from kwire.spark.datasource import KwireDataSource, SplitPartition
from kwire.spark.decode import decode_column
from kwire.spark.schemas import to_spark
from kwire.wire.errors import DecodeError, KwireError
from tests.packages import KpBuilder, pa
from tests.spark.test_decode import client_batch, independent_rows, random_rows, response_bodies, uuid_text

SPLIT = 16 * 1024


def batch_starts(data: bytes) -> list[int]:
    """Where each record batch of a log starts: baseOffset (int64), then batchLength (int32)
    counting the bytes after it (Kafka's DefaultRecordBatch layout)."""
    starts, position = [], 0
    while position < len(data):
        starts.append(position)
        position += 12 + struct.unpack_from(">i", data, position + 8)[0]
    return starts


@pytest.fixture
def partition_log(tmp_path):
    """A topic partition of 24 kafka-python batches (~4 KB each), so a 16 KiB split cuts it."""
    rng = random.Random(37)
    parts, offset = [], 0
    for _ in range(24):
        rows = [(ts, key, rng.randbytes(160), headers) for ts, key, _value, headers in random_rows(rng, 25)]
        parts.append(client_batch(KpBuilder, Codec.NONE, rows, offset))
        offset += len(rows)
    segment = tmp_path / "orders-0" / "00000000000000000000.log"
    segment.parent.mkdir()
    segment.write_bytes(b"".join(parts))
    return tmp_path


def test_the_data_source_cuts_at_batch_starts_and_reads_what_kafka_python_reads(partition_log):
    source = KwireDataSource({"path": str(partition_log), "maxSplitBytes": str(SPLIT)})
    assert KwireDataSource.name() == "kwire"
    assert source.schema() == to_spark(schemas.RECORD_SCHEMA)
    reader = source.reader(source.schema())
    partitions = reader.partitions()
    segment = partition_log / "orders-0" / "00000000000000000000.log"
    data = segment.read_bytes()
    assert len(partitions) >= len(data) // SPLIT > 1
    assert [p.index for p in partitions] == list(range(len(partitions)))
    starts = batch_starts(data)
    pieces = [piece for p in partitions for piece in p.pieces]
    assert [(piece.start, piece.end) for piece in pieces] == list(zip([0, *[p.end for p in pieces[:-1]]],
                                                                      [p.end for p in pieces], strict=True))
    assert pieces[-1].end == len(data) and all(piece.start in starts for piece in pieces)
    assert repr(partitions[0]) == (f"SplitPartition(0, {len(partitions[0].pieces)} pieces, "
                                   f"{sum(p.size for p in partitions[0].pieces)} bytes)")
    rows = [row for p in partitions for batch in reader.read(p) for row in batch.to_pylist()]
    assert rows == independent_rows(partition_log)


def test_the_data_source_decodes_records_when_the_load_asks(partition_log):
    """decodeRecords reaches both the schema (the JVM's question) and the tasks' reader."""
    source = KwireDataSource({"path": str(partition_log), "decodeRecords": "true"})
    names = source.schema().fieldNames()
    assert names[-3:] == ["record_type", "record_version", "record_json"]
    reader = source.reader(source.schema())
    batches = [batch for p in reader.partitions() for batch in reader.read(p)]
    assert all(batch.schema.names == names for batch in batches)
    rows = [row for batch in batches for row in batch.to_pylist()]
    assert len(rows) == len(independent_rows(partition_log)) and {r["record_type"] for r in rows} == {None}


def test_a_directory_without_batch_files_is_one_partition_with_nothing_to_read(tmp_path):
    """Spark runs a job over at least one partition: a directory holding no file of batches (here
    only a broker's meta.properties) gives one empty one, and so an empty frame, not an error."""
    (tmp_path / "meta.properties").write_text("version=1\n")
    reader = KwireDataSource({"path": str(tmp_path)}).reader(None)
    partitions = reader.partitions()
    assert [(type(p), p.index, p.pieces) for p in partitions] == [(SplitPartition, 0, [])]
    assert list(reader.read(partitions[0])) == []


class ArrowFrame:
    """Stands in for a DataFrame: ``mapInArrow`` runs the task's function here, on Arrow batches of
    two rows (so a task sees several batches)."""

    def __init__(self, table) -> None:
        self.table = table
        self.schema = to_spark(table.schema)

    def mapInArrow(self, function, schema):  # noqa: N802 (PySpark's name)
        self.out_schema = schema
        return pa.Table.from_batches(list(function(iter(self.table.to_batches(max_chunksize=2)))))


def bodies_table(bodies):
    return pa.table({"file": [name for name, _ in bodies], "body": [body for _, body in bodies]},
                    schema=pa.schema([("file", pa.string()), ("body", pa.binary())]))


def test_decode_column_tasks_decode_what_kafka_python_decodes():
    from kafka.protocol.metadata import MetadataResponse as KpMetadataResponse

    bodies = response_bodies("*_resp_*_k3_v12_*.bin")
    assert len(bodies) > 2
    frame = ArrowFrame(bodies_table([*bodies, ("null", None)]))
    rows = decode_column(frame, "body", "MetadataResponse", 12, into="decoded").to_pylist()
    assert frame.out_schema.fieldNames() == ["file", "body", "decoded"]
    assert rows[-1] == {"file": "null", "body": None, "decoded": None}
    for (name, body), row in zip(bodies, rows, strict=False):
        theirs = KpMetadataResponse.decode(body, version=12)
        ours = row["decoded"]
        assert (row["file"], row["body"]) == (name, body)
        assert (ours["cluster_id"], ours["controller_id"]) == (theirs.cluster_id, theirs.controller_id)
        assert [(t["name"], t["topic_id"], t["error_code"]) for t in ours["topics"]] == [
            (t.name, uuid_text(t.topic_id), t.error_code) for t in theirs.topics]


def test_decode_column_tasks_raise_or_give_null_for_a_body_that_does_not_decode():
    (name, body), = response_bodies("c19_resp_0001_k3_v12_*.bin")
    table = bodies_table([("good", body), ("cut", body[:-5])])
    rows = decode_column(ArrowFrame(table), "body", "MetadataResponse", 12, on_error="null").to_pylist()
    assert rows[0]["body"]["cluster_id"] == "tansu_cluster" and rows[1] == {"file": "cut", "body": None}
    with pytest.raises(DecodeError):
        decode_column(ArrowFrame(table), "body", "MetadataResponse", 12)
    with pytest.raises(KwireError, match="on_error must be 'raise' or 'null', not 'skip'"):
        decode_column(ArrowFrame(table), "body", "MetadataResponse", 12, on_error="skip")


def test_decode_column_keeps_every_column_nullable():
    """A null body gives a null struct (decode_column's contract): the struct's column is nullable
    whether it replaces the body or goes into a column of its own."""
    bodies = response_bodies("c19_resp_0001_k3_v12_*.bin")
    for into in (None, "decoded"):
        frame = ArrowFrame(bodies_table(bodies))
        decode_column(frame, "body", "MetadataResponse", 12, into=into)
        assert [(f.name, f.nullable) for f in frame.out_schema.fields] == (
            [("file", True), ("body", True)] + ([("decoded", True)] if into else []))


# --- results_table: a sweep's cells as rows (what `kwire fuzz --spark` writes as Parquet) ----------


def test_results_table_carries_every_field_of_every_cell():
    from kwire.fuzz.sweep import sweep
    from kwire.spark.fuzz import CELL_SCHEMA, results_table

    result = sweep(["ApiVersionsRequest", "DescribeClusterResponse"], seed=5, cases=30)
    table = results_table(result)
    assert table.schema.equals(CELL_SCHEMA)
    expected = [
        {"message": name, "from_version": cell["observed"]["from"], "to_version": cell["observed"]["to"],
         "seed": cell["observed"]["seed"], "start": cell["observed"]["start"], "cases": cell["observed"]["count"],
         "outcome": cell["outcome"], **{k: cell["observed"][k] for k in ("lossless", "lossy", "refused", "failed")},
         "lost_fields": sorted(cell["observed"]["lost_fields"].items()),
         "refusals": sorted(cell["observed"]["refusals"].items()),
         "contradictions": list(cell["contradictions"]),
         "unshown_fields": sorted(p for p, demo in cell["directed"].items() if not demo["shown"])}
        for name, message in result["messages"].items() for cell in message["cells"].values()]
    rows = [{**row, "lost_fields": sorted(row["lost_fields"]), "refusals": sorted(row["refusals"])}
            for row in table.to_pylist()]
    assert rows == expected and len(rows) == result["summary"]["cells"]
    assert any(row["lost_fields"] for row in rows) and any(row["refusals"] for row in rows)


# --- JobProgress: the one progress line of a Spark command -------------------------------------------


class FakeTracker:
    """What JobProgress reads of Spark's status tracker: active stages, each's done and total tasks."""

    def __init__(self) -> None:
        self.stages: dict[int, tuple[int, int]] = {}
        self.broken = False

    def getActiveStageIds(self):  # noqa: N802 (Spark's names)
        if self.broken:
            raise RuntimeError("the session is stopping")
        return list(self.stages)

    def getStageInfo(self, stage_id):  # noqa: N802
        done, total = self.stages[stage_id]
        return SimpleNamespace(numCompletedTasks=done, numTasks=total)


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def progress_run(monkeypatch, tty: bool, fail: bool = False) -> str:
    """A job of two stages of 10 tasks each, polled by hand (the thread waits an hour between polls)."""
    from kwire.spark import progress

    clock = [100.0]
    monkeypatch.setattr(progress, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    tracker = FakeTracker()
    stream = Stream(tty)
    spark = SimpleNamespace(sparkContext=SimpleNamespace(statusTracker=lambda: tracker))
    job = progress.JobProgress(spark, "decode", stream=stream, interval=3600)
    with contextlib.suppress(ValueError), job:
        for seconds, stages in [(0, {1: (0, 10)}), (2.4, {1: (3, 10)}), (3, {1: (3, 10)}),
                                (5.2, {1: (10, 10), 2: (0, 10)})]:
            clock[0] = 100 + seconds
            tracker.stages = stages
            job._poll()
            job._draw()
        tracker.broken = True  # polls after this see nothing new, and say nothing
        job._poll()
        clock[0] = 107.0
        if fail:
            raise ValueError("the job failed")
    return stream.getvalue()


def test_progress_on_a_pipe_is_a_line_per_tenth_and_a_last_one_when_done(monkeypatch):
    assert progress_run(monkeypatch, tty=False).splitlines() == [
        "decode [..............................] 0/10 tasks 0s",
        "decode [#########.....................] 3/10 tasks 2s",
        "decode [###############...............] 10/20 tasks 5s",
        "decode [##############################] 20/20 tasks 7s",
    ]


def test_progress_on_a_terminal_is_redrawn_in_place(monkeypatch):
    assert progress_run(monkeypatch, tty=True) == "".join([
        "\rdecode [..............................] 0/10 tasks 0s",
        "\rdecode [#########.....................] 3/10 tasks 2s",
        "\rdecode [#########.....................] 3/10 tasks 3s",
        "\rdecode [###############...............] 10/20 tasks 5s",
        "\rdecode [##############################] 20/20 tasks 7s\n",
    ])


def test_progress_of_a_failed_job_has_no_last_line(monkeypatch):
    assert progress_run(monkeypatch, tty=False, fail=True).splitlines()[-1] == (
        "decode [###############...............] 10/20 tasks 5s")


# --- build_session: what it asks of PySpark's builder -------------------------------------------------


class FakeBuilder:
    """PySpark's ``SparkSession.builder``: records the calls; at ``getOrCreate`` it notes what file
    descriptor 2 (the JVM's stderr-to-be) is, and gives a session of the data source registry and
    the configuration (``spark.kwire.ship``) build_session reads."""

    def __init__(self, conf: dict[str, str]) -> None:
        self.calls: list[tuple] = []
        self.conf = conf
        self.stderr_at_start = None
        self.registered: list[type] = []

    def master(self, value):
        self.calls.append(("master", value))
        return self

    def appName(self, value):  # noqa: N802 (PySpark's names)
        self.calls.append(("appName", value))
        return self

    def config(self, key, value):
        self.calls.append(("config", key, value))
        return self

    def getOrCreate(self):  # noqa: N802
        self.stderr_at_start = os.fstat(2)
        from tests.spark.test_shipping import FakeContext

        context = FakeContext(self.conf)
        return SimpleNamespace(sparkContext=context,
                               dataSource=SimpleNamespace(register=self.registered.append))


@pytest.fixture
def fake_builder(monkeypatch, tmp_path):
    from pyspark.sql import SparkSession

    monkeypatch.delenv("SPARK_HOME", raising=False)
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))  # no spark-defaults.conf: kwire's defaults all apply
    monkeypatch.delenv("SPARK_MASTER", raising=False)
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    builders = []

    def make(conf=None):
        builder = FakeBuilder(conf or {})
        builders.append(builder)
        monkeypatch.setattr(SparkSession, "builder", builder)
        return builder

    return make


def test_build_session_on_a_local_master_sets_kwires_defaults_and_registers_the_source(fake_builder):
    import stat

    from kwire.spark.session import DEFAULTS, LOG4J2_CONFIG, build_session

    builder = fake_builder()
    screen = os.fstat(2)
    session = build_session("local[3]", app_name="kw", config={"spark.sql.shuffle.partitions": "5"})
    assert builder.calls == [("master", "local[3]"), ("appName", "kw"),
                             *[("config", key, value) for key, value in DEFAULTS.items()],
                             ("config", "spark.sql.shuffle.partitions", "5"),
                             ("config", "spark.driver.extraJavaOptions",
                              f"-Dlog4j2.configurationFile={LOG4J2_CONFIG.as_uri()}")]
    # shown (the default): the JVM writes to this process's own stderr
    assert (builder.stderr_at_start.st_dev, builder.stderr_at_start.st_ino) == (screen.st_dev, screen.st_ino)
    assert builder.registered == [KwireDataSource]
    assert session.sparkContext.archives == []  # a local master imports kwire through PYTHONPATH
    import kwire

    root = str(Path(kwire.__file__).resolve().parent.parent)
    paths = os.environ["PYTHONPATH"].split(os.pathsep)
    assert paths[0] == "/somewhere/else" and root in paths[1:]
    assert os.environ["PYSPARK_PYTHON"]

    hidden = fake_builder()
    build_session("local", show_jvm_output=False)
    assert stat.S_ISFIFO(hidden.stderr_at_start.st_mode)  # a pipe that kwire drains
    assert (os.fstat(2).st_dev, os.fstat(2).st_ino) == (screen.st_dev, screen.st_ino)  # and given back after
    assert os.environ["PYTHONPATH"].split(os.pathsep).count(root) == 1


def test_build_session_ships_kwire_to_a_cluster_unless_told_not_to(fake_builder):
    import kwire
    from kwire.spark.session import build_session
    from kwire.spark.shipping import SHIP_SETTING

    builder = fake_builder()
    session = build_session("spark://cluster:7077", ship=["kwire"])
    assert builder.calls[0] == ("master", "spark://cluster:7077")
    # (with mypyc's run-time support after it when this checkout's kwire holds compiled modules)
    assert [added.rpartition("#")[2] for added in session.sparkContext.archives][:1] == ["kwire"]
    assert str(Path(kwire.__file__).resolve().parent.parent) not in os.environ["PYTHONPATH"].split(os.pathsep)
    fake_builder({SHIP_SETTING: "false"})
    assert build_session("spark://cluster:7077").sparkContext.archives == []


# --- a shipped copy, in this process (test_shipping.py runs one in a fresh interpreter) ----------------


@pytest.fixture
def shipped_package(tmp_path, monkeypatch):
    """A package as an executor unpacks it: MARKER at its top, one module compiled (not loadable: not
    a library at all) beside its source."""
    import importlib.machinery
    import json as json_module

    from kwire.spark import shipped

    ext = importlib.machinery.EXTENSION_SUFFIXES[0]
    package = tmp_path / "root" / "shiptest"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "first.py").write_text("WHERE = 'source of first'\n")
    (package / f"first{ext}").write_bytes(b"\x7fELF not a library")
    (package / "plain.py").write_text("WHERE = 'plain'\n")
    (package / shipped.MARKER).write_text(json_module.dumps({"extension_suffix": ext, "compiled": [f"first{ext}"]}))
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.setattr(shipped, "_warned", False)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    yield package
    for name in [name for name in sys.modules if name.partition(".")[0] == "shiptest"]:
        del sys.modules[name]


def test_the_finder_loads_a_compiled_module_that_does_not_load_from_its_source(shipped_package):
    import importlib

    from kwire.spark.shipped import CompiledOrSourceLoader, ShippedCompiledFinder, guard

    guard(str(shipped_package))
    finders = [f for f in sys.meta_path if isinstance(f, ShippedCompiledFinder)]
    assert len(finders) == 1 and sys.meta_path[0] is finders[0]
    guard(str(shipped_package))  # once per process
    assert len([f for f in sys.meta_path if isinstance(f, ShippedCompiledFinder)]) == 1
    with pytest.warns(RuntimeWarning, match=r"^kwire: the compiled module shiptest\.first does not load on this "
                                            r"executor \(.*\): its Python source runs instead") as seen:
        first = importlib.import_module("shiptest.first")
    assert len(seen) == 1
    assert (first.WHERE, first.__file__) == ("source of first", str(shipped_package / "first.py"))
    assert isinstance(first.__spec__.loader, CompiledOrSourceLoader)
    plain = importlib.import_module("shiptest.plain")
    assert not isinstance(plain.__spec__.loader, CompiledOrSourceLoader) and plain.WHERE == "plain"


def test_a_package_without_the_marker_is_left_alone(tmp_path, shipped_package):
    from kwire.spark import shipped

    (shipped_package / shipped.MARKER).unlink()
    shipped.guard(str(shipped_package))
    assert not any(isinstance(f, shipped.ShippedCompiledFinder) for f in sys.meta_path)
    finder = shipped.ShippedCompiledFinder()
    import shiptest

    assert finder.find_spec("shiptest.first", shiptest.__path__) is None


def test_modules_built_for_another_python_are_named_in_one_warning(shipped_package):
    import json as json_module

    from kwire.spark import shipped

    (shipped_package / shipped.MARKER).write_text(json_module.dumps({
        "extension_suffix": ".cpython-399-aarch64-linux-gnu.so", "python": "3.99.0",
        "platform": "Linux aarch64 glibc 2.99", "compiled": ["first.cpython-399-aarch64-linux-gnu.so"]}))
    with pytest.warns(RuntimeWarning) as seen:
        shipped.guard(str(shipped_package))
        shipped.warn_once("a second warning is not given")
    [warning] = seen
    assert str(warning.message).startswith(
        "kwire: the compiled modules shipped in shiptest were built for Python 3.99.0 on Linux aarch64 glibc 2.99 "
        "(*.cpython-399-aarch64-linux-gnu.so); this executor runs Python ")
    assert str(warning.message).endswith(": shiptest runs as plain Python here")


# --- ship_packages: what goes to a cluster's executors --------------------------------------------------


def test_a_package_of_compiled_modules_goes_with_mypyc_runtime_and_a_later_package_after_a_shipped_one(
        tmp_path, monkeypatch):
    import importlib.machinery
    import importlib.util

    from kwire.spark.shipping import COMPILED_RUNTIME, ship_packages
    from tests.spark.test_shipping import FakeSession

    for name in ("shipplain", "shipbuilt"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / "shipbuilt" / f"codec{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"\x7fELF")
    monkeypatch.syspath_prepend(str(tmp_path))
    session = FakeSession()
    context = session.sparkContext
    assert [Path(a).name for a in ship_packages(session, ["shipplain"])] == ["shipplain.zip"]
    # shipbuilt, after the package already shipped, holds a compiled module: mypyc's run-time support
    # goes too, as this environment has it (a package as an archive, a module as a file)
    archives = ship_packages(session, ["shipplain", "shipbuilt"])
    runtime = {name: importlib.util.find_spec(name) for name in COMPILED_RUNTIME}
    packages = [name for name, spec in runtime.items() if spec and spec.submodule_search_locations]
    modules = [spec.origin for spec in runtime.values() if spec and not spec.submodule_search_locations]
    assert [added.rpartition("#")[2] for added in context.archives] == ["shipplain", "shipbuilt", *packages]
    assert context.files == modules and modules  # mypy_extensions is a module of the test environment
    assert [Path(a).name for a in archives] == ["shipbuilt.zip", *[f"{p}.zip" for p in packages],
                                                *[Path(m).name for m in modules]]
    assert ship_packages(session, ["shipbuilt"]) == []
