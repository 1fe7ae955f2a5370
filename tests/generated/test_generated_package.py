"""The committed generated/ package is what the generator writes today, and everything imports."""
from __future__ import annotations

import importlib

import pytest

from kwire.cli.main import main
from tests.conftest import kafka_python_definitions
from tests.paths import MESSAGE_DEFS, REPO


def test_generated_package_is_not_stale(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["generate", "--check", "--defs", str(MESSAGE_DEFS), "--out", str(REPO / "generated")])
    out = capsys.readouterr().out
    assert code == 0, f"generated/ is stale; run `kwire generate`:\n{out}"


def test_check_reports_stale_files(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "pkg"
    assert main(["generate", "-q", "--defs", str(MESSAGE_DEFS), "--out", str(out_dir)]) == 0
    (out_dir / "api_versions_request.py").write_text("# edited by hand\n")
    (out_dir / "leftover.py").write_text("")
    assert main(["generate", "--check", "--defs", str(MESSAGE_DEFS), "--out", str(out_dir)]) == 1
    out = capsys.readouterr().out
    assert "api_versions_request.py" in out and "leftover.py" in out


def test_every_shipped_message_imports_and_is_indexed() -> None:
    generated = importlib.import_module("generated")
    names = {p.stem for p in MESSAGE_DEFS.rglob("*.json")}
    assert len(generated.MESSAGES) == len(names)
    for name, cls in generated.MESSAGES.items():
        assert cls.NAME == name
        low, high = cls.VALID_VERSIONS
        assert low <= high


def test_every_kafka_python_definition_generates_and_imports(kp_generated) -> None:
    files = list(kafka_python_definitions().glob("*.json"))
    assert len(kp_generated.MESSAGES) == len(files) > 100
    for cls in kp_generated.MESSAGES.values():
        low, high = cls.VALID_VERSIONS
        # a default instance encodes and decodes at every version
        for version in range(low, high + 1):
            obj = cls()
            data = obj.encode(version)
            assert cls.decode(data, version) == obj
