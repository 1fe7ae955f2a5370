"""Which (API, version) pairs each Kafka release spoke, derived from the release's own definitions.

A release "spoke" an API's versions as its request definition gives them (``validVersions``),
without the top version when the definition marks it ``latestVersionUnstable`` (a broker only
advertises it with ``unstable.api.versions.enable``). ``listeners`` is kept as written (absent
before Kafka 2.8: then every broker advertised every API).

The tables are read from release tags of a Kafka git repository (``derive_from_git``), from a
release's commit in a repository where it is no tag (``derive_from_commit``: a copy of Kafka's
history that holds the release commit but not its tag) and from plain folders of a release's
definitions (``derive_from_folder``); each table carries its tag or commit. ``kwire versions
--derive-from`` writes them to ``kwire/network/release_versions.json``, which
``kwire.network.releases`` reads at run time (it must not import this build-time module).
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from typing import Any

from ..definitions.errors import DefinitionError, Problem
from ..definitions.loader import load_text
from ..definitions.model import Message
from .git import git_output

# Where the JSON definitions of the client protocol live in Kafka's tree (since Kafka 2.2).
MESSAGE_DIR = "clients/src/main/resources/common/message"
# A final release tag: 2.2.0, 3.8.0 (and the four-part tags of 0.x; those have no JSON definitions).
RELEASE_TAG = re.compile(r"^[0-9]+(\.[0-9]+){2,3}$")


@dataclass(frozen=True)
class ApiEntry:
    """One API as a release spoke it; ``listeners`` None where the definition has no listeners key."""

    api_key: int
    name: str
    lowest: int
    highest: int
    listeners: tuple[str, ...] | None
    unstable: int | None  # the top version left out as latestVersionUnstable, if any

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.api_key, "name": self.name, "min": self.lowest, "max": self.highest}
        if self.listeners is not None:
            out["listeners"] = list(self.listeners)
        if self.unstable is not None:
            out["unstable"] = self.unstable
        return out


def api_entries(messages: list[Message]) -> list[ApiEntry]:
    """The APIs a set of definitions speaks: one entry per request definition with an apiKey.

    An API whose only versions are unstable (an early-access API) is left out: no broker of the
    release advertised it by default."""
    entries = []
    for message in messages:
        if message.type != "request" or message.api_key is None or message.valid_versions.empty:
            continue
        lowest, highest = message.valid_versions.lowest, message.valid_versions.highest
        unstable = highest if message.latest_version_unstable else None
        if unstable is not None:
            highest -= 1
        if highest < lowest:
            continue
        name = message.name.removesuffix("Request")
        listeners = tuple(message.listeners) if message.listeners else None
        entries.append(ApiEntry(message.api_key, name, lowest, highest, listeners, unstable))
    keys = [e.api_key for e in entries]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise DefinitionError([Problem("", "", f"apiKey {k} is defined by more than one request") for k in duplicates])
    return sorted(entries, key=lambda e: e.api_key)


def _git(git_dir: str, *argv: str, stdin: bytes | None = None) -> bytes:
    return git_output(git_dir, f"--git-dir={git_dir}", *argv, stdin=stdin)


def release_tags(git_dir: str) -> list[str]:
    """The final release tags (no -rc, no branch-like names) that hold JSON definitions, oldest first."""
    tags = [t for t in _git(git_dir, "tag", "--list").decode().split() if RELEASE_TAG.match(t)]
    with_defs = []
    for tag in tags:
        found = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "-e", f"{tag}:{MESSAGE_DIR}"],
                               capture_output=True, check=False)
        if found.returncode == 0:
            with_defs.append(tag)
    return sorted(with_defs, key=release_key)


def release_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"[0-9]+", name))


def _request_blobs(git_dir: str, tag: str) -> list[tuple[str, str]]:
    """(file name, object id) of the ``*Request.json`` files of MESSAGE_DIR at ``tag``."""
    out = []
    for line in _git(git_dir, "ls-tree", "-z", f"{tag}:{MESSAGE_DIR}").decode().split("\0"):
        if not line:
            continue
        meta, name = line.split("\t", 1)
        if meta.split()[1] == "blob" and name.endswith("Request.json"):
            out.append((name, meta.split()[2]))
    return sorted(out)


def _read_blobs(git_dir: str, oids: list[str]) -> list[str]:
    """The texts of ``oids``, read by one ``git cat-file --batch``."""
    raw = _git(git_dir, "cat-file", "--batch", stdin="".join(f"{oid}\n" for oid in oids).encode())
    texts, pos = [], 0
    for _ in oids:
        header_end = raw.index(b"\n", pos)
        size = int(raw[pos:header_end].split()[2])
        texts.append(raw[header_end + 1: header_end + 1 + size].decode("utf-8-sig"))
        pos = header_end + 1 + size + 1
    return texts


# Three rules of the broker's Java code that change what it advertises, read from the same tag:
# Kafka 2.7's ApiKeys marks the Raft APIs not enabled (constructor argument isEnabled = false); from
# 3.7 ApiVersionsResponse skips the telemetry APIs unless a telemetry receiver is configured; from
# 4.0 (KAFKA-18659) ApiKeys advertises Produce from v0 on the broker listener although v0-2 are
# refused, because librdkafka will not compress without v0 in the list.
API_KEYS_JAVA = "clients/src/main/java/org/apache/kafka/common/protocol/ApiKeys.java"
API_VERSIONS_JAVA = "clients/src/main/java/org/apache/kafka/common/requests/ApiVersionsResponse.java"
_DISABLED_ENTRY = re.compile(r'^\s*[A-Z_]+\(([0-9]+), "\w+", (?:true|false), false\b', re.MULTILINE)
_TELEMETRY_SKIP = re.compile(r"^[^\n]*apiKey == ApiKeys\.[^\n]*!clientTelemetryEnabled[^\n]*$", re.MULTILINE)
_API_KEY_NAME = re.compile(r"ApiKeys\.([A-Z_]+)")
_PRODUCE_MIN = re.compile(r"\bPRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION\s*=\s*([0-9]+)\s*;")
_PRODUCE_MIN_LISTENER = re.compile(r"this == PRODUCE && listenerType[^;]*ListenerType\.([A-Z_]+)\)")
# ApiMessageType.ListenerType's constants and the listener names of the definitions
_LISTENER_NAMES = {"ZK_BROKER": "zkBroker", "BROKER": "broker", "CONTROLLER": "controller"}


def _java(git_dir: str, tag: str, path: str) -> str:
    found = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{tag}:{path}"], capture_output=True, check=False)
    return found.stdout.decode("utf-8", "replace") if found.returncode == 0 else ""


def _camel(upper_snake: str) -> str:
    return "".join(part.capitalize() for part in upper_snake.split("_"))


@dataclass(frozen=True)
class JavaRules:
    """What the broker's Java code at one revision changes in what it advertises."""

    disabled: dict[int, str]  # api key -> why it is left out
    optional: dict[str, str]  # API name -> when it is advertised
    produce_min: tuple[int, str] | None  # (the advertised lowest Produce version, on which listener)


