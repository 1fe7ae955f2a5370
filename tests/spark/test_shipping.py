"""What ``build_session`` ships to a cluster (kwire/spark/shipping.py), and how a shipped copy behaves
on an executor whose Python cannot load its compiled modules (kwire/spark/shipped.py), without Spark:
each archive is unpacked as Spark unpacks it (``NAME/`` under a root on ``sys.path``) and used by a
fresh interpreter that has that root first on its path, as PySpark's workers do.

On the standalone cluster, test_cluster.py checks that executors load the compiled decoder from
these archives.
"""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.spark is made of it: without it this module skips (fails under CI)

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from kwire.spark import read_table
from kwire.spark.shipped import MARKER
from kwire.spark.shipping import COMPILED_RUNTIME, SHIP_SETTING, package_files, ship_packages, shipping_enabled
from tests.packages import pa
from tests.paths import KRAFT_361

EXT = sysconfig.get_config_var("EXT_SUFFIX")
SEGMENT = KRAFT_361 / "__cluster_metadata-0" / "00000000000000000000.log"


class FakeContext:
    """What ship_packages uses of a SparkContext: it records what was added."""

    def __init__(self, conf: dict[str, str] | None = None) -> None:
        self.archives: list[str] = []
        self.files: list[str] = []
        self.conf = conf or {}

    def addArchive(self, path: str) -> None:  # noqa: N802 (Spark's names)
        self.archives.append(path)

    def addFile(self, path: str) -> None:  # noqa: N802
        self.files.append(path)

    def getConf(self):  # noqa: N802 (a SparkConf's get(key, default) is a dict's)
        return self.conf


class FakeSession:
    def __init__(self, conf: dict[str, str] | None = None) -> None:
        self.sparkContext = FakeContext(conf)


def unpack(archive: Path, root: Path, name: str) -> Path:
    """As an executor does for ``addArchive("archive#name")``: the contents into ``root/name``."""
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(root / name)
    return root / name


def run_shipped(root: Path, code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter with ``root`` first on its path (outside the checkout)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "KWIRE_"))}
    env["PYTHONPATH"] = str(root)
    return subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def shipped_kwire(tmp_path: Path) -> tuple[Path, list[str]]:
    """kwire shipped to a fake context and unpacked under ``tmp_path/root``; the archive names."""
    session = FakeSession()
    archives = ship_packages(session)
    root = tmp_path / "root"
    names = []
    # not strict: with compiled modules ship_packages also returns mypyc's run-time module, last, which it
    # adds with addFile (copied below), not as an archive
    for archive, added in zip(archives, session.sparkContext.archives, strict=False):
        name = added.rpartition("#")[2]
        unpack(archive, root, name)
        names.append(name)
    for file in session.sparkContext.files:  # addFile: into the root itself
        (root / Path(file).name).write_bytes(Path(file).read_bytes())
    return root, names


REPORT = """
import json, sys
import pyarrow as pa
import kwire, kwire.generated
from kwire.records import columns
from kwire.spark import read_table
table = read_table(sys.argv[1] if len(sys.argv) > 1 else {segment!r})
with pa.OSFile({out!r}, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
    writer.write_table(table)
print(json.dumps({{"kwire": kwire.__file__, "decoder": columns.IMPLEMENTATION_NAME,
                  "reason": columns.FALLBACK_REASON, "file": columns.IMPLEMENTATION.__file__}}))
"""


def report(root: Path, tmp_path: Path) -> tuple[dict, pa.Table, str]:
    out = tmp_path / "rows.arrow"
    done = run_shipped(root, REPORT.format(segment=str(SEGMENT), out=str(out)), tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), pa.ipc.open_file(out).read_all(), done.stderr


def kwire_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "RuntimeWarning: kwire:" in line]


# --- what is shipped --------------------------------------------------------------------------------


def test_kwire_goes_as_one_archive_unpacked_as_kwire_with_generated_and_no_bytecode(tmp_path):
    files = package_files(["kwire", "kwire.generated"])
    assert "__init__.py" in files and "records/column_decoder.py" in files and "spark/log4j2.properties" in files
    assert "generated/__init__.py" in files and "generated/api_versions_response.py" in files
    assert not [name for name in files if "__pycache__" in name or name.endswith(".pyc")]
    session = FakeSession()
    archives = ship_packages(session)
    assert session.sparkContext.archives[0] == f"{archives[0]}#kwire"
    with zipfile.ZipFile(archives[0]) as archive:
        names = set(archive.namelist())
        description = json.loads(archive.read(MARKER))
    assert set(files) | {MARKER} == names
    assert description["extension_suffix"] == EXT
    assert description["compiled"] == sorted(name for name in files if name.endswith(".so"))


def test_compiled_modules_go_with_mypyc_runtime_and_nothing_is_shipped_twice(compiled_record_decoder):
    session = FakeSession()
    archives = ship_packages(session)
    context = session.sparkContext
    # librt as an archive of its own (unpacked as librt/), mypy_extensions as a file in the root
    assert [added.rpartition("#")[2] for added in context.archives] == ["kwire", "librt"]
    assert [Path(file).name for file in context.files] == ["mypy_extensions.py"]
    assert COMPILED_RUNTIME == ("librt", "mypy_extensions")
    assert f"records/{Path(compiled_record_decoder.__file__).name}" in zipfile.ZipFile(archives[0]).namelist()
    assert ship_packages(session) == []  # a second build_session in the process
    assert ship_packages(session, ["kwire.spark"]) == []  # inside the kwire archive


