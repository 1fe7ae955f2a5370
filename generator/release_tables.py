"""Which (API, version) pairs each Kafka release spoke, derived from the release's own definitions.

A release "spoke" an API's versions as its request definition gives them (``validVersions``),
without the top version when the definition marks it ``latestVersionUnstable`` (a broker only
advertises it with ``unstable.api.versions.enable``). ``listeners`` is kept as written (absent
before Kafka 2.8: then every broker advertised every API).

The tables are read from release tags of a Kafka git repository (``derive_from_git``) and from
plain folders of a release's definitions (``derive_from_folder``); each table carries its tag and
commit. ``kwire versions --derive-from`` writes them to ``kwire/network/release_versions.json``,
which ``kwire.network.releases`` reads at run time (it must not import this build-time module).
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from typing import Any

from .errors import DefinitionError, Problem
from .loader import load_text
from .model import Message

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
    try:
        done = subprocess.run(["git", f"--git-dir={git_dir}", *argv], input=stdin, capture_output=True, check=False)
    except OSError as exc:
        raise DefinitionError([Problem(git_dir, "", f"cannot run git: {exc}")]) from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip() or f"git exited with {done.returncode}"
        raise DefinitionError([Problem(git_dir, "", f"cannot read from git: {detail}")])
    return done.stdout


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


# Two rules of the broker's Java code that change what it advertises, read from the same tag:
# Kafka 2.7's ApiKeys marks the Raft APIs not enabled (constructor argument isEnabled = false), and
# from 3.7 ApiVersionsResponse skips the telemetry APIs unless a telemetry receiver is configured.
API_KEYS_JAVA = "clients/src/main/java/org/apache/kafka/common/protocol/ApiKeys.java"
API_VERSIONS_JAVA = "clients/src/main/java/org/apache/kafka/common/requests/ApiVersionsResponse.java"
_DISABLED_ENTRY = re.compile(r'^\s*[A-Z_]+\(([0-9]+), "\w+", (?:true|false), false\b', re.MULTILINE)
_TELEMETRY_SKIP = re.compile(r"^[^\n]*apiKey == ApiKeys\.[^\n]*!clientTelemetryEnabled[^\n]*$", re.MULTILINE)
_API_KEY_NAME = re.compile(r"ApiKeys\.([A-Z_]+)")


def _java(git_dir: str, tag: str, path: str) -> str:
    found = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{tag}:{path}"], capture_output=True, check=False)
    return found.stdout.decode("utf-8", "replace") if found.returncode == 0 else ""


def _camel(upper_snake: str) -> str:
    return "".join(part.capitalize() for part in upper_snake.split("_"))


def java_rules(git_dir: str, tag: str) -> tuple[dict[int, str], dict[str, str]]:
    """(api key -> why it is left out, API name -> when it is advertised) from the tag's Java code."""
    api_keys = _java(git_dir, tag, API_KEYS_JAVA)
    disabled = {}
    if "api.isEnabled" in api_keys:
        disabled = {int(key): f"not enabled in {API_KEYS_JAVA} (isEnabled false)"
                    for key in _DISABLED_ENTRY.findall(api_keys)}
    optional = {_camel(name): f"advertised only with a client telemetry receiver ({API_VERSIONS_JAVA})"
                for line in _TELEMETRY_SKIP.findall(_java(git_dir, tag, API_VERSIONS_JAVA))
                for name in _API_KEY_NAME.findall(line)}
    return disabled, optional


def derive_from_git(git_dir: str, tag: str) -> dict[str, Any]:
    """The table of release ``tag``, read from its definitions in the repository ``git_dir``."""
    commit = _git(git_dir, "rev-parse", f"{tag}^{{commit}}").decode().strip()
    blobs = _request_blobs(git_dir, tag)
    texts = _read_blobs(git_dir, [oid for _, oid in blobs])
    messages = [load_text(text, f"git:{tag}:{MESSAGE_DIR}/{name}", old_format=True)
                for (name, _), text in zip(blobs, texts)]
    table = release_table(tag, f"tag {tag} of apache/kafka, {MESSAGE_DIR}", commit, messages)
    disabled, optional = java_rules(git_dir, tag)
    if disabled:
        table["left_out"] = [{"key": a["key"], "name": a["name"], "why": disabled[a["key"]]}
                             for a in table["apis"] if a["key"] in disabled]
        table["apis"] = [a for a in table["apis"] if a["key"] not in disabled]
    names = {a["name"]: a["key"] for a in table["apis"]}
    if optional:
        table["optional"] = [{"key": names[name], "name": name, "why": why} for name, why in optional.items()
                             if name in names]
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


def dump_tables(tables: list[dict[str, Any]], not_covered: list[dict[str, str]], derived_by: str) -> str:
    """The data file's text: JSON with one line per API, so that a release's change is a small diff."""
    import json

    lines = ["{",
             f'  "about": {json.dumps("Per Kafka release: the request APIs and versions its definitions give (validVersions without a latestVersionUnstable top version), with their listeners. Derived, never hand-edited.")},',
             f'  "derived_by": {json.dumps(derived_by)},',
             f'  "not_covered": {json.dumps(not_covered)},',
             '  "releases": [']
    for i, table in enumerate(sorted(tables, key=lambda t: release_key(t["release"]))):
        extra = "".join(f'"{key}": {json.dumps(table[key])}, ' for key in ("left_out", "optional") if key in table)
        lines.append("    {" + f'"release": {json.dumps(table["release"])}, "source": {json.dumps(table["source"])}, '
                     f'"commit": {json.dumps(table["commit"])}, {extra}"apis": [')
        apis = table["apis"]
        for j, api in enumerate(apis):
            lines.append("      " + json.dumps(api) + ("," if j < len(apis) - 1 else ""))
        lines.append("    ]}" + ("," if i < len(tables) - 1 else ""))
    lines += ["  ]", "}", ""]
    return "\n".join(lines)
