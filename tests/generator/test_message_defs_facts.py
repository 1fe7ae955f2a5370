"""Checks kwire's own message definitions against upstream Kafka's.

kwire writes its definitions in ``message_defs/`` by hand.  kafka-python ships Kafka's client
definitions in its wheel; wherever a file of the same name exists there, every wire fact
(everything except ``about`` texts and comments) must agree with it, version by version, and no
``about`` text may repeat upstream's (kafka-python's or Kafka 4.2.1's): kwire's texts are written
in its own words.

The comment stripper and the version-range parser are deliberately local: this test must not
share code with ``generator/definitions/loader.py``, which it indirectly checks.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from tests.conftest import kafka_python_definitions
from tests.generator.test_history_merge import RESTORED
from tests.optional import params_from
from tests.paths import KAFKA_421_DEFINITIONS
from tests.paths import MESSAGE_DEFS as DEFS_DIR

TOP_LEVEL_KEYS = {
    "apiKey", "type", "name", "validVersions", "flexibleVersions", "latestVersionUnstable",
    "listeners", "deprecatedVersions", "commonStructs", "fields",
}
FIELD_KEYS = {
    "name", "type", "versions", "nullableVersions", "taggedVersions", "tag", "ignorable",
    "default", "mapKey", "entityType", "zeroCopy", "flexibleVersions", "about", "fields",
}
MESSAGE_TYPES = {
    "request", "response", "header", "metadata", "data", "coordinator-key", "coordinator-value",
}
# Field facts that do not depend on the version being looked at.
PLAIN_FIELD_FACTS = ("type", "default", "mapKey", "ignorable", "entityType", "zeroCopy")


# ---------------------------------------------------------------- reading definitions

def strip_comments(text: str) -> str:
    """Remove // and /* */ comments that are outside JSON strings.

    Comments become whitespace (newlines kept) so json errors still point at the right line.
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if end >= n:
                raise ValueError(f"unterminated string starting at offset {i}")
            out.append(text[i:end + 1])
            i = end + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ValueError(f"unterminated block comment at offset {i}")
            out.append(re.sub(r"[^\n]", " ", text[i:end + 2]))
            i = end + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def load_definition(path: Path) -> dict:
    return json.loads(strip_comments(path.read_text(encoding="utf-8")))


# ---------------------------------------------------------------- normalising lenient scalars

_RANGE = re.compile(r"^(\d+)(?:(\+)|-(\d+))?$")


def version_set(spec: str | None, ceiling: int = 0x7FFF) -> frozenset[int]:
    """Versions named by "N", "A-B", "N+" or "none" (None counts as "none")."""
    if spec is None or spec.strip() == "none":
        return frozenset()
    match = _RANGE.match(spec.strip())
    if not match:
        raise ValueError(f"bad version spec {spec!r}")
    low = int(match.group(1))
    high = ceiling if match.group(2) else int(match.group(3) or low)
    return frozenset(range(low, high + 1))


def as_bool(value) -> bool:
    # Upstream writes booleans both as JSON booleans and as the strings "true"/"false".
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ValueError(f"not a boolean: {value!r}")


def as_default(value):
    # Kafka accepts numeric, boolean and string defaults alike; compare their meaning.
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", text):
            return str(int(text, 0))
        return text
    return value  # None: Kafka reads "default": null as no default at all.


def field_versions(field: dict) -> frozenset[int]:
    # A field with only taggedVersions exists in exactly those versions.
    return version_set(field.get("versions") or field.get("taggedVersions"))


# ---------------------------------------------------------------- per-version projection

def project_fields(fields: list[dict], version: int, structs: dict[str, dict]) -> list[dict]:
    """The wire facts of the fields present at ``version``, in declaration order."""
    projected = []
    for field in fields:
        if version not in field_versions(field):
            continue
        facts = {"name": field["name"]}
        for key in PLAIN_FIELD_FACTS:
            if key not in field:
                continue
            raw = field[key]
            if key == "default" and raw is None:
                continue  # Kafka reads "default": null as no default given
            if key == "default":
                facts[key] = as_default(raw)
            elif key in ("mapKey", "ignorable", "zeroCopy"):
                facts[key] = as_bool(raw)
            else:
                facts[key] = raw
        facts["nullable"] = version in version_set(field.get("nullableVersions"))
        tagged = version in version_set(field.get("taggedVersions"))
        facts["tagged"] = tagged
        if tagged:
            facts["tag"] = int(field["tag"])
        if "flexibleVersions" in field:
            facts["flexible_override"] = version in version_set(field["flexibleVersions"])
        struct_name = field["type"].removeprefix("[]")
        children = field.get("fields")
        if children is None and struct_name in structs:
            children = structs[struct_name]["fields"]
        if children is not None:
            facts["fields"] = project_fields(children, version, structs)
        projected.append(facts)
    return projected