def java_rules(git_dir: str, tag: str) -> JavaRules:
    """The rules of :class:`JavaRules` as the Java code at ``tag`` has them."""
    api_keys = _java(git_dir, tag, API_KEYS_JAVA)
    disabled = {}
    if "api.isEnabled" in api_keys:
        disabled = {int(key): f"not enabled in {API_KEYS_JAVA} (isEnabled false)"
                    for key in _DISABLED_ENTRY.findall(api_keys)}
    optional = {_camel(name): f"advertised only with a client telemetry receiver ({API_VERSIONS_JAVA})"
                for line in _TELEMETRY_SKIP.findall(_java(git_dir, tag, API_VERSIONS_JAVA))
                for name in _API_KEY_NAME.findall(line)}
    produce_min = None
    found = _PRODUCE_MIN.search(api_keys)
    if found:
        listener = _PRODUCE_MIN_LISTENER.search(api_keys)
        if listener is None or listener.group(1) not in _LISTENER_NAMES:
            # the constant without the condition we know: refuse rather than guess the listener
            raise DefinitionError([Problem(
                f"git:{tag}:{API_KEYS_JAVA}", "PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION",
                "cannot tell on which listener Produce's lowest advertised version applies")])
        produce_min = (int(found.group(1)), _LISTENER_NAMES[listener.group(1)])
    return JavaRules(disabled, optional, produce_min)


def derive_from_git(git_dir: str, tag: str) -> dict[str, Any]:
    """The table of release ``tag``, read from its definitions in the repository ``git_dir``."""
    return _derive_at(git_dir, tag, tag, f"tag {tag} of apache/kafka, {MESSAGE_DIR}")


