"""kwire.wire.files: no existing file replaced without force, and nothing half-written left behind."""
from __future__ import annotations

import pytest

from kwire.wire.errors import KwireError
from kwire.wire.files import ExistingFileError, atomic_directory, atomic_output, atomic_write, refuse_existing


def test_writes_a_new_file_and_creates_its_directory(tmp_path):
    target = tmp_path / "a" / "b" / "out.bin"
    assert atomic_write(target, b"\x00\x01", force=False) == target
    assert target.read_bytes() == b"\x00\x01"
    atomic_write(tmp_path / "t.txt", "héllo\n", force=False)
    assert (tmp_path / "t.txt").read_bytes() == "héllo\n".encode()


def test_refuses_an_existing_file_without_force_and_names_it(tmp_path):
    target = tmp_path / "keep.checkpoint"
    target.write_bytes(b"original")
    with pytest.raises(ExistingFileError) as raised:
        atomic_write(target, b"new", force=False)
    assert str(raised.value) == f"{target} already exists (use --force to replace it)"
    assert isinstance(raised.value, KwireError) and isinstance(raised.value, FileExistsError)
    assert target.read_bytes() == b"original"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.checkpoint"]


def test_force_replaces(tmp_path):
    target = tmp_path / "x"
    target.write_bytes(b"old")
    atomic_write(target, b"new", force=True)
    assert target.read_bytes() == b"new"


def test_refuse_existing_counts_a_dangling_symlink(tmp_path):
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ExistingFileError):
        refuse_existing(tmp_path / "link", force=False)
    refuse_existing(tmp_path / "other", force=False)


@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt()])
def test_a_write_failing_half_way_leaves_the_old_file_and_no_partial_one(tmp_path, failure):
    target = tmp_path / "00000000000000014403-0000000001.checkpoint"
    target.write_bytes(b"the node's own snapshot")
    with pytest.raises(type(failure)):
        with atomic_output(target, force=True) as out:
            out.write(b"half of the new")
            raise failure
    assert target.read_bytes() == b"the node's own snapshot"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_a_failed_first_write_leaves_nothing(tmp_path):
    target = tmp_path / "report.json"
    with pytest.raises(RuntimeError):
        with atomic_output(target, force=False, text=True) as out:
            out.write("{")
            raise RuntimeError("serializer failed")
    assert list(tmp_path.iterdir()) == []


def test_a_directory_appears_whole_or_not_at_all(tmp_path):
    target = tmp_path / "records"
    with atomic_directory(target, force=False) as folder:
        (folder / "part-00000.parquet").write_bytes(b"rows")
        assert not target.exists()  # nothing at the target while it is written
    assert [p.name for p in target.iterdir()] == ["part-00000.parquet"]
    with pytest.raises(ExistingFileError):
        with atomic_directory(target, force=False):
            raise AssertionError("refused before the block runs")
    with pytest.raises(OSError):
        with atomic_directory(target, force=True) as folder:
            (folder / "part-00000.parquet").write_bytes(b"half")
            raise OSError("disk full")
    assert (target / "part-00000.parquet").read_bytes() == b"rows"  # the old output, as it was
    with atomic_directory(target, force=True) as folder:
        (folder / "part-00001.parquet").write_bytes(b"new")
    assert [p.name for p in target.iterdir()] == ["part-00001.parquet"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records"]  # no temporary directory left
