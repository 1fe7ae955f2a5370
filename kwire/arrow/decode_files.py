"""``kwire decode`` without Spark: log files to a directory of Parquet or JSON parts, streaming.

The input is planned as for Spark (:func:`kwire.arrow.splits.plan`: the same pieces, cut at batch
boundaries) and each split is decoded by :func:`kwire.arrow.pieces.read_pieces` and written to a
part file of its own, batch by batch, so memory holds a split's bytes and a batch of rows per
process whatever the size of the input. Splits run in a pool of processes (one per core), except
for small inputs, which are quicker to decode here than to hand to fresh processes.

The parts are written into a temporary directory beside ``out`` that becomes ``out`` (with a
``_SUCCESS`` file, as Spark's writers leave) only once every split is written.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from kwire.arrow import splits
from kwire.arrow.logfiles import LogFile
from kwire.arrow.options import ScanOptions
from kwire.arrow.output import SUFFIXES, Tally, WrittenSummary, write_part
from kwire.arrow.pieces import ReadOptions, read_pieces
from kwire.wire.errors import KwireError
from kwire.wire.files import atomic_directory

#: Below this many bytes of input, decoding here beats starting processes (about half a second).
IN_PROCESS_BYTES = 16 * 1024 * 1024


class SplitFailed(KwireError):
    """A split that did not decode: the error of the process that read it, as text."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        self.message = message
        super().__init__(f"{kind}: {message}")


@dataclass(frozen=True)
class _Job:
    index: int
    pieces: list[splits.Piece]
    read_options: ReadOptions
    folder: Path
    output_format: str
    always: bool  # write a file even without rows (the first part: the schema of an empty output)


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def decode_to_directory(path: str, out: Path, output_format: str = "parquet", *, overwrite: bool = False,
                        options: Mapping[str, object] | None = None, jobs: int | None = None,
                        progress: Callable[[int, int], None] | None = None,
                        files: list[LogFile] | None = None) -> WrittenSummary:
    """Decode every Kafka log file under ``path`` into part files in the directory ``out``.

    ``options`` as :func:`kwire.arrow.reader.iter_record_batches` takes them; ``jobs`` processes
    (default: one per core); ``progress(done, total)`` after each split. An existing ``out`` is an
    error (:class:`kwire.wire.files.ExistingFileError`) unless ``overwrite``. Input that does not
    decode raises :class:`SplitFailed` naming the file and byte offset, and leaves ``out`` as it was.
    ``files``: what :func:`kwire.arrow.logfiles.discover` found under ``path``, when the caller has
    listed it already (a bucket is listed once, not once per check).
    """
    if output_format not in SUFFIXES:
        raise ValueError(f"output format must be one of {', '.join(SUFFIXES)}, not {output_format!r}")
    given = {"path": str(path), **{k.replace("_", "").lower(): str(v) for k, v in (options or {}).items()}}
    scan = ScanOptions.parse(given)
    files = scan.files() if files is None else files
    read_options = scan.read_options(files)
    total = sum(f.size for f in files)
    jobs = 1 if total < IN_PROCESS_BYTES else max(1, jobs or default_jobs())
    plan = splits.plan(files, scan.max_split_bytes, max(scan.min_partitions, jobs))
    with atomic_directory(out, force=overwrite) as folder:
        work = [_Job(i, pieces, read_options, folder, output_format, i == 0) for i, pieces in enumerate(plan)]
        tally = _run(work, min(jobs, len(work)), progress)
        (folder / "_SUCCESS").write_bytes(b"")
    return tally.summary()


def _run(work: list[_Job], jobs: int, progress: Callable[[int, int], None] | None) -> Tally:
    tally = Tally()
    if jobs <= 1:
        for done, job in enumerate(work, 1):
            tally.merge(_check(_write_split(job)))
            if progress:
                progress(done, len(work))
        return tally
    import multiprocessing

    # forkserver: workers start from a clean process (no threads of this one copied), once each
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("forkserver")) as pool:
        pending = {pool.submit(_write_split, job) for job in work}
        done_count = 0
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for future in finished:
                    tally.merge(_check(future.result()))
                    done_count += 1
                    if progress:
                        progress(done_count, len(work))
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    return tally


def _check(result: Tally | tuple[str, str]) -> Tally:
    if isinstance(result, tuple):
        raise SplitFailed(*result)
    return result


def _write_split(job: _Job) -> Tally | tuple[str, str]:
    """One split into ``part-NNNNN``; a KwireError comes back as (type name, message), which
    survives the trip between processes whatever the error's constructor takes."""
    part = job.folder / f"part-{job.index:05d}{SUFFIXES[job.output_format]}"
    try:
        return write_part(part, job.output_format, job.read_options.schema(),
                          read_pieces(job.pieces, job.read_options), always=job.always)
    except KwireError as err:
        return type(err).__name__, str(err)
