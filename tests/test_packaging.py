"""kwire as people install it: one top-level package, a wheel that works outside the repository.

The wheel is built from a copy of the project's sources, installed into a fresh virtual
environment (tests/installed.py), and used from a directory outside the checkout: import the shipped codecs,
decode a captured frame, generate and import a package of one's own, type-check a user script.
"""
from __future__ import annotations

import os
import subprocess
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.installed import build, copy_sources, fresh_venv
from tests.installed import run as _run
from tests.paths import CAPTURES, KRAFT_361, REPO


def test_pyproject_lists_every_package():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {"kwire.generator.emit.templates"}  # data only: the jinja2 templates
    for package, folder in config["package-dir"].items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            on_disk.add(".".join([package, *init.parent.relative_to(root).parts]))
    assert sorted(config["packages"]) == sorted(on_disk)


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """An sdist and a wheel built from a copy of the sources."""
    root = tmp_path_factory.mktemp("wheel")
    made = build(copy_sources(root / "src"), root / "dist")
    warnings = [line for line in (made.stdout + made.stderr).splitlines() if "warning" in line.lower()]
    assert warnings == [], "\n".join(warnings)
    return root / "dist"


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Path:
    """A fresh virtual environment with only the wheel installed (dependencies seen through .pth)."""
    (wheel,) = dist.glob("*.whl")
    return fresh_venv(wheel, tmp_path_factory.mktemp("venv") / "env")


@pytest.fixture(scope="module")
def bare_venv(dist, tmp_path_factory) -> Path:
    """The wheel installed without extras: only the distributions it requires are importable."""
    (wheel,) = dist.glob("*.whl")
    return fresh_venv(wheel, tmp_path_factory.mktemp("bare") / "env", extras=False)