def project(definition: dict, version: int) -> dict:
    structs = {s["name"]: s for s in definition.get("commonStructs", [])}
    return {
        "flexible": version in version_set(definition.get("flexibleVersions")),
        "fields": project_fields(definition.get("fields", []), version, structs),
    }


def message_facts(definition: dict) -> dict:
    """Facts of the message as a whole that do not vary with the version."""
    facts = {key: definition.get(key) for key in ("apiKey", "type", "name", "deprecatedVersions")}
    facts["listeners"] = sorted(definition.get("listeners", []))
    facts["latestVersionUnstable"] = as_bool(definition.get("latestVersionUnstable", False))
    facts["commonStructs"] = {
        s["name"]: sorted(version_set(s.get("versions"), ceiling=200))
        for s in definition.get("commonStructs", [])
    }
    return facts


def first_difference(ours, theirs, path: str = "") -> str | None:
    """Where two projections first disagree, as a readable path; None when equal."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in list(ours) + [k for k in theirs if k not in ours]:
            if key not in ours or key not in theirs:
                return f"{path}.{key}: ours={ours.get(key, '<absent>')!r} upstream={theirs.get(key, '<absent>')!r}"
            found = first_difference(ours[key], theirs[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(ours, list) and isinstance(theirs, list):
        our_names = [f.get("name") for f in ours if isinstance(f, dict)]
        their_names = [f.get("name") for f in theirs if isinstance(f, dict)]
        if our_names != their_names:
            return f"{path}: field names differ: ours={our_names} upstream={their_names}"
        for index, (a, b) in enumerate(zip(ours, theirs, strict=False)):  # a length difference is reported below
            label = a.get("name", index) if isinstance(a, dict) else index
            found = first_difference(a, b, f"{path}[{label}]")
            if found:
                return found
        if len(ours) != len(theirs):
            extra = ours[len(theirs):] or theirs[len(ours):]
            names = [f.get("name") if isinstance(f, dict) else f for f in extra]
            side = "ours" if len(ours) > len(theirs) else "upstream"
            return f"{path}: only {side} has {names}"
        return None
    return None if ours == theirs else f"{path}: ours={ours!r} upstream={theirs!r}"


#: Versions Kafka 4.0 removed (KIP-896) that kwire ships again, as Kafka 3.8.0 spoke them; each
#: restored version is proven against 3.8.0's definition in tests/generator/test_history_merge.py.
RESTORED_FROM_380 = set(RESTORED)


def compare_definitions(ours: dict, theirs: dict) -> list[str]:
    """All disagreements in wire facts, over the versions both definitions share."""
    problems = []
    our_facts, their_facts = message_facts(ours), message_facts(theirs)
    if ours.get("name") in RESTORED_FROM_380:  # 3.8.0 deprecated the versions 4.0 then removed
        our_facts, their_facts = dict(our_facts, deprecatedVersions=None), dict(their_facts, deprecatedVersions=None)
    found = first_difference(our_facts, their_facts, "message")
    if found:
        problems.append(found)
    our_versions = version_set(ours["validVersions"], ceiling=0)
    their_versions = version_set(theirs["validVersions"], ceiling=0)
    if max(our_versions, default=-1) < max(their_versions, default=-1):
        problems.append(
            f"validVersions {ours['validVersions']!r} is older than upstream {theirs['validVersions']!r}"
        )
    restored = ours.get("name") in RESTORED_FROM_380 and min(our_versions, default=-1) < min(their_versions, default=-1)
    if min(our_versions, default=-1) != min(their_versions, default=-1) and not restored:
        problems.append(
            f"lowest version differs: {ours['validVersions']!r} vs {theirs['validVersions']!r}"
        )
    for version in sorted(our_versions & their_versions):
        found = first_difference(project(ours, version), project(theirs, version), f"v{version}")
        if found:
            problems.append(found)
    return problems


# ---------------------------------------------------------------- the tests

OUR_FILES = sorted(DEFS_DIR.rglob("*.json"))


def shared_files() -> list[Path]:
    """Our definitions that kafka-python has a copy of (skips, or fails under CI, without it)."""
    return [path for path in OUR_FILES if (kafka_python_definitions() / path.name).is_file()]


def test_there_is_something_to_check():
    upstream_dir = kafka_python_definitions()
    assert upstream_dir.is_dir(), f"kafka-python definitions not found at {upstream_dir}"
    assert OUR_FILES, f"no definitions in {DEFS_DIR}"
    assert shared_files(), "no definition of ours has an upstream counterpart in kafka-python"


@pytest.mark.parametrize("path", params_from("kafka.protocol.schemas", lambda _: shared_files()), ids=lambda p: p.stem)
def test_wire_facts_match_upstream(path: Path):
    problems = compare_definitions(load_definition(path), load_definition(kafka_python_definitions() / path.name))
    assert not problems, f"{path.name} differs from kafka-python's copy:\n" + "\n".join(problems)


def test_every_kafka_python_definition_has_ours():
    """kafka-python ships Kafka's client definitions; message_defs must define each of them."""
    theirs = {p.name for p in kafka_python_definitions().glob("*.json")}
    assert sorted(theirs - {p.name for p in OUR_FILES}) == []


