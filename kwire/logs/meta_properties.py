"""``meta.properties`` and ``kafka-storage info``: what a node's log directories hold and whether they agree.

Followed: Kafka 3.9's ``StorageTool.infoCommand`` (core/src/main/scala/kafka/tools/StorageTool.scala,
unchanged in trunk 1eb7644), ``MetaProperties.Builder``, ``MetaPropertiesVersion`` and
``PropertiesUtils`` (metadata/.../metadata/properties/), and ``java.util.Properties.load`` for the
file's syntax (ISO-8859-1, ``#``/``!`` comments, ``=``/``:``/white-space separators, backslash
escapes and line continuations). kwire takes the directories themselves rather than a
``server.properties``, and checks them as for a KRaft node (Kafka 4 has no other kind).
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kwire.wire.errors import KwireError

META_PROPERTIES_NAME = "meta.properties"
MAX_META_PROPERTIES_BYTES = 1 << 20  # Kafka writes four short lines


class MetaPropertiesError(KwireError):
    """A meta.properties ``MetaProperties.Builder`` refuses, in Kafka's words."""


# ----------------------------------------------------------------------- java.util.Properties


_NATURAL_LINE = re.compile(r"\r\n|\r|\n")
_WHITE = " \t\f"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _logical_lines(text: str) -> list[str]:
    """``Properties.LineReader``: comments and blank lines dropped, continuations joined, leading
    white space of each natural line cut."""
    out: list[str] = []
    pending: str | None = None
    for natural in _NATURAL_LINE.split(text):
        line = natural.lstrip(_WHITE)
        if pending is None and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        joined = (pending or "") + line
        if trailing % 2 == 1:  # an odd count of backslashes: the line goes on
            pending = joined[:-1]
            continue
        out.append(joined)
        pending = None
    if pending is not None:
        out.append(pending)
    return out


