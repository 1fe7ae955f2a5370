"""The compiled wheel (setup.py with KWIRE_COMPILE, `make wheel`), installed into a fresh venv.

Compiling every module takes minutes, so this wheel compiles only WHEEL_SUBSET: the messages
whose captured frames prove the point (real client and broker traffic of both flexible and
classic versions, tagged fields, uuids, nested arrays, record batches) and nothing more. The
test proves what `make wheel` promises: the wheel is a platform wheel holding both the
extension modules and the pure .py files; in the installed package the compiled modules are
the ones imported, and every canonical captured frame of those messages decodes to the same
values as the pure build and re-encodes to the same bytes; the messages left out stay pure
Python and still work. The mypyc build directory is kept under build/kwire-wheel-test (a
content-keyed cache), so a rerun compiles only what changed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.installed import build, copy_sources, fresh_venv, run
from tests.network.test_captures import all_seen, deviation
from tests.optional import need_toolchain
from tests.paths import REPO

WHEEL_SUBSET = ("ApiVersionsRequest", "ApiVersionsResponse", "MetadataRequest", "MetadataResponse", "ProduceRequest")
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


@pytest.fixture
def compiled_wheel(tmp_path_factory) -> Path:
    need_toolchain()
    root = tmp_path_factory.mktemp("compiled-wheel")  # the sources and the wheel
    build(copy_sources(root / "src"), root / "dist", "--wheel",
          env={"KWIRE_COMPILE": ",".join(WHEEL_SUBSET),
               "KWIRE_COMPILE_BUILD_DIR": str(REPO / "build" / "kwire-wheel-test"),
               "KWIRE_RECORD_DECODER_CACHE": str(REPO / "build" / "record-decoder")})
    (wheel,) = (root / "dist").glob("*.whl")
    return wheel


def module_file(name: str) -> str:
    from kwire import generated

    return generated.MESSAGES[name].__module__.rsplit(".", 1)[1]


def check_platform_wheel_with_both_builds(compiled_wheel: Path) -> None:
    tag = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert compiled_wheel.name == f"kwire-0.1.0-cp311-cp311-{tag}.whl"
    names = set(zipfile.ZipFile(compiled_wheel).namelist())
    compiled = {n.removeprefix("kwire/generated/").removesuffix(SUFFIX) for n in names
                if n.startswith("kwire/generated/") and n.endswith(SUFFIX)}
    subset = {module_file(name) for name in WHEEL_SUBSET}
    # per module its shim and its library; the base class compiled once, in its own pair
    # (and the native RecordsView, in its own pair: ProduceRequest has a records field)
    assert compiled == subset | {f"{m}__mypyc" for m in subset} | {"_base", "_base__mypyc", "_records_view",
                                                                    "_records_view__mypyc"}
    records = {n for n in names if n.startswith("kwire/records/") and n.endswith(SUFFIX)}
    assert records == {f"kwire/records/_column_decoder_c{SUFFIX}", f"kwire/records/_column_decoder_mypyc{SUFFIX}",
                       f"kwire/records/_column_decoder_mypyc__mypyc{SUFFIX}"}
    assert "kwire/records/column_decoder.py" in names
    for module in subset:
        assert f"kwire/generated/{module}.py" in names  # the fallback stays
    assert "kwire/generated/find_coordinator_request.py" in names
    # the C flavour's generated source, whose digest says the build is current; no other C
    assert {n for n in names if n.endswith(".c")} == {"kwire/records/column_decoder_c.c"}


# Runs inside the fresh venv: decode the frames it is given with the installed kwire.
DECODE = textwrap.dedent("""
    import json, sys
    import kwire.generated as g

    frames = json.load(open(sys.argv[1]))
    out = []
    for frame in frames:
        cls = g.MESSAGES[frame["name"]]
        module = sys.modules[cls.__module__]
        body = open(frame["path"], "rb").read()[frame["start"]:]
        obj = cls.decode(body, frame["version"])
        out.append({"file": module.__file__, "json": obj.to_dict(frame["version"]),
                    "same_bytes": obj.encode(frame["version"]) == body})
    print(json.dumps(out))