def test_versions_newer_than_kafka_python_are_named():
    """Where our file is newer than kafka-python's copy, the comparison covers the shared versions;
    the rest (checked against kio in tests/generated/test_kio_differential.py) is listed here."""
    newer = {}
    shared = shared_files()
    for path in shared:
        ours = version_set(load_definition(path)["validVersions"], ceiling=0)
        theirs = version_set(load_definition(kafka_python_definitions() / path.name)["validVersions"], ceiling=0)
        assert ours & theirs, f"{path.name}: no version in common with kafka-python's copy"
        if ours - theirs:
            newer[path.stem] = sorted(ours - theirs)
    unshared = sorted(p.stem for p in OUR_FILES if p not in shared)
    print(f"\nversions not compared with kafka-python (newer than its copy): {newer}")
    print(f"{len(unshared)} files kafka-python has no copy of: {', '.join(unshared)}")


def _check_keys(fields: list[dict], where: str) -> list[str]:
    problems = []
    for field in fields:
        label = f"{where}.{field.get('name', '?')}"
        unknown = set(field) - FIELD_KEYS
        if unknown:
            problems.append(f"{label}: unexpected keys {sorted(unknown)}")
        for required in ("name", "type"):
            if required not in field:
                problems.append(f"{label}: missing {required!r}")
        problems += _check_keys(field.get("fields", []), label)
    return problems


@pytest.mark.parametrize("path", OUR_FILES, ids=lambda p: p.stem)
def test_definition_parses_with_only_allowed_keys(path: Path):
    definition = load_definition(path)
    assert isinstance(definition, dict)
    problems = []
    unknown = set(definition) - TOP_LEVEL_KEYS
    if unknown:
        problems.append(f"top level: unexpected keys {sorted(unknown)}")
    if definition.get("name") != path.stem:
        problems.append(f"name {definition.get('name')!r} does not match the file name")
    if definition.get("type") not in MESSAGE_TYPES:
        problems.append(f"unknown message type {definition.get('type')!r}")
    version_set(definition.get("validVersions"))  # raises on a malformed range
    problems += _check_keys(definition.get("fields", []), "fields")
    for struct in definition.get("commonStructs", []):
        unknown = set(struct) - {"name", "versions", "fields"}
        if unknown:
            problems.append(f"commonStructs.{struct.get('name')}: unexpected keys {sorted(unknown)}")
        problems += _check_keys(struct.get("fields", []), f"commonStructs.{struct.get('name')}")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


# ---------------------------------------------------------------- about texts are kwire's own

def about_texts(definition: dict) -> list[tuple[str, str]]:
    """(field path, about) of every field, common structs' fields as ``Struct.Field``."""
    found: list[tuple[str, str]] = []

    def walk(fields: list[dict], prefix: str) -> None:
        for field in fields:
            path = prefix + field.get("name", "?")
            if "about" in field:
                found.append((path, field["about"]))
            walk(field.get("fields", []), path + ".")

    walk(definition.get("fields", []), "")
    for struct in definition.get("commonStructs", []):
        walk(struct.get("fields", []), struct.get("name", "?") + ".")
    return found