def _unescape(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        i += 1
        if c != "\\" or i >= len(text):
            if c != "\\":
                out.append(c)
            continue
        c = text[i]
        i += 1
        if c == "u":
            digits = text[i:i + 4]
            if len(digits) < 4 or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise MetaPropertiesError("Malformed \\uxxxx encoding.")
            out.append(chr(int(digits, 16)))
            i += 4
        else:
            out.append(_ESCAPES.get(c, c))
    return "".join(out)


def parse_java_properties(data: bytes) -> dict[str, str]:
    """``Properties.load(InputStream)``: the keys and values of a properties file (last one wins)."""
    properties: dict[str, str] = {}
    for line in _logical_lines(data.decode("latin-1")):
        i = 0
        while i < len(line):  # the key ends at an unescaped separator
            if line[i] == "\\":
                i += 2
                continue
            if line[i] in "=:" or line[i] in _WHITE:
                break
            i += 1
        key, rest = line[:i], line[i:]
        rest = rest.lstrip(_WHITE)
        if rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(_WHITE)
        properties[_unescape(key)] = _unescape(rest)
    return properties


# ----------------------------------------------------------------------------- meta.properties


@dataclass(frozen=True)
class MetaProperties:
    """``MetaProperties``: version 0 (ZooKeeper-era, ``broker.id``) or 1 (KRaft, ``node.id``)."""

    version: int
    cluster_id: str | None
    node_id: int | None
    directory_id: str | None

    def to_properties(self) -> dict[str, str]:
        """``MetaProperties.toProperties``."""
        props = {"version": str(self.version)}
        if self.cluster_id is not None:
            props["cluster.id"] = self.cluster_id
        if self.node_id is not None:
            props["broker.id" if self.version == 0 else "node.id"] = str(self.node_id)
        if self.directory_id is not None:
            props["directory.id"] = self.directory_id
        return props


def _java_trim(text: str) -> str:
    """``String.trim``: every character up to U+0020 cut from both ends."""
    start, end = 0, len(text)
    while start < end and ord(text[start]) <= 32:
        start += 1
    while end > start and ord(text[end - 1]) <= 32:
        end -= 1
    return text[start:end]


def _java_int(text: str) -> int | None:
    if re.fullmatch(r"[+-]?\d+", text) and -(1 << 31) <= int(text) < 1 << 31:
        return int(text)
    return None


def meta_properties_from(props: dict[str, str]) -> MetaProperties:
    """``new MetaProperties.Builder(props).build()``, with Kafka's messages."""
    from kwire.wire.jsonform import uuid_from_text, uuid_to_text

    version_text = props.get("version", "0")
    version = _java_int(_java_trim(version_text))
    if version is None:
        raise MetaPropertiesError(f"Invalid meta.properties version string '{version_text}'")
    if version not in (0, 1):
        raise MetaPropertiesError(f"Unknown meta.properties version number {version}")
    id_key = "broker.id" if version == 0 else "node.id"
    node_id = None
    if version == 1 or id_key in props:
        if id_key not in props:
            raise MetaPropertiesError(f"Failed to find {id_key}")
        node_id = _java_int(props[id_key])
        if node_id is None:
            raise MetaPropertiesError(f"Unable to read {id_key} as a base-10 number.")
    directory_id = props.get("directory.id")
    if directory_id is not None:
        try:
            if len(directory_id) > 24:
                raise ValueError(f"Input string with prefix `{directory_id[:24]}` is too long to be decoded "
                                 f"as a base64 UUID")
            directory_id = uuid_to_text(uuid_from_text(directory_id))
        except ValueError as err:
            raise MetaPropertiesError(f"Unable to read directory.id as a Uuid: {err}") from None
    cluster_id = props.get("cluster.id")
    if version != 0 and cluster_id is None:
        raise MetaPropertiesError("cluster.id was not found.")
    return MetaProperties(version, cluster_id, node_id, directory_id)


def read_meta_properties(path: str | os.PathLike) -> MetaProperties:
    path = Path(path)
    if path.stat().st_size > MAX_META_PROPERTIES_BYTES:
        raise MetaPropertiesError(f"{path.stat().st_size} bytes, more than a meta.properties holds")
    return meta_properties_from(parse_java_properties(path.read_bytes()))


# --------------------------------------------------------------------------------- storage info


def java_path_text(directory: str) -> str:
    """``Paths.get(directory).toString()``: repeated and trailing slashes dropped, nothing else."""
    text = re.sub(r"/+", "/", directory)
    return text.rstrip("/") or text


def java_tree_map_text(props: dict[str, str]) -> str:
    """``new TreeMap(props).toString()``: ``{k=v, k2=v2}`` in key order."""
    keys = sorted(props, key=lambda k: k.encode("utf-16-be", "surrogatepass"))
    return "{" + ", ".join(f"{k}={props[k]}" for k in keys) + "}"


@dataclass
class StorageInfo:
    """What ``kafka-storage info`` finds: the directories, the first meta.properties read, the problems."""

    directories: list[str] = field(default_factory=list)
    metadata: MetaProperties | None = None
    problems: list[str] = field(default_factory=list)
    by_directory: dict[str, MetaProperties | str] = field(default_factory=dict)  # properties, or what is wrong

    def lines(self) -> list[str]:
        """``infoCommand``'s output, line by line (its blank lines included)."""
        out: list[str] = []
        if self.directories:
            out.append("Found log directory:" if len(self.directories) == 1 else "Found log directories:")
            out += [f"  {d}" for d in self.directories]
            out.append("")
        if self.metadata is not None:
            out += [f"Found metadata: {java_tree_map_text(self.metadata.to_properties())}", ""]
        if self.problems:
            out.append("Found problem:" if len(self.problems) == 1 else "Found problems:")
            out += [f"  {p}" for p in self.problems]
            out.append("")
        return out


def storage_info(directories: Iterable[str], *, kraft_mode: bool = True) -> StorageInfo:
    """``StorageTool.infoCommand`` over ``directories`` (as given; Kafka sorts them)."""
    info = StorageInfo()
    previous: MetaProperties | None = None
    for directory in sorted(directories, key=lambda d: d.encode("utf-16-be", "surrogatepass")):
        shown = java_path_text(directory)
        path = Path(directory)
        if not path.is_dir():
            info.problems.append(f"{shown} does not exist" if not path.exists() else f"{shown} is not a directory")
            continue
        info.directories.append(shown)
        meta_path = f"{shown}/{META_PROPERTIES_NAME}"
        if not (path / META_PROPERTIES_NAME).exists():
            info.problems.append(f"{shown} is not formatted.")
            info.by_directory[shown] = "not formatted"
            continue
        try:
            current = read_meta_properties(path / META_PROPERTIES_NAME)
        except (MetaPropertiesError, OSError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            info.problems.append(f"Error loading {meta_path}: {reason}")
            info.by_directory[shown] = reason
            continue
        info.by_directory[shown] = current
        if previous is None:
            previous = current
        elif previous.cluster_id != current.cluster_id:
            info.problems.append("Mismatched cluster IDs between storage directories.")
        elif previous.node_id != current.node_id:
            info.problems.append("Mismatched node IDs between storage directories.")
    info.metadata = previous
    if previous is not None:
        if kraft_mode and previous.version == 0:
            info.problems.append("The kafka configuration file appears to be for a cluster in KRaft mode, but the "
                                 "directories are formatted for legacy mode.")
        elif not kraft_mode and previous.version == 1:
            info.problems.append("The kafka configuration file appears to be for a legacy cluster, but the "
                                 "directories are formatted for a cluster in KRaft mode.")
    return info
