"""Which Kafka releases spoke which API versions, and which releases a broker's ApiVersions fits.

The tables are ``release_versions.json`` beside this module: derived from each release's own
definitions by ``kwire versions --derive-from`` (see :mod:`kwire.generator.evolution.release_tables`), with
each release's tag and commit. A release's table lists every request API with its versions and,
from Kafka 2.8 on, its listeners. A broker advertises the APIs of its own listener: a ZooKeeper
broker those marked ``zkBroker`` (every API before 2.8), a KRaft broker those marked ``broker``.

:func:`release_range` names the releases whose broker table equals what a broker advertised.
Releases the data does not cover (``not_covered``) are never guessed: a range does not reach
across them, and the answer says when the truth may lie in such a gap.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from kwire.wire.errors import KwireError


class ApiVersionsInputError(KwireError, ValueError):
    """What was given is not a broker's list of APIs (an error response, no APIs, a key twice)."""

DATA_FILE = "release_versions.json"
BROKER_PROFILES = ("zkBroker", "broker")  # the ApiVersions a ZooKeeper-mode and a KRaft broker send


@dataclass(frozen=True)
class Release:
    """One release's table: api key -> (name, lowest, highest, listeners or None)."""

    name: str
    source: str
    commit: str
    apis: dict[int, tuple[str, int, int, tuple[str, ...] | None]]
    gap_before: bool  # a release the data does not cover lies between this one and the one before
    optional: frozenset[int] = frozenset()  # APIs a broker of the release advertises only when configured to
    # (api key, listener) -> the lowest version advertised there, below the lowest the release speaks
    # (from 4.0 Produce is advertised from v0 on the broker listener: KAFKA-18659)
    advertised_min: dict[tuple[int, str], int] = field(default_factory=dict)

    def advertised(self, profile: str) -> dict[int, tuple[int, int]] | None:
        """What a broker of this release advertises on ``profile`` (None: the release had no such broker)."""
        has_listeners = any(listeners is not None for _, _, _, listeners in self.apis.values())
        if not has_listeners:
            if profile != "zkBroker":
                return None
            return {key: (low, high) for key, (_, low, high, _) in self.apis.items()}
        out = {key: (self.advertised_min.get((key, profile), low), high)
               for key, (_, low, high, listeners) in self.apis.items()
               if listeners is not None and profile in listeners}
        return out or None


@dataclass(frozen=True)
class ReleaseTables:
    releases: tuple[Release, ...]
    not_covered: tuple[dict[str, str], ...]
    derived_by: str

    def named(self, prefix: str) -> list[Release]:
        """The releases named ``prefix`` or ``prefix.N...`` ("3.6" -> 3.6.0, 3.6.1, 3.6.2)."""
        return [r for r in self.releases if r.name == prefix or r.name.startswith(prefix + ".")]


def _release_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"[0-9]+", name))


def parse_tables(raw: dict[str, Any]) -> ReleaseTables:
    not_covered = tuple(raw.get("not_covered", ()))
    gaps = [(_release_key(g["after"]), _release_key(g["before"])) for g in not_covered]
    releases = []
    ordered = sorted(raw["releases"], key=lambda r: _release_key(r["release"]))
    for i, entry in enumerate(ordered):
        key = _release_key(entry["release"])
        previous = _release_key(ordered[i - 1]["release"]) if i else None
        gap = any((previous is None or previous <= after) and before <= key for after, before in gaps
                  if after < key)
        apis = {api["key"]: (api["name"], api["min"], api["max"],
                             tuple(api["listeners"]) if "listeners" in api else None) for api in entry["apis"]}
        optional = frozenset(item["key"] for item in entry.get("optional", ()))
        advertised_min = {(item["key"], item["listener"]): item["min"] for item in entry.get("advertised_min", ())}
        releases.append(Release(entry["release"], entry["source"], entry["commit"], apis, gap, optional,
                                advertised_min))
    return ReleaseTables(tuple(releases), not_covered, raw.get("derived_by", ""))


@lru_cache(maxsize=1)
def release_tables() -> ReleaseTables:
    """The committed tables (``release_versions.json``)."""
    return parse_tables(json.loads(resources.files("kwire.network").joinpath(DATA_FILE).read_text()))


@dataclass(frozen=True)
class Difference:
    """How one API of a broker differs from a release's table (None: absent on that side)."""

    api_key: int
    name: str
    advertised: tuple[int, int] | None
    release: tuple[int, int] | None

    def __str__(self) -> str:
        def shown(r: tuple[int, int] | None) -> str:
            return "absent" if r is None else f"v{r[0]}-{r[1]}"
        return f"{self.name} ({self.api_key}): broker {shown(self.advertised)}, release {shown(self.release)}"


