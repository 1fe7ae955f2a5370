"""`kwire generate --compile`, the sources it compiles, and the pure build's lazy defaults.

The compiled build itself is exercised in test_compiled_build.py; here: the compile flavour of
every module behaves like the pure one when simply run by CPython (so the whole package, not
only the compiled subset, is checked), a missing toolchain is reported cleanly, and stale
extension modules never shadow regenerated sources.
"""
from __future__ import annotations

import importlib
import random
import sys

import pytest

from kwire import generated
from kwire.cli.main import main
from kwire.fuzz.values import random_instance
from kwire.generator.definitions.loader import load_definitions
from kwire.generator.emit import render_all, write_package
from kwire.generator.native.build import NATIVE_BASE, extension_suffix, native_package, write_sources
from kwire.wire.errors import KwireError
from tests.paths import MESSAGE_DEFS


@pytest.fixture(scope="module")
def native_flavour(tmp_path_factory):
    """The sources `--compile` hands to mypyc, imported as plain Python (package ``kwnative``)."""
    root = tmp_path_factory.mktemp("native")
    files = native_package(load_definitions([MESSAGE_DEFS]))
    assert NATIVE_BASE in files
    write_package(files, root / "kwnative")
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("kwnative")
    finally:
        sys.path.remove(str(root))


def outcome(cls, data: bytes, version: int):
    try:
        return cls.decode(data, version).to_dict(version)
    except KwireError as exc:
        return type(exc).__name__, getattr(exc, "reason", ""), getattr(exc, "path", ""), getattr(exc, "offset", None)