def normalised_about(text: str) -> str:
    """An about text as compared for copying: case, spacing, punctuation (hyphens, a final period)
    and a leading article do not count, so "The sub-topologies." repeats "Subtopologies"."""
    words = re.sub(r"[^a-z0-9_\s]", "", text.lower()).split()
    if words and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


def copied_about_texts(ours: dict, theirs: dict) -> list[str]:
    """Fields of ``ours`` whose about equals upstream's about for a field of the same name.

    Matching by name (not path) also catches a copy where the two files nest the field differently.
    """
    upstream_by_name: dict[str, set[str]] = {}
    for path, text in about_texts(theirs):
        upstream_by_name.setdefault(path.rsplit(".", 1)[-1], set()).add(normalised_about(text))
    return [f"{path}: {text!r}" for path, text in about_texts(ours)
            if normalised_about(text) in upstream_by_name.get(path.rsplit(".", 1)[-1], set())]


@pytest.mark.parametrize("path", OUR_FILES, ids=lambda p: p.stem)
def test_about_texts_are_not_upstream_copies(path: Path):
    """About texts are written for kwire: none may equal Kafka's text for the same field, as
    kafka-python's copy or Kafka 4.2.1's file has it."""
    ours = load_definition(path)
    upstream = {"Kafka 4.2.1": _kafka_421().get(ours["name"])}
    if (kafka_python_definitions() / path.name).is_file():
        upstream["kafka-python"] = load_definition(kafka_python_definitions() / path.name)
    copied = [f"{where}: {found}" for where, theirs in upstream.items() if theirs is not None
              for found in copied_about_texts(ours, theirs)]
    assert not copied, f"{path.name} repeats upstream about texts:\n" + "\n".join(copied)


#: Fewest words an about text may have. Four-word texts such as "Name of the topic." or "Broker
#: epoch." name a field without saying what it is for; five words leave room for that.
MIN_ABOUT_WORDS = 5
#: (message, field path) -> why its shorter about text is complete anyway. Empty: none is needed.
SHORT_ABOUTS_ALLOWED: dict[tuple[str, str], str] = {}


def thin_about_texts(definition: dict) -> list[str]:
    """Fields whose about text is shorter than MIN_ABOUT_WORDS words and not allowed by name."""
    return [f"{path}: {text!r}" for path, text in about_texts(definition)
            if len(text.split()) < MIN_ABOUT_WORDS
            and (definition.get("name"), path) not in SHORT_ABOUTS_ALLOWED]


@pytest.mark.parametrize("path", OUR_FILES, ids=lambda p: p.stem)
def test_about_texts_say_what_the_field_is_for(path: Path):
    definition = load_definition(path)
    missing = [path_ for path_, text in about_texts(definition) if not text.strip()]
    assert not missing, f"{path.name}: empty about texts: {missing}"
    thin = thin_about_texts(definition)
    assert not thin, f"{path.name}: about texts under {MIN_ABOUT_WORDS} words:\n" + "\n".join(thin)


def test_every_short_about_allowed_is_still_there():
    texts = {(load_definition(p)["name"], path) for p in OUR_FILES for path, _ in about_texts(load_definition(p))}
    assert set(SHORT_ABOUTS_ALLOWED) <= texts


@pytest.mark.parametrize("path", OUR_FILES, ids=lambda p: p.stem)
def test_definition_opens_with_a_comment(path: Path):
    """Each file says in a // comment, before its fields, what the message is and what each version changed."""
    head = path.read_text(encoding="utf-8").split('"fields"', 1)[0]
    comments = [line.strip() for line in head.splitlines() if line.strip().startswith("//")]
    assert comments, f"{path.name} has no header comment"


# ---------------------------------------------------------------- the checker itself

def test_comment_stripper_keeps_comment_markers_inside_strings():
    text = '{ // note\n "a": "x // y /* z */", /* block\n over lines */ "b": "q\\"//" }'
    assert json.loads(strip_comments(text)) == {"a": "x // y /* z */", "b": 'q"//'}


def test_comment_stripper_rejects_unterminated_block_comment():
    with pytest.raises(ValueError):
        strip_comments('{ "a": 1 /* never closed }')


def test_version_specs():
    assert version_set("none") == frozenset()
    assert version_set("3") == {3}
    assert version_set("1-3") == {1, 2, 3}
    assert max(version_set("2+")) == 0x7FFF
    with pytest.raises(ValueError):
        version_set("2++")


