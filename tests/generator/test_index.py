"""The generated index: one answer, decided when the package is generated, for every consumer.

Two questions had two owners and two answers (issue 35): which RequestHeader version a request
takes (``APIS`` read the definition's ``headerVersions``, framing applied the flexible-version rule
alone) and which class is API 74 (``APIS`` kept whichever definition came last). Expected values
come from the wire rules and from Kafka's own definition files, not from kwire's output.
"""
from __future__ import annotations

import importlib
import json
import sys

import pytest

from kwire.cli.main import main
from kwire.generator.definitions.errors import DefinitionError
from kwire.generator.definitions.loader import load_definitions, load_file, load_text
from kwire.generator.emit.apis import api_entries
from kwire.network.framing import Correlator, build_request_frame
from kwire.wire.index import load
from tests.paths import KAFKA_421_DEFINITIONS, MESSAGE_DEFS

API_KEY = 1000  # an api key no Kafka release uses


def definition(name: str, kind: str, header_versions: dict[str, str] | None) -> dict:
    out = {"apiKey": API_KEY, "type": kind, "name": name, "validVersions": "0-2", "flexibleVersions": "0+",
           "fields": [{"name": "Id", "type": "int32", "versions": "0+"}]}
    if header_versions is not None:
        out["headerVersions"] = header_versions
    return out


@pytest.fixture
def user_package(tmp_path, monkeypatch):
    """Generate a user's package from two definitions (``kwire generate``) and import it."""
    made = []

    def generate(package: str, header_versions: dict[str, str]):
        defs = tmp_path / f"{package}_defs"
        defs.mkdir()
        for name, kind, table in (("UserThingRequest", "request", header_versions),
                                  ("UserThingResponse", "response", None)):
            (defs / f"{name}.json").write_text(json.dumps(definition(name, kind, table)))
        assert main(["-q", "generate", "--defs", str(defs), "--out", str(tmp_path / package)]) == 0
        made.append(package)
        return importlib.import_module(package)

    monkeypatch.syspath_prepend(str(tmp_path))
    yield generate
    for name in list(sys.modules):
        if name.split(".")[0] in made:
            del sys.modules[name]


def v1_frame(version: int) -> bytes:
    """UserThingRequest(id=7) at ``version`` after RequestHeader v1, by the wire rules: api key, api
    version, correlation id, then the client id as an int16-length string and no tagged fields;
    the flexible body is int32 7 and an empty tagged-field section."""
    header = API_KEY.to_bytes(2, "big") + version.to_bytes(2, "big") + (5).to_bytes(4, "big") + b"\x00\x01c"
    body = (7).to_bytes(4, "big") + b"\x00"
    return (len(header) + len(body)).to_bytes(4, "big") + header + body


def v2_frame(version: int) -> bytes:
    """The same after RequestHeader v2: v1's fields and an empty tagged-field section (KIP-482;
    the client id stays a non-compact string)."""
    frame = v1_frame(version)
    header_end = 4 + 11
    size = (int.from_bytes(frame[:4], "big") + 1).to_bytes(4, "big")
    return size + frame[4:header_end] + b"\x00" + frame[header_end:]


@pytest.mark.parametrize(("table", "headers"), [
    ({"0+": "1"}, [1, 1, 1]),  # every version v1, although every version is flexible
    ({"0-1": "1", "2+": "2"}, [1, 1, 2]),  # the bound: v1 the last at header v1, v2 the first at v2
])
def test_a_definitions_header_versions_are_what_apis_lists_and_framing_writes(user_package, table, headers):
    package = user_package(f"userpkg_{len(table)}", table)
    api = package.APIS[API_KEY]
    assert [api.request_header_version(v) for v in range(3)] == headers
    for version, header in enumerate(headers):
        frame = build_request_frame(package.UserThingRequest(id=7), version, 5, "c")
        assert frame == (v1_frame(version) if header == 1 else v2_frame(version)), (version, header)
        # and a Correlator over the package's index reads it back at that header version
        parsed = Correlator(load(package)).parse_request(frame)
        assert (parsed.header_version, parsed.body, parsed.header.client_id) == (
            header, package.UserThingRequest(id=7), "c")


def test_api_74_is_what_kafka_names_it_whatever_order_the_definitions_come_in():
    # Kafka 4.2.1 (its newest release here) names api key 74 ListConfigResources (KIP-1142);
    # kwire also ships its 3.7-4.0 name, ListClientMetricsResources, for v0
    kafka = {kind: load_file(KAFKA_421_DEFINITIONS / "clients" / f"ListConfigResources{kind}.json")
             for kind in ("Request", "Response")}
    assert kafka["Request"].api_key == kafka["Response"].api_key == 74
    messages = load_definitions([MESSAGE_DEFS])
    assert {"ListClientMetricsResourcesRequest", "ListConfigResourcesRequest"} <= {m.name for m in messages}
    for order in (messages, messages[::-1]):
        [entry] = [e for e in api_entries(order) if e.api_key == 74]
        assert (entry.request, entry.response) == (kafka["Request"].name, kafka["Response"].name)


def test_the_whole_index_does_not_depend_on_the_order_of_the_definitions():
    from kwire.generator.emit import render_package_index

    messages = load_definitions([MESSAGE_DEFS])
    assert render_package_index(messages[::-1]) == render_package_index(messages)


def request(name: str, versions: str) -> object:
    return load_text(json.dumps({"apiKey": 74, "type": "request", "name": name, "validVersions": versions,
                                 "flexibleVersions": "0+", "fields": []}))


def response(name: str, versions: str) -> object:
    return load_text(json.dumps({"apiKey": 74, "type": "response", "name": name, "validVersions": versions,
                                 "flexibleVersions": "0+", "fields": []}))


@pytest.mark.parametrize(("old", "new", "current"), [
    ("0", "0-1", "NewRequest"),  # new covers old and one more version
    ("1", "0-1", "NewRequest"),  # covers it from below
    ("0-1", "0", "OldRequest"),  # the wider one is current, whichever name it has
])
def test_the_name_whose_versions_cover_the_others_is_current(old, new, current):
    messages = [request("OldRequest", old), response("OldResponse", old),
                request("NewRequest", new), response("NewResponse", new)]
    for order in (messages, messages[::-1]):
        [entry] = api_entries(order)
        assert entry.request == current


@pytest.mark.parametrize(("old", "new"), [
    ("0-1", "0-1"),  # the same versions: at the bound of covering, neither is current
    ("0-1", "1-2"),  # overlapping, neither covering
])
def test_two_names_where_neither_covers_the_other_are_refused(old, new):
    messages = [request("OldRequest", old), response("OldResponse", old),
                request("NewRequest", new), response("NewResponse", new)]
    with pytest.raises(DefinitionError, match="two requests with api key 74"):
        api_entries(messages)


def test_a_package_without_an_index_is_one_clear_error(tmp_path, monkeypatch):
    from kwire.wire.errors import KwireError

    old = tmp_path / "pre_index_pkg"  # a package generated before the index existed
    old.mkdir()
    (old / "__init__.py").write_text("MESSAGES = {}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(KwireError, match="pre_index_pkg is not a package kwire generated .* run `kwire generate`"):
        load("pre_index_pkg")
    with pytest.raises(KwireError, match="cannot load the generated package 'no_such_pkg'"):
        load("no_such_pkg")
    assert load() is load("kwire.generated") is load(load())