def derive_from_commit(git_dir: str, release: str, commit: str) -> dict[str, Any]:
    """The table of ``release``, read at ``commit`` of ``git_dir`` (where the release is no tag).

    The source names the commit and its subject line, so that the data says which commit it was
    (a "Bump version to X" release commit, or a branch commit where no release commit was found)."""
    subject = _git(git_dir, "log", "-1", "--format=%s (%cs)", f"{commit}^{{commit}}").decode().strip()
    source = f'commit "{subject}" of Apache Kafka, not a tag of the repository read, {MESSAGE_DIR}'
    return _derive_at(git_dir, commit, release, source)


def _derive_at(git_dir: str, rev: str, release: str, source: str) -> dict[str, Any]:
    commit = _git(git_dir, "rev-parse", f"{rev}^{{commit}}").decode().strip()
    blobs = _request_blobs(git_dir, rev)
    texts = _read_blobs(git_dir, [oid for _, oid in blobs])
    messages = [load_text(text, f"git:{rev}:{MESSAGE_DIR}/{name}", old_format=True)
                for (name, _), text in zip(blobs, texts, strict=True)]
    table = release_table(release, source, commit, messages)
    rules = java_rules(git_dir, rev)
    if rules.disabled:
        table["left_out"] = [{"key": a["key"], "name": a["name"], "why": rules.disabled[a["key"]]}
                             for a in table["apis"] if a["key"] in rules.disabled]
        table["apis"] = [a for a in table["apis"] if a["key"] not in rules.disabled]
    names = {a["name"]: a["key"] for a in table["apis"]}
    if rules.optional:
        table["optional"] = [{"key": names[name], "name": name, "why": why} for name, why in rules.optional.items()
                             if name in names]
    if rules.produce_min is not None and "Produce" in names:
        lowest, listener = rules.produce_min
        table["advertised_min"] = [{"key": names["Produce"], "name": "Produce", "listener": listener, "min": lowest,
                                    "why": f"PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION in {API_KEYS_JAVA} "
                                           "(KAFKA-18659: advertised, but refused below the definition's lowest)"}]
    return table


def derive_from_folder(release: str, folder: str, commit: str, source: str) -> dict[str, Any]:
    """The table of ``release`` from a folder holding its request definitions (e.g. a copy of MESSAGE_DIR)."""
    from pathlib import Path

    files = sorted(Path(folder).glob("*Request.json"))
    if not files:
        raise DefinitionError([Problem(folder, "", "no *Request.json definitions here")])
    messages = [load_text(f.read_text(encoding="utf-8-sig"), str(f), old_format=True) for f in files]
    return release_table(release, source, commit, messages)


def release_table(release: str, source: str, commit: str, messages: list[Message]) -> dict[str, Any]:
    return {"release": release, "source": source, "commit": commit,
            "apis": [entry.to_json() for entry in api_entries(messages)]}


# The data file's "about" line.
_ABOUT_TABLES = ("Per Kafka release: the request APIs and versions its definitions give (validVersions without a "
                 "latestVersionUnstable top version), with their listeners; left_out, optional and advertised_min: "
                 "where the broker Java code advertises otherwise. Derived, never hand-edited.")


def dump_tables(tables: list[dict[str, Any]], not_covered: list[dict[str, str]], derived_by: str) -> str:
    """The data file's text: JSON with one line per API, so that a release's change is a small diff."""
    import json

    lines = ["{",
             f'  "about": {json.dumps(_ABOUT_TABLES)},',
             f'  "derived_by": {json.dumps(derived_by)},',
             f'  "not_covered": {json.dumps(not_covered)},',
             '  "releases": [']
    for i, table in enumerate(sorted(tables, key=lambda t: release_key(t["release"]))):
        extra = "".join(f'"{key}": {json.dumps(table[key])}, ' for key in ("left_out", "optional", "advertised_min")
                        if key in table)
        lines.append("    {" + f'"release": {json.dumps(table["release"])}, "source": {json.dumps(table["source"])}, '
                     f'"commit": {json.dumps(table["commit"])}, {extra}"apis": [')
        apis = table["apis"]
        for j, api in enumerate(apis):
            lines.append("      " + json.dumps(api) + ("," if j < len(apis) - 1 else ""))
        lines.append("    ]}" + ("," if i < len(tables) - 1 else ""))
    lines += ["  ]", "}", ""]
    return "\n".join(lines)