def test_files_missing_from_a_shipped_package_are_refused(tmp_path):
    package = tmp_path / "shipme"
    (package / "codecs").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "codecs" / "__init__.py").write_text("")
    other = tmp_path / "elsewhere" / "shipme" / "more"  # a sub-package from another folder, as
    other.mkdir(parents=True)                            # kwire.generated is in a checkout
    (other / "__init__.py").write_text("")
    session = FakeSession()
    sys.path.insert(0, str(tmp_path))
    try:
        import shipme

        shipme.__path__.append(str(other.parent))
        ship_packages(session, ["shipme"])
        assert ship_packages(session, ["shipme.codecs"]) == []
        with pytest.raises(ValueError,
                           match="shipme was already shipped to this SparkContext without more/__init__.py"):
            ship_packages(session, ["shipme.more"])
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.partition(".")[0] == "shipme"]:
            del sys.modules[name]


def test_shipping_is_turned_off_by_the_spark_setting():
    assert shipping_enabled(FakeSession())
    assert not shipping_enabled(FakeSession({SHIP_SETTING: "false"}))
    assert shipping_enabled(FakeSession({SHIP_SETTING: "true"}))


# --- a shipped copy on an executor --------------------------------------------------------------------


def test_a_shipped_copy_loads_its_compiled_decoder_and_reads_the_same_rows(compiled_record_decoder, tmp_path):
    root, _ = shipped_kwire(tmp_path)
    seen, table, stderr = report(root, tmp_path)
    assert Path(seen["kwire"]) == root / "kwire" / "__init__.py"
    assert (seen["decoder"], seen["reason"]) == ("c", None)
    assert Path(seen["file"]).parent == root / "kwire" / "records"
    assert table.equals(read_table(str(SEGMENT)))
    assert kwire_warnings(stderr) == []


def test_on_another_python_the_compiled_modules_are_skipped_with_one_warning(compiled_record_decoder, tmp_path):
    """As if built by a driver on another Python or platform: the files carry another suffix."""
    root, _ = shipped_kwire(tmp_path)
    other = ".cpython-399-aarch64-linux-gnu.so"
    for path in (root / "kwire").rglob("*" + EXT):
        path.rename(str(path)[: -len(EXT)] + other)
    marker = root / "kwire" / MARKER
    description = json.loads(marker.read_text())
    marker.write_text(json.dumps({**description, "extension_suffix": other, "python": "3.99.0",
                                  "platform": "Linux aarch64 glibc 2.99"}))
    seen, table, stderr = report(root, tmp_path)
    assert seen["decoder"] == "python"
    assert seen["reason"].startswith("c: built for another Python or platform (_column_decoder_c" + other)
    assert "; mypyc: built for another Python or platform (_column_decoder_mypyc" + other in seen["reason"]
    assert table.equals(read_table(str(SEGMENT)))
    [warning] = kwire_warnings(stderr)
    assert "built for Python 3.99.0 on Linux aarch64 glibc 2.99" in warning
    assert "kwire runs as plain Python here" in warning


def test_a_compiled_decoder_that_does_not_load_falls_back_with_one_warning(compiled_record_decoder, tmp_path):
    """Same suffix, but the library does not load (as on an executor with an older C library)."""
    root, _ = shipped_kwire(tmp_path)
    for path in (root / "kwire" / "records").glob("*" + EXT):
        path.write_bytes(b"\x7fELF not a library")
    seen, table, stderr = report(root, tmp_path)
    # both flavours shipped and neither loads: each named, and one warning for the two
    assert seen["decoder"] == "python" and seen["reason"].startswith("c: the build does not import:")
    assert "; mypyc: the build does not import:" in seen["reason"]
    assert table.equals(read_table(str(SEGMENT)))
    [warning] = kwire_warnings(stderr)
    assert "a compiled record decoder is not used (c: the build does not import" in warning
    assert "; mypyc: the build does not import" in warning


def test_a_compiled_module_that_does_not_load_gives_way_to_its_source(tmp_path):
    """A shipped package of codecs where one module's extension cannot load (here: not a library
    at all, which fails in the same place as a library built for a newer C library): importing
    it runs the .py beside it, and says so once."""
    package = tmp_path / "src" / "shipcodecs"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name in ("first", "second"):
        (package / f"{name}.py").write_text(f"WHERE = 'source of {name}'\n")
        (package / f"{name}{EXT}").write_bytes(b"\x7fELF not a library")
    session = FakeSession()
    sys.path.insert(0, str(package.parent))
    try:
        ship_packages(session, ["kwire", "kwire.generated", "shipcodecs"])
    finally:
        sys.path.remove(str(package.parent))
    root = tmp_path / "root"
    for added in session.sparkContext.archives:
        path, _, name = added.rpartition("#")
        unpack(Path(path), root, name)
    done = run_shipped(root, "import kwire, shipcodecs.first as a, shipcodecs.second as b; "
                             "print(a.WHERE, '|', b.WHERE, '|', a.__file__)", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" | ") == ["source of first", "source of second",
                                        str(root / "shipcodecs" / "first.py") + "\n"]
    [warning] = kwire_warnings(done.stderr)
    assert "the compiled module shipcodecs.first does not load on this executor" in warning
