"""Every output of every command is refused before anything is written (issue 37 §1): whichever
one of a command's outputs exists, the command exits 1, names it, and writes nothing at all — not
the outputs that are free, not a temporary file. Each case first checks, on an empty folder, that
the listed outputs are what the command writes, so no refusal below is vacuous."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from kwire.cli.main import main
from tests.optional import need_module
from tests.paths import KAFKA_DEFINITIONS, KRAFT_361

CLUSTER = "MkU3OEVBNTcwNTJENDM2Qk"  # the cluster id of Kafka's own quickstart
DIRECTORY_ID = "4znU-ou9Taa06bmEJxsjnw"
NEWER = KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients" / "FetchRequest.json"
OLDER = KAFKA_DEFINITIONS / "history" / "FetchRequest@771b9576b00e.json"


@dataclass(frozen=True)
class Command:
    argv: Callable[[Path], list[str]]  # the command writing into the folder it is given
    outputs: tuple[str, ...]  # what it writes there (a trailing / for a directory)
    needs: tuple[str, ...] = ()  # optional modules


COMMANDS = {
    "storage format": Command(
        lambda out: ["storage", "format", "--cluster-id", CLUSTER, "--node-id", "1", "--standalone",
                     "--controller-listener", "CONTROLLER://localhost:9093", "--directory-id", DIRECTORY_ID,
                     "--timestamp", "0", "--out", str(out), "-q"],
        ("meta.properties", "bootstrap.checkpoint",
         "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint")),
    "metadata snapshot": Command(
        lambda out: ["metadata", "snapshot", str(KRAFT_361), "--out", str(out / "image.checkpoint"), "-q"],
        ("image.checkpoint",)),
    "metadata downgrade-matrix": Command(
        lambda out: ["metadata", "downgrade-matrix", str(KRAFT_361), "--out", str(out / "matrix.json"),
                     "--picture", str(out / "matrix.png"), "-q"],
        ("matrix.json", "matrix.png"), ("matplotlib",)),
    "decode": Command(
        lambda out: ["decode", str(KRAFT_361 / "bootstrap.checkpoint"), "--out", str(out / "records"), "-q"],
        ("records/",), ("pyarrow",)),
    "schemas": Command(
        lambda out: ["schemas", "--out", str(out), "--messages", "ApiVersionsRequest", "-q"],
        ("ApiVersionsRequest/v0.spark.json", "ApiVersionsRequest/all.arrow", "_records.spark.json", "_records.arrow"),
        ("pyspark", "pyarrow")),
    "merge-versions": Command(
        lambda out: ["merge-versions", str(NEWER), str(OLDER), "--out", str(out / "FetchRequest.json"), "-q"],
        ("FetchRequest.json",)),
    "fuzz --report": Command(
        lambda out: ["fuzz", "--messages", "ApiVersionsRequest", "--cases", "2", "--report", str(out), "-q"],
        ("report.json", "report.md", "ApiVersionsRequest.png"), ("matplotlib",)),
    "fuzz --bytes --report": Command(
        lambda out: ["fuzz", "--bytes", "--cases", "2", "--target", "records:control", "--report", str(out), "-q"],
        ("hostile.json",)),
}
CASES = [(name, output) for name, command in COMMANDS.items() for output in command.outputs]


def _everything(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def _plant(root: Path, output: str) -> None:
    """The user's own file (or folder, for an output ending in /) where the command would write."""
    path = root / output
    if output.endswith("/"):
        path.mkdir(parents=True)
        (path / "keep").write_bytes(b"the user's own")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"the user's own")


@pytest.mark.parametrize("name", COMMANDS)
def test_the_outputs_listed_are_what_the_command_writes(name, tmp_path):
    command = COMMANDS[name]
    for module in command.needs:
        need_module(module)
    assert main(command.argv(tmp_path)) in (0, 1)  # fuzz may find what it finds; the files are written
    for output in command.outputs:
        assert (tmp_path / output).exists(), output


@pytest.mark.parametrize(("name", "output"), CASES, ids=[f"{n}:{o}" for n, o in CASES])
def test_any_existing_output_is_refused_before_anything_is_written(name, output, tmp_path, capsys):
    command = COMMANDS[name]
    for module in command.needs:
        need_module(module)
    _plant(tmp_path, output)
    before = _everything(tmp_path)
    assert main(command.argv(tmp_path)) == 1
    err = capsys.readouterr().err
    if (name, output) == ("storage format", "meta.properties"):  # a formatted directory, in kafka-storage's words
        assert f"Log directory {tmp_path} is already formatted. Use --ignore-formatted" in err
    else:
        assert f"{tmp_path / output.rstrip('/')} already exists (use --" in err
    assert _everything(tmp_path) == before  # the user's file as it was, nothing beside it