def test_kwire_without_extras_decodes_frames_and_logs_and_names_the_extras_it_lacks(bare_venv, tmp_path):
    env = {**os.environ, "PYTHONPATH": ""}
    python, kwire = str(bare_venv / "bin" / "python"), str(bare_venv / "bin" / "kwire")
    absent = _run([python, "-c", "import importlib.util as u; print([n for n in ('jinja2', 'jsonschema', 'construct', "
                                 "'pyarrow', 'pyspark', 'hypothesis') if u.find_spec(n)])"], cwd=tmp_path, env=env)
    assert absent.stdout == "[]\n"  # none of the extras' libraries is there
    raw = CAPTURES / "tansu" / "raw"
    frame = _run([kwire, "frame", str(raw / "c01_resp_0000_k18_v3_corr1.bin"), "--request",
                  str(raw / "c01_req_0000_k18_v3_corr1.bin"), "--json"], cwd=tmp_path, env=env)
    assert '"apiKeys"' in frame.stdout
    dump = _run([kwire, "dump", str(KRAFT_361 / "__cluster_metadata-0")], cwd=tmp_path, env=env)
    assert "PartitionRecord" in dump.stdout
    _run([python, "-c", "import sys, kwire, kwire.generated, kwire.logs.metadata_log; "
                        "assert not [m for m in sys.modules if m.startswith(('kwire.spark', 'kwire.generator'))]"],
         cwd=tmp_path, env=env)
    for argv, line in [
        (["generate", "--defs", "kwire:builtin", "--out", "mine"],
         "kwire generate: jinja2 and jsonschema are not installed; install kwire[generator]"),
        (["validate", "kwire:builtin"], "kwire validate: jsonschema is not installed; install kwire[generator]"),
        (["decode", str(KRAFT_361), "--out", "decoded"],
         "kwire decode: pyarrow is not installed; install kwire[arrow]"),
    ]:
        refused = subprocess.run([kwire, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert (refused.returncode, refused.stderr) == (2, line + "\n")
    assert not (tmp_path / "mine").exists() and not (tmp_path / "decoded").exists()


def test_the_wheel_holds_one_top_level_package(dist):
    (wheel,) = dist.glob("*.whl")
    assert wheel.name == "kwire-0.1.0-py3-none-any.whl"  # without KWIRE_COMPILE (setup.py): pure Python
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {"kwire", "kwire-0.1.0.dist-info"}
    assert [name for name in names if name.endswith((".so", ".pyd"))] == []
    # C only as the source `kwire build-native` compiles the record decoder's C flavour from
    assert [name for name in names if name.endswith(".c")] == ["kwire/records/column_decoder_c.c"]
    for expected in ("kwire/py.typed", "kwire/generated/py.typed", "kwire/generated/api_versions_response.py",
                     "kwire/generator/definitions/definition_schema.json",
                     "kwire/generator/emit/templates/module.py.j2",
                     "kwire/message_defs/ApiVersionsResponse.json"):
        assert expected in names
    (sdist,) = dist.glob("*.tar.gz")
    assert sdist.name == "kwire-0.1.0.tar.gz"


def test_installed_kwire_decodes_generates_and_type_checks(venv, tmp_path):
    python = str(venv / "bin" / "python")
    work = tmp_path / "outside"  # not inside the checkout: only the installed package is importable
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": ""}

    # the shipped codecs decode a frame a real client sent, and a broker's answer to it
    script = work / "decode.py"
    script.write_text(textwrap.dedent("""
        import sys
        import kwire, kwire.generated
        from kwire.network.framing import Correlator
        assert "site-packages" in kwire.generated.__file__, kwire.generated.__file__
        correlator = Correlator()
        request = correlator.parse_request(open(sys.argv[1], "rb").read())
        response = correlator.parse_response(open(sys.argv[2], "rb").read())
        print(type(request.body).__name__, type(response.body).__name__, len(response.body.api_keys))
    """))
    raw = CAPTURES / "tansu" / "raw"
    out = _run([python, str(script), str(raw / "c01_req_0000_k18_v3_corr1.bin"),
                str(raw / "c01_resp_0000_k18_v3_corr1.bin")], cwd=work, env=env).stdout.split()
    assert out[:2] == ["ApiVersionsRequest", "ApiVersionsResponse"] and int(out[2]) > 10

    # a definitions folder of one's own -> a package that imports only kwire
    defs = work / "defs"
    defs.mkdir()
    (defs / "GreetingRecord.json").write_text(textwrap.dedent("""
        // a user's own message
        { "type": "data", "name": "GreetingRecord", "validVersions": "0-1", "flexibleVersions": "1+",
          "fields": [
            { "name": "Text", "type": "string", "versions": "0+" },
            { "name": "Count", "type": "int32", "versions": "1+", "default": "1" }
          ] }
    """))
    kwire = str(venv / "bin" / "kwire")
    version, compiled = _run([kwire, "--version"], cwd=work, env=env).stdout.splitlines()
    assert version == "kwire 0.1.0"  # then what runs compiled: nothing in the pure wheel, and how to build it
    assert compiled.startswith("record decoder: plain Python, not built (run: kwire build-native); codecs: 0 of ")
    _run([kwire, "generate", "--defs", "defs", "--out", "mypkg"], cwd=work, env=env)
    _run([kwire, "validate", "kwire:builtin"], cwd=work, env=env)
    _run([kwire, "generate", "--defs", "kwire:builtin", "--out", "shipped"], cwd=work, env=env)
    # every shipped definition is in the wheel, the storage/ subfolder's too
    _run([python, "-c", "import shipped, kwire.generated as g; assert len(shipped.MESSAGES) == len(g.MESSAGES)"
                        " and 'RemoteLogSegmentMetadataRecord' in shipped.MESSAGES"], cwd=work, env=env)
    roundtrip = "from mypkg import GreetingRecord as G; g = G(text='hi', count=3); assert G.decode(g.encode(1), 1) == g"
    _run([python, "-c", roundtrip], cwd=work, env=env)
    _run([python, "-m", "kwire", "--help"], cwd=work, env=env)

    # the generated classes' types reach a user's type checker (py.typed)
    user = work / "user.py"
    user.write_text(textwrap.dedent("""
        from kwire.generated import ApiVersionsResponse
        from kwire.generated.api_versions_response import ApiVersion

        response = ApiVersionsResponse(api_keys=[ApiVersion(api_key=18, max_version=4)])
        throttle: int = response.throttle_time_ms
        name: str = response.error_code
        found = response.api_keys.find(18)  # a mapKey array: KeyedList[ApiVersion]
        assert found is not None and found.max_version == 4
        wrong: str | None = response.api_keys.find(18)
    """))
    checked = subprocess.run([python, "-m", "mypy", "--no-error-summary", "--cache-dir", str(work / ".mypy"),
                              "user.py"],
                             cwd=work, env=env, capture_output=True, text=True, timeout=600)
    # exactly the two deliberate mistakes: the annotations are seen, nothing is Any
    assert checked.stdout.strip().splitlines() == [
        'user.py:7: error: Incompatible types in assignment (expression has type "int", '
        'variable has type "str")  [assignment]',
        'user.py:10: error: Incompatible types in assignment (expression has type "ApiVersion | None", '
        'variable has type "str | None")  [assignment]',
    ], checked.stdout + checked.stderr
