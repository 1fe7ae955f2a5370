"""Which metadata.version levels each Kafka release (3.3 to 4.2) reads, and which it ships as default.

From each release's ``MetadataVersion`` (tags 3.3.1 ... 4.2.1): Kafka 3.x reads every KRaft level
from 3.0-IV1 (``MINIMUM_KRAFT_VERSION``), Kafka 4.x from 3.3-IV3 (``MINIMUM_VERSION``); the latest
production level is the one a new cluster gets and the highest ``kafka-features`` accepts without
unstable versions. (3.3 to 3.6 had no ``LATEST_PRODUCTION`` constant: their newest level was it.)
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import FeatureError
from .metadata_version import MINIMUM_KRAFT_LEVEL, MINIMUM_LEVEL, MetadataVersion, from_level, metadata_version


@dataclass(frozen=True)
class KafkaRelease:
    """A Kafka release line (``3.6``) and the metadata.version levels it knows."""

    name: str
    minimum_level: int
    latest_production_level: int

    @property
    def latest_production(self) -> MetadataVersion:
        return from_level(self.latest_production_level)

    def reads(self, mv: "MetadataVersion | int | str") -> bool:
        """Whether this release can run a cluster at metadata.version ``mv``."""
        return self.minimum_level <= metadata_version(mv).level <= self.latest_production_level


#: Oldest first. Levels a release knew only as unstable are not counted as its own.
RELEASES: tuple[KafkaRelease, ...] = (
    KafkaRelease("3.3", MINIMUM_KRAFT_LEVEL, 7),
    KafkaRelease("3.4", MINIMUM_KRAFT_LEVEL, 8),
    KafkaRelease("3.5", MINIMUM_KRAFT_LEVEL, 11),
    KafkaRelease("3.6", MINIMUM_KRAFT_LEVEL, 14),
    KafkaRelease("3.7", MINIMUM_KRAFT_LEVEL, 19),
    KafkaRelease("3.8", MINIMUM_KRAFT_LEVEL, 20),
    KafkaRelease("3.9", MINIMUM_KRAFT_LEVEL, 21),
    KafkaRelease("4.0", MINIMUM_LEVEL, 25),
    KafkaRelease("4.1", MINIMUM_LEVEL, 27),
    KafkaRelease("4.2", MINIMUM_LEVEL, 29),
)
_BY_NAME = {r.name: r for r in RELEASES}


def kafka_release(name: str) -> KafkaRelease:
    """The release ``3.6`` (``3.6.1`` counts as its line ``3.6``)."""
    line = ".".join(str(name).strip().split(".")[:2])
    try:
        return _BY_NAME[line]
    except KeyError:
        raise FeatureError(f"unknown Kafka release {name!r}; kwire knows {', '.join(_BY_NAME)}") from None


def release_for(mv: "MetadataVersion | int | str") -> KafkaRelease:
    """The oldest release that ships ``mv`` as production (``14`` -> 3.6; levels below 3.3-IV3 -> 3.3)."""
    level = metadata_version(mv).level
    for release in RELEASES:
        if level <= release.latest_production_level:
            return release
    raise FeatureError(f"no Kafka release kwire knows ships metadata.version {level}")  # pragma: no cover