@dataclass(frozen=True)
class ReleaseMatch:
    """The answer of :func:`release_range`.

    ``releases``: the releases whose broker table equals the advertised one (oldest first), with
    the listener profile that matched. ``ranges``: those releases collapsed into runs of
    consecutive releases ("3.7.0–3.8.0"); a run never spans a release the data does not cover.
    When nothing matches, ``nearest`` is the release table closest to the advertisement and
    ``differences`` what sets them apart."""

    releases: tuple[tuple[str, str], ...]
    ranges: tuple[str, ...]
    nearest: str | None = None
    differences: tuple[Difference, ...] = field(default=())
    touches_gap: bool = False

    @property
    def matched(self) -> bool:
        return bool(self.releases)

    def __str__(self) -> str:
        if self.releases:
            text = ", ".join(self.ranges)
            if self.touches_gap:
                text += " (or a release kwire has no table for next to it)"
            return text
        if self.nearest is None:
            return "no known Kafka release"
        return (f"no known Kafka release (nearest: {self.nearest}, differing in "
                f"{len(self.differences)} API{'' if len(self.differences) == 1 else 's'})")


def _advertised_set(api_versions: Any) -> dict[int, tuple[int, int]]:
    """(api key -> (min, max)) of an ApiVersionsResponse, or of (api_key, min, max) triples."""
    error_code = getattr(api_versions, "error_code", 0)
    if error_code:
        raise ApiVersionsInputError(f"the ApiVersions response is an error (code {error_code}), "
                                    "not the broker's list of APIs")
    items = getattr(api_versions, "api_keys", api_versions)
    out: dict[int, tuple[int, int]] = {}
    for item in items or ():
        key, low, high = ((item.api_key, item.min_version, item.max_version)
                          if hasattr(item, "api_key") else tuple(item))
        if key in out:
            raise ApiVersionsInputError(f"api key {key} is advertised twice")
        out[key] = (low, high)
    if not out:
        raise ApiVersionsInputError("the ApiVersions response advertises no API")
    return out


def _differences(advertised: dict[int, tuple[int, int]], release: Release,
                 table: dict[int, tuple[int, int]]) -> list[Difference]:
    names = {key: name for key, (name, _, _, _) in release.apis.items()}
    # an optional API the broker leaves out is no difference (it matches without it)
    return [Difference(key, names.get(key, f"api {key}"), advertised.get(key), table.get(key))
            for key in sorted(advertised.keys() | table.keys()) if advertised.get(key) != table.get(key)
            and not (key in release.optional and key not in advertised)]


def release_range(api_versions: Any, tables: ReleaseTables | None = None) -> ReleaseMatch:
    """The Kafka releases whose brokers advertise exactly what ``api_versions`` lists.

    ``api_versions``: a decoded ``ApiVersionsResponse`` (its ``api_keys``) or (api_key, min, max)
    triples. A broker that is not Kafka, or a Kafka broker whose configuration changes what it
    advertises (unstable versions enabled, client telemetry without a receiver, an old message
    format), may match none: then ``nearest`` and ``differences`` say how close it came."""
    tables = tables or release_tables()
    advertised = _advertised_set(api_versions)
    matches: list[tuple[int, str]] = []
    best: tuple[int, str, list[Difference]] | None = None
    for index, release in enumerate(tables.releases):
        for profile in BROKER_PROFILES:
            table = release.advertised(profile)
            if table is None:
                continue
            if table == advertised or (release.optional and advertised.items() <= table.items()
                                       and table.keys() - advertised.keys() <= release.optional):
                matches.append((index, profile))
                break
            differences = _differences(advertised, release, table)
            if best is None or len(differences) <= len(best[2]):
                best = (len(differences), release.name, differences)
    if not matches:
        return ReleaseMatch((), (), best[1] if best else None, tuple(best[2]) if best else ())
    runs: list[list[int]] = []
    for index, _ in matches:
        if runs and runs[-1][-1] == index - 1 and not tables.releases[index].gap_before:
            runs[-1].append(index)
        else:
            runs.append([index])
    names = [r.name for r in tables.releases]
    ranges = tuple(names[run[0]] if len(run) == 1 else f"{names[run[0]]}–{names[run[-1]]}" for run in runs)
    last = len(tables.releases) - 1
    touches_gap = any(tables.releases[run[0]].gap_before or (run[-1] < last and tables.releases[run[-1] + 1].gap_before)
                      for run in runs)
    return ReleaseMatch(tuple((names[i], profile) for i, profile in matches), ranges, touches_gap=touches_gap)
