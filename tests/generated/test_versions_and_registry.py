"""What each version is: stable, deprecated, served by which listeners; the registry by api key;
field about texts as attribute docs (issue 24, section 2).

Kafka 4.2.1's own definition files say which versions are stable (``latestVersionUnstable``),
deprecated (``deprecatedVersions``) and which listeners take a request; kio (generated from
Kafka's files, sharing no code with kwire) says which header each version of a request and a
response takes.
"""
from __future__ import annotations

import inspect
import pydoc
from pathlib import Path
from pkgutil import resolve_name
from typing import Any

import pytest

from kwire import generated
from kwire.generator.definitions.jsonc import loads as load_jsonc
from kwire.wire.errors import UnsupportedVersionError
from tests.optional import later, need_module
from tests.packages import schema_name_map
from tests.paths import KAFKA_421_DEFINITIONS, MESSAGE_DEFS

api_key_map = later("kio.schema.index", "api_key_map")

MAX = 0x7FFF


def version_range(text: str | None, valid: tuple[int, int]) -> tuple[int, int] | None:
    """Kafka's "none", "3", "1-4", "2+" as (lowest, highest) within ``valid``, or None."""
    if text is None or text == "none":
        return None
    low, _, high = text.partition("-")
    lowest, highest = (int(low[:-1]), MAX) if low.endswith("+") else (int(low), int(high or low))
    lowest, highest = max(lowest, valid[0]), min(highest, valid[1])
    return (lowest, highest) if lowest <= highest else None


def load_all(root: Path) -> dict[str, dict[str, Any]]:
    return {spec["name"]: spec for spec in (load_jsonc(p.read_text()) for p in sorted(root.rglob("*.json")))
            if spec["name"] in generated.MESSAGES}


KAFKA = load_all(KAFKA_421_DEFINITIONS)
SHIPPED = load_all(MESSAGE_DEFS)  # the definitions the package was generated from, read as text


def expected_constants(spec: dict[str, Any]) -> dict[str, Any]:
    """What a definition says of its versions and listeners, as the class constants put it."""
    valid = version_range(spec["validVersions"], (0, MAX))
    assert valid is not None
    stable: tuple[int, int] | None = valid
    if spec.get("latestVersionUnstable") is True:
        stable = (valid[0], valid[1] - 1) if valid[1] > valid[0] else None
    facts = {"VALID_VERSIONS": valid, "STABLE_VERSIONS": stable,
             "DEPRECATED_VERSIONS": version_range(spec.get("deprecatedVersions"), valid)}
    if spec["type"] == "request":
        facts["LISTENERS"] = frozenset(spec.get("listeners", ()))
    return facts


def constants_of(cls: Any) -> dict[str, Any]:
    names = ("VALID_VERSIONS", "STABLE_VERSIONS", "DEPRECATED_VERSIONS", "LISTENERS")
    return {name: getattr(cls, name) for name in names if hasattr(cls, name)}


def test_every_message_is_shipped_and_kafka_4_2_1_has_nearly_all() -> None:
    assert len(SHIPPED) == len(generated.MESSAGES) and len(KAFKA) == 280


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_stable_deprecated_and_listeners_are_the_definitions(name: str) -> None:
    cls = generated.MESSAGES[name]
    assert constants_of(cls) == expected_constants(SHIPPED[name])
    if cls.MESSAGE_TYPE == "request":
        assert type(cls.LISTENERS) is frozenset


# Where message_defs reaches beyond Kafka 4.2.1 (message_defs/README.md): versions and listeners that
# Kafka 4.x retired are kept (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown with no
# version left in 4.2.1; AlterPartition v0-1 and the delegation-token APIs' deprecated v0; the
# zkBroker listener), and a few versions are newer than 4.2.1.
@pytest.mark.parametrize("name", sorted(KAFKA))
def test_the_constants_are_kafka_4_2_1s_where_the_versions_are(name: str) -> None:
    spec, cls = KAFKA[name], generated.MESSAGES[name]
    if spec["validVersions"] == "none":
        assert name.removesuffix("Request").removesuffix("Response") in {
            "LeaderAndIsr", "StopReplica", "UpdateMetadata", "ControlledShutdown"}
        return
    theirs, ours = expected_constants(spec), constants_of(cls)
    if theirs["VALID_VERSIONS"] == ours["VALID_VERSIONS"]:
        assert (ours["STABLE_VERSIONS"], ours["DEPRECATED_VERSIONS"]) == (
            theirs["STABLE_VERSIONS"], theirs["DEPRECATED_VERSIONS"])
    else:  # kept older or newer versions: 4.2.1's are inside, its unstable top is ours too where it is the top
        (low, high), (their_low, their_high) = ours["VALID_VERSIONS"], theirs["VALID_VERSIONS"]
        assert low <= their_low <= their_high <= high, name
        if spec.get("latestVersionUnstable") is True and high == their_high:
            assert ours["STABLE_VERSIONS"] == (low, high - 1)
    if "LISTENERS" in theirs:
        assert theirs["LISTENERS"] <= ours["LISTENERS"] <= theirs["LISTENERS"] | {"zkBroker"}, name


