"""``kafka-features version-mapping`` and ``feature-dependencies``, as Kafka 4.2.1's ``FeatureCommand`` prints them.

Both read only the tables (:mod:`.metadata_version`, :mod:`.feature_versions`); neither asks a
cluster. ``version-mapping`` prints ``metadata.version=LEVEL (RELEASE)`` with the release as it was
typed, then every production feature, in Kafka's ``Feature`` enum order, at its default level for
that metadata.version (``Feature.defaultLevel``). ``feature-dependencies`` prints, for each
``NAME=LEVEL``, the levels it needs (``FeatureVersion.dependencies``; unstable levels are looked up
too, as Kafka's tool asks ``fromFeatureLevel(level, true)``). Each function returns the lines
Kafka prints and a JSON form; a refusal raises :class:`FeatureError` with Kafka's message, after
the lines printed before it (:attr:`LookupRefused.done`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import FeatureError
from .feature_versions import FEATURES
from .metadata_version import (
    FEATURE_NAME as METADATA_VERSION,
)
from .metadata_version import (
    LATEST_PRODUCTION,
    MINIMUM_LEVEL,
    MetadataVersion,
    from_level,
    metadata_version,
)


@dataclass
class Lookup:
    """What the tool prints (``lines``) and the same as JSON (``json``)."""

    lines: list[str] = field(default_factory=list)
    json: Any = None


class LookupRefused(FeatureError):
    """A refusal in Kafka's words, with what was printed before it."""

    def __init__(self, message: str, done: Lookup) -> None:
        super().__init__(message)
        self.done = done


def kafka_version_string(text: str) -> MetadataVersion:
    """``MetadataVersion.fromVersionString`` of Kafka 4.2.1: ``3.9-IV0``, a release ``3.9`` (its newest
    level) or ``3.9.1`` (the first two parts); levels below 3.3-IV3 no longer exist; no bare levels."""
    if not text or text.strip().isdigit() or text != text.strip():
        raise FeatureError(f"Version {text} is not a valid version")
    try:
        found = metadata_version(text)
    except FeatureError:
        raise FeatureError(f"Version {text} is not a valid version") from None
    if found.level < MINIMUM_LEVEL:
        raise FeatureError(f"Version {text} is not a valid version")
    return found


def version_mapping(release_version: str | None = None) -> Lookup:
    """``kafka-features version-mapping [--release-version R]``."""
    text = release_version if release_version is not None else LATEST_PRODUCTION.name
    try:
        mv = kafka_version_string(text)
    except FeatureError:
        raise LookupRefused(f"Unknown release version '{text}'. Supported versions are: {from_level(MINIMUM_LEVEL)} "
                            f"to {LATEST_PRODUCTION}", Lookup()) from None
    levels = {name: feature.default_level(mv) for name, feature in FEATURES.items()}
    lines = [f"{METADATA_VERSION}={mv.level} ({text})"] + [f"{name}={level}" for name, level in levels.items()]
    return Lookup(lines, {"releaseVersion": text, METADATA_VERSION: {"level": mv.level, "name": mv.name},
                          "features": levels})


def parse_name_and_level(text: str) -> tuple[str, int]:
    """``FeatureCommand.parseNameAndLevel``: its messages; the level must fit a Java short."""
    equals = text.find("=")
    if equals < 0:
        raise FeatureError(f"Can't parse feature=level string {text}: equals sign not found.")
    name, level = text[:equals].strip(), text[equals + 1:].strip()
    digits = level[1:] if level[:1] in "+-" else level
    if not digits.isascii() or not digits.isdigit() or not -32768 <= int(level) <= 32767:
        raise FeatureError(f"Can't parse feature=level string {text}: unable to parse {level} as a short.")
    return name, int(level)


def feature_dependencies(assignments: Sequence[str]) -> Lookup:
    """``kafka-features feature-dependencies --feature NAME=LEVEL ...``, in the order given."""
    done = Lookup([], [])
    for text in assignments:
        try:
            name, level = parse_name_and_level(text)
            if name == METADATA_VERSION:
                try:
                    mv = from_level(level)
                except (FeatureError, KeyError, ValueError):
                    raise FeatureError(f"Unknown metadata.version {level}") from None
                if mv.level < MINIMUM_LEVEL:  # 4.2.1's enum starts at 3.3-IV3
                    raise FeatureError(f"Unknown metadata.version {level}")
                done.lines.append(f"{name}={level} ({mv.name}) has no dependencies.")
                done.json.append({"feature": name, "level": level, "name": mv.name, "dependencies": {}})
                continue
            feature = FEATURES.get(name)
            if feature is None:
                raise FeatureError(f"Unknown feature: {name}")
            dependencies = dict(feature.level(level, unstable=True).dependencies)
        except FeatureError as err:
            raise LookupRefused(str(err), done) from None
        if not dependencies:
            done.lines.append(f"{name}={level} has no dependencies.")
        else:
            done.lines.append(f"{name}={level} requires:")
            for needed, needed_level in dependencies.items():
                shown = f" ({from_level(needed_level).name})" if needed == METADATA_VERSION else ""
                done.lines.append(f"    {needed}={needed_level}{shown}")
        done.json.append({"feature": name, "level": level, "dependencies": dependencies})
    return done
