"""kwire.wire.files: no existing file replaced without force, and nothing half-written left behind."""
from __future__ import annotations

import os
import stat

import pytest

from kwire.wire.errors import KwireError
from kwire.wire.files import (
    ExistingFileError,
    atomic_directory,
    atomic_output,
    atomic_write,
    current_umask,
    refuse_existing,
)


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


@pytest.fixture
def umask():
    """Set the process's umask for one test and put the old one back."""
    old = os.umask(0o022)
    try:
        yield os.umask
    finally:
        os.umask(old)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
@pytest.mark.parametrize("data", [b"\x00\x01", "text\n"], ids=["bytes", "text"])
def test_a_written_file_has_the_umask_s_mode_as_kafka_storage_format_leaves_it(tmp_path, umask, mask, mode, data):
    # A node formatted by an operator and run as the `kafka` user must read its own meta.properties.
    umask(mask)
    target = atomic_write(tmp_path / "meta.properties", data, force=False)
    assert stat.S_IMODE(target.stat().st_mode) == mode
    atomic_write(target, data, force=True)  # a replaced file too
    assert stat.S_IMODE(target.stat().st_mode) == mode


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o755), (0o077, 0o700)])
def test_a_written_directory_has_the_umask_s_mode(tmp_path, umask, mask, mode):
    umask(mask)
    with atomic_directory(tmp_path / "records", force=False):
        pass
    assert stat.S_IMODE((tmp_path / "records").stat().st_mode) == mode


def test_current_umask_reads_without_changing_it(umask):
    for mask in (0o022, 0o077, 0o000, 0o027):
        umask(mask)
        assert current_umask() == mask
        assert os.umask(mask) == mask  # still what it was


def test_the_temporary_file_sits_in_the_target_s_own_directory_and_is_renamed_not_copied(tmp_path):
    # A temporary file elsewhere (/tmp) would make the rename cross file systems: a copy, not atomic.
    target = tmp_path / "deep" / "bootstrap.checkpoint"
    with atomic_output(target, force=False) as out:
        out.write(b"snapshot")
        inode = os.fstat(out.fileno()).st_ino
        beside = {p.stat().st_ino: p.name for p in target.parent.iterdir()}
        assert inode in beside and beside[inode].startswith(".bootstrap.checkpoint.")
    assert target.stat().st_ino == inode  # the very file written, renamed
    assert [p.name for p in target.parent.iterdir()] == ["bootstrap.checkpoint"]


def test_the_temporary_directory_sits_beside_the_target(tmp_path):
    with atomic_directory(tmp_path / "records", force=False) as folder:
        assert folder.parent == tmp_path and folder.stat().st_dev == tmp_path.stat().st_dev