def test_the_issues_examples() -> None:
    from kwire.generated import (
        CreateDelegationTokenRequest,
        FetchRequest,
        InitProducerIdRequest,
        InitProducerIdResponse,
        MetadataResponse,
    )

    assert (InitProducerIdRequest.VALID_VERSIONS, InitProducerIdRequest.STABLE_VERSIONS) == ((0, 6), (0, 5))
    assert InitProducerIdResponse.STABLE_VERSIONS == (0, 6)  # Kafka marks the request only
    assert CreateDelegationTokenRequest.DEPRECATED_VERSIONS == (0, 0)
    assert FetchRequest.DEPRECATED_VERSIONS == (0, 3)  # v0-3 restored with Kafka 3.8.0's deprecation
    assert FetchRequest.LISTENERS == frozenset({"broker", "controller"})
    assert MetadataResponse.DEPRECATED_VERSIONS is None and not hasattr(MetadataResponse, "LISTENERS")


# --- the registry by api key -------------------------------------------------------------------------

def test_the_registry_has_every_api_of_kafka_4_2_1() -> None:
    requests = {spec["apiKey"]: name for name, spec in KAFKA.items() if spec["type"] == "request"}
    responses = {spec["apiKey"]: name for name, spec in KAFKA.items() if spec["type"] == "response"}
    assert set(generated.APIS) == set(requests) == set(responses)
    for key, api in generated.APIS.items():
        assert (api.api_key, api.request_name, api.response_name) == (key, requests[key], responses[key])
        assert api.name == requests[key].removesuffix("Request")
        assert api.request_class is generated.MESSAGES[requests[key]] and api.request_class.API_KEY == key
        assert api.response_class is generated.MESSAGES[responses[key]]


def kio_pairs() -> list[tuple[int, int, str]]:
    """(api key, version, kio's schema name) for every request/response version kio models."""
    pairs = []
    for key, kio_name in sorted(api_key_map.items()):
        if key in generated.APIS:
            pairs += [(key, version, kio_name) for version in sorted(schema_name_map[kio_name])]
    return pairs


KIO_PAIRS = kio_pairs()


def kio_header_version(kio_name: str, version: int, kind: str) -> int:
    from kio.static.constants import EntityType

    path = schema_name_map[kio_name][version][EntityType.request if kind == "request" else EntityType.response]
    header = resolve_name(path).__header_schema__.__module__  # kio.schema.request_header.v2.header
    return int(header.split(".")[-2].removeprefix("v"))


def test_kio_covers_most_apis() -> None:
    assert len({key for key, _, _ in KIO_PAIRS}) > 60 and len(KIO_PAIRS) > 250


@pytest.mark.parametrize(("api_key", "version", "kio_name"), KIO_PAIRS,
                         ids=[f"{name}-v{version}" for _, version, name in KIO_PAIRS])
def test_header_versions_are_the_ones_kio_uses(api_key: int, version: int, kio_name: str) -> None:
    api = generated.APIS[api_key]
    low, high = api.request_class.VALID_VERSIONS
    if not low <= version <= high:
        pytest.skip(f"kio models v{version}, which Kafka 4.2.1 removed")
    assert api.request_header_version(version) == kio_header_version(kio_name, version, "request")
    assert api.response_header_version(version) == kio_header_version(kio_name, version, "response")


def test_the_two_exceptions_of_kafkas_header_rule() -> None:
    assert generated.APIS[18].response_header_version(4) == 0  # ApiVersionsResponse: always v0 (KIP-511)
    assert generated.APIS[18].request_header_version(4) == 2
    assert [generated.APIS[7].request_header_version(v) for v in range(4)] == [0, 1, 1, 2]  # ControlledShutdown v0
    # like Kafka's ApiMessageType, every version has a header version, one kwire lacks included
    # (the body's reader refuses it): Metadata is flexible from v9 on
    assert generated.APIS[3].request_header_version(99) == 2 and generated.APIS[18].response_header_version(99) == 0
    with pytest.raises(UnsupportedVersionError, match="MetadataRequest has no version -1"):
        generated.APIS[3].request_header_version(-1)
    assert generated.APIS[3].request_header_version(0) == 1 and repr(generated.APIS[3]) == "Api(3, 'Metadata')"


# --- about texts as attribute docs --------------------------------------------------------------------

def shipped_about(message: str, field: str) -> str:
    spec = load_jsonc(next(MESSAGE_DEFS.rglob(f"{message}.json")).read_text())
    return next(f["about"] for f in spec["fields"] if f["name"] == field)


def test_help_shows_each_fields_about_text() -> None:
    from kwire.generated import MetadataRequest

    about = shipped_about("MetadataRequest", "Topics")
    assert inspect.getdoc(MetadataRequest.topics) == about  # the slot's docstring
    text = pydoc.render_doc(MetadataRequest, renderer=pydoc.plaintext)
    assert about in text and shipped_about("MetadataRequest", "AllowAutoTopicCreation") in text
    assert "None is Kafka's null" in text  # the constructor says what None means


def test_pdoc_shows_each_fields_about_text() -> None:
    pdoc_doc = need_module("pdoc.doc")
    from kwire.generated import metadata_request

    module = pdoc_doc.Module(metadata_request)
    cls: Any = module.get("MetadataRequest")
    assert cls is not None
    assert cls.get("topics").docstring == shipped_about("MetadataRequest", "Topics")