def _upstream_sample() -> dict:
    return load_definition(kafka_python_definitions() / "ApiVersionsResponse.json")


def test_comparison_ignores_about_texts():
    ours = _upstream_sample()
    ours["fields"][0]["about"] = "Entirely different wording."
    assert compare_definitions(ours, _upstream_sample()) == []


@pytest.mark.parametrize(
    "perturb",
    [
        pytest.param(lambda d: d["fields"][4].update(tag=9), id="tag"),
        pytest.param(lambda d: d["fields"][0].update(type="int32"), id="type"),
        pytest.param(lambda d: d["fields"][2].update(versions="2+"), id="versions"),
        pytest.param(lambda d: d["fields"][4].update(default="-2"), id="default"),
        pytest.param(lambda d: d["fields"][1]["fields"][0].update(mapKey=False), id="nested-mapKey"),
        pytest.param(lambda d: d.update(flexibleVersions="4+"), id="flexibleVersions"),
        pytest.param(lambda d: d.update(apiKey=19), id="apiKey"),
        pytest.param(lambda d: d["fields"].pop(), id="missing-field"),
    ],
)
def test_comparison_detects_a_changed_fact(perturb):
    ours = _upstream_sample()
    perturb(ours)
    assert compare_definitions(ours, _upstream_sample()), "a changed wire fact went unnoticed"


def test_comparison_accepts_lenient_spellings_of_the_same_fact():
    ours = _upstream_sample()
    ours["fields"][4]["tag"] = "1"          # upstream: 1
    ours["fields"][6]["default"] = False    # upstream: "false"
    ours["fields"][2]["ignorable"] = "true"  # upstream: true
    assert compare_definitions(ours, _upstream_sample()) == []


def test_comparison_uses_common_versions_when_ours_is_newer():
    ours = _upstream_sample()
    ours["validVersions"] = "0-5"
    ours["fields"].append({"name": "Extra", "type": "int32", "versions": "5+"})
    assert compare_definitions(ours, _upstream_sample()) == []
    ours["fields"][-1]["versions"] = "4+"  # now the extra field leaks into a shared version
    assert compare_definitions(ours, _upstream_sample())


def _every_field(fields: list[dict]):
    for field in fields:
        yield field
        yield from _every_field(field.get("fields", []))


def test_copy_check_ignores_case_spacing_punctuation_and_a_leading_article():
    ours = _upstream_sample()
    fields = list(_every_field(ours["fields"]))
    for field in fields:
        field["about"] = "  " + field["about"].upper().rstrip(".").removeprefix("THE ") + " "
    assert len(copied_about_texts(ours, _upstream_sample())) == len(fields)
    for field in fields:
        field["about"] = "Reworded: " + field["about"]
    assert copied_about_texts(ours, _upstream_sample()) == []


def test_thin_check_counts_words_and_honours_the_allow_list():
    definition = {"name": "M", "fields": [
        {"name": "BrokerEpoch", "type": "int64", "about": "Broker epoch."},
        {"name": "Topics", "type": "[]T", "about": "Topics whose partitions are moved.", "fields": [
            {"name": "Name", "type": "string", "about": "  Name   of the topic.  "}]}]}
    assert [item.split(":")[0] for item in thin_about_texts(definition)] == ["BrokerEpoch", "Topics.Name"]
    definition["fields"][0]["about"] = "Registration epoch of the sending broker."
    assert [item.split(":")[0] for item in thin_about_texts(definition)] == ["Topics.Name"]
    SHORT_ABOUTS_ALLOWED[("M", "Topics.Name")] = "test"
    try:
        assert thin_about_texts(definition) == []
    finally:
        del SHORT_ABOUTS_ALLOWED[("M", "Topics.Name")]