@pytest.mark.parametrize("name", sorted(generated.MESSAGES))
def test_compile_flavour_reads_like_the_pure_build(name: str, native_flavour) -> None:
    pure, native = generated.MESSAGES[name], native_flavour.MESSAGES[name]
    low, high = pure.VALID_VERSIONS
    rng = random.Random(name)
    for version in range(low, high + 1):
        for _ in range(4):
            obj = random_instance(pure, version, rng)
            data = obj.encode(version)
            twin = native.decode(data, version)
            assert twin.to_dict(version) == obj.to_dict(version), version
            assert twin.encode(version) == data, version
            for end in sorted({0, len(data) // 3, len(data) // 2, len(data) - 1} - {len(data)}):
                assert outcome(native, data[:end], version) == outcome(pure, data[:end], version), (version, end)


def test_missing_compiler_is_reported_and_the_pure_package_stays(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("CC", "/nonexistent/kwire-test-cc")
    out = tmp_path / "pkg"
    code = main(["generate", "-q", "--compile", "--defs", str(MESSAGE_DEFS), "--out", str(out)])
    assert code == 1
    assert "cannot compile: no C compiler found" in capsys.readouterr().err
    assert (out / "api_versions_response.py").is_file() and not list(out.glob("*" + extension_suffix()))


def test_compile_refuses_a_package_with_nothing_on_the_hot_path(tmp_path, capsys) -> None:
    defs = tmp_path / "defs"
    defs.mkdir()
    (defs / "GreetingRecord.json").write_text(
        '{"type": "data", "name": "GreetingRecord", "validVersions": "0", "flexibleVersions": "none", '
        '"fields": [{"name": "Text", "type": "string", "versions": "0+"}]}')
    out = tmp_path / "pkg"
    assert main(["generate", "-q", "--compile", "--defs", str(defs), "--out", str(out)]) == 1
    assert capsys.readouterr().err == (
        f"kwire generate --compile: no definition in {defs} is on the hot path, so nothing is compiled (the "
        "plain modules run about as fast); --compile all compiles them anyway\n")
    assert (out / "greeting_record.py").is_file() and not list(out.glob("*" + extension_suffix()))
    from kwire.generator.native.build import native_sources

    with pytest.raises(ValueError, match="no definition is on the hot path"):  # the library says so too
        native_sources(load_definitions([defs]))


def test_regenerating_changed_sources_drops_compiled_modules(tmp_path) -> None:
    files = render_all(load_definitions([MESSAGE_DEFS]))
    out = tmp_path / "pkg"
    write_sources(files, out)
    stand_in = out / ("api_versions_response" + extension_suffix())  # what a compiled build leaves
    stand_in.write_bytes(b"")
    assert write_sources(files, out) == [] and stand_in.exists()  # unchanged sources: kept
    files["api_versions_response.py"] += "# changed\n"
    assert stand_in.name in write_sources(files, out)
    assert not stand_in.exists()


def test_kwire_generate_drops_compiled_modules_its_new_sources_replace(tmp_path) -> None:
    defs = tmp_path / "defs"
    defs.mkdir()
    definition = (MESSAGE_DEFS / "SaslHandshakeRequest.json").read_text()
    (defs / "SaslHandshakeRequest.json").write_text(definition)
    out = tmp_path / "pkg"
    assert main(["generate", "-q", "--defs", str(defs), "--out", str(out)]) == 0
    stand_in = out / ("sasl_handshake_request" + extension_suffix())
    stand_in.write_bytes(b"")
    changed = definition.replace('"validVersions": "0-1"', '"validVersions": "1"')
    (defs / "SaslHandshakeRequest.json").write_text(changed)
    assert main(["generate", "-q", "--defs", str(defs), "--out", str(out)]) == 0
    assert not stand_in.exists()


# --- lazily made defaults in the pure build ---------------------------------------------------

def test_absent_tagged_structs_are_made_on_first_read_and_kept() -> None:
    from kwire.generated.fetch_response import EpochEndOffset, PartitionData

    data = PartitionData(partition_index=1, records=b"").encode(12)
    first, second = PartitionData.decode(data, 12), PartitionData.decode(data, 12)
    with pytest.raises(AttributeError):  # decoding left the slot unset: nothing was built yet
        PartitionData.__dict__["diverging_epoch"].__get__(first, PartitionData)
    default = first.diverging_epoch
    assert default == EpochEndOffset() and first.diverging_epoch is default
    assert second.diverging_epoch is not default
    default.epoch = 9  # the caller may mutate it, and the change is kept and encoded
    assert first.diverging_epoch.epoch == 9 and second.diverging_epoch.epoch == -1
    assert PartitionData.decode(first.encode(12), 12).diverging_epoch.epoch == 9
    assert first != second and second == PartitionData.decode(data, 12)
    with pytest.raises(AttributeError):
        first.no_such_field  # noqa: B018


def test_absent_arrays_of_older_versions_are_fresh_lists() -> None:
    from kwire.generated.api_versions_response import ApiVersionsResponse

    old = ApiVersionsResponse.decode(ApiVersionsResponse().encode(0), 0)  # v0 has no feature arrays
    old.supported_features.append(1)
    assert ApiVersionsResponse.decode(ApiVersionsResponse().encode(0), 0).supported_features == []
    assert type(old.finalized_features).__name__ == "KeyedList"


def test_the_native_records_view_is_compiled_with_modules_that_make_views() -> None:
    # Compiled readers make their RecordsViews with a native twin of the plain class, pasted
    # from its one source; a build without a records field compiles no twin.
    import inspect

    from kwire.generator.native.build import NATIVE_RECORDS_VIEW, native_sources
    from kwire.generator.native.inline import records_view_source
    from kwire.records import batch, reader

    messages = load_definitions([MESSAGE_DEFS])
    assert NATIVE_RECORDS_VIEW not in native_sources(messages, only={"ApiVersionsResponse"})
    sources = native_sources(messages, only={"FetchResponse"})
    assert sources[NATIVE_RECORDS_VIEW] == records_view_source()
    assert inspect.getsource(reader.RecordsView) in sources[NATIVE_RECORDS_VIEW]
    assert inspect.getsource(batch.check_region) in sources[NATIVE_RECORDS_VIEW]
    assert "_NativeRecordsView(buf, " in sources["fetch_response.py"]
