"""Details of ``kwire decode``'s output and input that the arrow part's mutation sample left alive
(tests/README.md): which Parquet columns are dictionary-encoded (read back by pyarrow's own
Parquet metadata), the names of files listed through ``pyarrow.fs`` (against this machine's own
listing), and the default number of worker processes (against ``os``)."""
from __future__ import annotations

from tests.optional import need_module

need_module("pyarrow")  # kwire.arrow is made of it: without it this module skips (fails under CI)

import os
from pathlib import Path

from kwire.arrow import decode_files
from kwire.arrow.decode_files import decode_to_directory
from kwire.arrow.output import DICTIONARY_COLUMNS
from kwire.arrow.storage import walk_remote
from tests.optional import later
from tests.paths import KRAFT_361

pq = later("pyarrow.parquet")


def test_only_the_few_valued_columns_are_dictionary_encoded(tmp_path: Path) -> None:
    """Kills ``kwire.arrow.output.xǁ_PartWriterǁ__init____mutmut_17`` (pyarrow's default: every
    column dictionary-encoded, offsets and values too)."""
    out = tmp_path / "out"
    decode_to_directory(str(KRAFT_361 / "bootstrap.checkpoint"), out)
    metadata = pq.ParquetFile(out / "part-00000.parquet").metadata
    columns = [metadata.row_group(0).column(i) for i in range(metadata.num_columns)]
    encoded = {column.path_in_schema for column in columns if column.has_dictionary_page}
    assert encoded == {name for name in DICTIONARY_COLUMNS if name in {c.path_in_schema for c in columns}}
    assert {"topic", "file", "record_type"} <= encoded and "offset" not in encoded


def test_a_remote_listing_keeps_every_character_of_a_name(tmp_path: Path) -> None:
    """Topic names may start with any letter of Kafka's legal set ([a-zA-Z0-9._-]); the path
    relative to the listed URI is the local one. Kills ``kwire.arrow.storage.x_walk_remote__mutmut_34``
    (leading ``X`` stripped with the slash)."""
    names = ["XYZ-0/00000000000000000000.log", "X.y_-1/00000000000000000007.log", "Xloose.batch"]
    for relative in names:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(b"x")
    _fs, files = walk_remote(f"file://{tmp_path}")
    local = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert [entry.relative for entry in files] == local == sorted(names)
    assert [entry.uri for entry in files] == [f"file://{tmp_path}/{name}" for name in local]


def test_the_default_jobs_are_the_cpus_this_process_may_run_on() -> None:
    """Kills ``kwire.arrow.decode_files.x_default_jobs__mutmut_5`` (``hasattr`` given one argument)."""
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert decode_files.default_jobs() == expected >= 1