""")


# One test, not two: pytest-xdist would build the wheel once per worker.
def test_the_compiled_wheel_installs_and_decodes_captured_frames_byte_exactly(compiled_wheel, tmp_path):
    check_platform_wheel_with_both_builds(compiled_wheel)
    # Only what `pip install kwire` brings (no extra): a runtime dependency the compiled code needs
    # and the wheel does not declare (librt, mypyc's runtime, once) shows here as a pure fallback.
    venv = fresh_venv(compiled_wheel, tmp_path / "venv", extras=False)
    frames, expected = [], []
    for seen in all_seen():
        if seen.parsed is None or deviation(seen.capture, seen.entry) is not None:
            continue
        name, version = type(seen.parsed.body).NAME, seen.entry["api_version"]
        frames.append({"name": name, "version": version, "start": seen.body_start(),
                       "path": str(REPO / "tests" / "data" / "captures" / seen.capture / "raw" / seen.entry["file"])})
        expected.append(json.loads(json.dumps(seen.parsed.body.to_dict(version))))  # the pure build of this checkout
    (tmp_path / "frames.json").write_text(json.dumps(frames))
    (tmp_path / "decode.py").write_text(DECODE)
    env = {**os.environ, "PYTHONPATH": ""}
    out = json.loads(run([str(venv / "bin" / "python"), str(tmp_path / "decode.py"), str(tmp_path / "frames.json")],
                         cwd=tmp_path, env=env).stdout)
    compiled_names = set()
    for frame, result, pure in zip(frames, out, expected, strict=True):
        where = Path(result["file"])
        assert "site-packages" in where.parts, where
        assert where.name.endswith(SUFFIX) == (frame["name"] in WHEEL_SUBSET), where
        assert result["same_bytes"], frame
        assert result["json"] == pure, frame
        if where.name.endswith(SUFFIX):
            compiled_names.add(frame["name"])
    assert compiled_names == set(WHEEL_SUBSET)  # every compiled message met a captured frame
    assert len(frames) - sum(f["name"] in WHEEL_SUBSET for f in frames) > 50  # and the pure ones worked beside them
    check_doctor(venv, tmp_path)
    # building the record decoder again needs mypyc and the C toolchain: an environment with them
    check_build_native(fresh_venv(compiled_wheel, tmp_path / "venv-with-tools"), tmp_path)


def doctor(venv: Path, cwd: Path) -> tuple[int, dict]:
    """The installed ``kwire doctor --json``: (exit status, report)."""
    result = subprocess.run([str(venv / "bin" / "kwire"), "doctor", "--json"], cwd=cwd, capture_output=True,
                            text=True, env={**os.environ, "PYTHONPATH": ""}, timeout=300)
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def check_doctor(venv: Path, tmp_path: Path) -> None:
    code, report = doctor(venv, tmp_path)
    decoder, codecs = report["parts"]["record_decoder"], report["parts"]["codecs"]
    assert decoder["compiled"] is True and decoder["reason"] is None and decoder["flavour"] == "c", decoder
    assert "site-packages" in Path(decoder["location"]).parts
    assert codecs["compiled_modules"] == len(WHEEL_SUBSET) and codecs["modules"] > 200, codecs
    assert code == 1 and codecs["compiled"] is False and "modules on the hot path are plain Python" in codecs["reason"]
    version = run([str(venv / "bin" / "kwire"), "--version"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": ""})
    assert version.stdout.splitlines()[1].startswith("record decoder: compiled (c); codecs: 5 of ")


def check_build_native(venv: Path, tmp_path: Path) -> None:
    _, report = doctor(venv, tmp_path)
    decoder = report["parts"]["record_decoder"]
    assert decoder["compiled"] is True, decoder

    run([str(venv / "bin" / "python"), "-m", "kwire.generator.native.records", "--remove"], cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ""})
    _, report = doctor(venv, tmp_path)
    assert report["parts"]["record_decoder"] == {**decoder, "compiled": False, "compiled_modules": 0,
                                                 "flavour": "python", "reason": "not built (run: kwire build-native)"}

    run([str(venv / "bin" / "kwire"), "build-native", "--cache", str(REPO / "build" / "record-decoder-cli")],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": ""})
    _, report = doctor(venv, tmp_path)
    assert report["parts"]["record_decoder"] == decoder
