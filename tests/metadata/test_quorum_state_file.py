"""A broken ``quorum-state`` beside a metadata log: ``metadata quorum``, which needs it, names the file.
(``metadata image`` reads it only for a leader the log lost, and goes by the log when it is broken.)"""
from __future__ import annotations

import shutil

import pytest

from kwire.cli.main import main as kwire_main
from tests.paths import KRAFT_361


@pytest.mark.parametrize(("content", "problem"), [
    (b"", "quorum-state is empty"),
    (b"\n", "quorum-state is empty"),
    (b'{"leaderId": ', "quorum-state is not JSON: Expecting value: line 1 column 14 (char 13)"),
])
def test_a_broken_quorum_state_is_named(tmp_path, capsys, content, problem):
    data = tmp_path / "data"
    shutil.copytree(KRAFT_361, data)
    state = data / "__cluster_metadata-0" / "quorum-state"
    state.write_bytes(content)
    assert kwire_main(["metadata", "quorum", str(data)]) == 2
    assert capsys.readouterr().err == f"kwire metadata quorum: {state}: {problem}\n"
