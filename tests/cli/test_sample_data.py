"""`make run` decodes the sample data directory examples/sample_data.py writes: keep it readable."""
from __future__ import annotations

import importlib.util

from kwire.cli.main import main as kwire
from kwire.logs.metadata_log import read_metadata_log
from kwire.records import Codec, FileBatchReader
from tests.paths import REPO


def load_example():
    spec = importlib.util.spec_from_file_location("sample_data", REPO / "examples" / "sample_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sample_data_reads_back_and_dumps(tmp_path, capsys) -> None:
    assert load_example().main([str(tmp_path)]) == 0
    names = [e.record.name for b in read_metadata_log(tmp_path / "__cluster_metadata-0" / "00000000000000000000.log")
             for e in b.entries if not b.is_control]
    assert names.count("PartitionRecord") == 3 and "TopicRecord" in names and "RegisterBrokerRecord" in names
    batches = list(FileBatchReader(tmp_path / "orders-0" / "00000000000000000000.log"))
    assert {b.compression for b in batches if not b.is_control} == set(Codec)
    assert batches[-1].is_control and sum(len(list(b)) for b in batches) == 5 * len(Codec) + 2
    capsys.readouterr()
    assert kwire(["dump", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "TopicRecord v0" in out and "control COMMIT" in out