def test_readme_names_the_source_of_every_definition():
    """message_defs/README.md has one row per shipped file, saying which upstream text it follows."""
    readme = (DEFS_DIR / "README.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1].strip() for line in readme.splitlines() if line.startswith("| ")]
    listed = [name for name in rows if name.endswith(".json")]
    assert len(listed) == len(set(listed)), "a file has two rows"
    assert sorted(listed) == sorted(str(path.relative_to(DEFS_DIR)) for path in OUR_FILES)


# ---------------------------------------------------------------- against Kafka 4.2.1 in full
#
# Kafka 4.2.1 is the newest release whose definition directories could be read whole (tests/data/
# kafka-definitions/kafka-4.2.1). Every one of its definitions is shipped, and agrees with ours on
# every wire fact of every version 4.2.1 has. What message_defs has beyond it is named here.

KAFKA_421_FILES = sorted(p for p in KAFKA_421_DEFINITIONS.rglob("*.json") if p.parent.name != "clients-test")
#: Tagged fields Kafka added after 4.2 (a 4.2.1 reader skips them as unknown tags).
NEWER_THAN_421_FIELDS = {
    ("ConsumerGroupCurrentMemberAssignmentValue", "AssignmentEpochs"),  # KIP-1251, as for streams in 4.2
    ("ConsumerGroupMetadataValue", "CreationTimeMs"),  # KIP-1282
    ("ConsumerGroupTargetAssignmentMetadataValue", "AssignmentTimestamp"),  # KIP-1263
}
#: Definitions 4.2.1 lacks: removed before it (kept to read older data) or added after it.
NOT_IN_421 = {
    "ShareGroupPartitionMetadataKey", "ShareGroupPartitionMetadataValue",  # Kafka 4.0's, removed in 4.1
    "UnregisterControllerRecord",  # KIP-1312, after 4.2
    "ControlRecordTypeSchema", "AbortedTxn",  # record-data schemas, after 4.2 (kio 0.6.5 has the first)
    # API 74 v0 under its 3.7-4.0 name (4.1 renamed it ListConfigResources); proven against 3.8.0's
    # definition and 4.2.1's ListConfigResources v0 in tests/generated/test_former_names.py
    "ListClientMetricsResourcesRequest", "ListClientMetricsResourcesResponse",
}
#: Message-level facts that may be wider than 4.2.1's: versions and listeners that Kafka 4.x
#: retired (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown, AlterPartition v0-1,
#: delegation-token v0, the zkBroker listener) are kept, so traffic from older clusters decodes.
WIDER_MESSAGE_FACTS = ("listeners", "deprecatedVersions", "commonStructs")


@functools.cache
def _kafka_421() -> dict[str, dict]:
    return {load_definition(path)["name"]: load_definition(path) for path in KAFKA_421_FILES}


def _without_newer_fields(definition: dict) -> dict:
    name = definition["name"]

    def keep(fields: list[dict]) -> list[dict]:
        return [dict(f, fields=keep(f["fields"])) if "fields" in f else f
                for f in fields if (name, f["name"]) not in NEWER_THAN_421_FIELDS]

    return dict(definition, fields=keep(definition.get("fields", [])),
                commonStructs=[dict(s, fields=keep(s["fields"])) for s in definition.get("commonStructs", [])])


def test_every_kafka_421_definition_is_shipped_and_the_rest_is_named():
    upstream = _kafka_421()
    ours = {load_definition(path)["name"] for path in OUR_FILES}
    assert len(upstream) == 280
    assert sorted(set(upstream) - ours) == []
    assert set(ours) - set(upstream) == NOT_IN_421


@pytest.mark.parametrize("path", OUR_FILES, ids=lambda p: p.stem)
def test_wire_facts_match_kafka_421(path: Path):
    theirs = _kafka_421().get(load_definition(path)["name"])
    if theirs is None:
        assert load_definition(path)["name"] in NOT_IN_421
        return
    ours = _without_newer_fields(load_definition(path))
    # every version 4.2.1 has, with the same facts; ours may reach further back
    assert version_set(theirs.get("validVersions")) <= version_set(ours.get("validVersions"))
    ours_facts, their_facts = message_facts(ours), message_facts(theirs)
    for key in ("apiKey", "type", "name", "latestVersionUnstable"):
        assert ours_facts[key] == their_facts[key], key
    assert set(their_facts["listeners"]) <= set(ours_facts["listeners"])
    problems = [found for version in sorted(version_set(theirs.get("validVersions")))
                if (found := first_difference(project(ours, version), project(theirs, version), f"v{version}"))]
    assert problems == []


def test_newer_fields_are_tagged_so_421_readers_skip_them():
    for path in OUR_FILES:
        definition = load_definition(path)

        def walk(fields, message=definition["name"]):
            for f in fields:
                if (message, f["name"]) in NEWER_THAN_421_FIELDS:
                    yield f
                yield from walk(f.get("fields", []), message)

        for field in [*walk(definition.get("fields", [])),
                      *(f for s in definition.get("commonStructs", []) for f in walk(s["fields"]))]:
            assert "tag" in field and field.get("taggedVersions"), (definition["name"], field["name"])
