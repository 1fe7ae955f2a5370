"""The features other than metadata.version (KIP-584/KIP-1022), as Kafka 4.2.1 defines them.

Each :class:`Feature` has levels (:class:`FeatureLevel`), each with the metadata.version from which
it is the level a new cluster gets by default (its *bootstrap* metadata.version) and the levels of
other features it needs (its dependencies). Level 0 means "off" and is every feature's first level.
Kafka's own test features (``test.feature.version``, ``unit.test.feature.version.0`` to ``.7``)
are not among :data:`FEATURES`, which are the production ones; they are in :data:`TEST_FEATURES`
because Kafka's controller knows them by name (disabling one is accepted, and appends its record),
though no Kafka node supports any of their levels above 0 unless run with unstable features. Some
of their levels are tied to Kafka 4.2.1's unstable metadata.version 30, which kwire carries only as
a number (see :mod:`kwire.features.metadata_version`).

:func:`validate_level` is Kafka's ``Feature.validateVersion`` with its messages word for word;
:func:`default_levels` gives the level of every feature a cluster formatted at a metadata.version
starts with (``Feature.defaultLevel``).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .errors import FeatureError
from .metadata_version import (
    FEATURE_NAME as METADATA_VERSION,
)
from .metadata_version import (
    MINIMUM_LEVEL,
    MetadataVersion,
    from_level,
    metadata_version,
)


@dataclass(frozen=True)
class FeatureLevel:
    """One level of a feature."""

    feature: str
    level: int
    bootstrap_level: int  # the metadata.version level from which this is the default
    dependencies: Mapping[str, int] = field(default_factory=dict)  # feature name -> level needed
    about: str = ""

    @property
    def bootstrap_metadata_version(self) -> MetadataVersion:
        return from_level(self.bootstrap_level)


@dataclass(frozen=True)
class Feature:
    """A feature and its levels, oldest first, as one of Kafka's ``FeatureVersion`` enums."""

    name: str
    levels: tuple[FeatureLevel, ...]
    latest_production: int
    #: kraft.version lives in the raft log's control records, not in a FeatureLevelRecord
    in_feature_level_records: bool = True

    @property
    def minimum_production(self) -> int:
        return self.levels[0].level

    @property
    def latest_testing(self) -> int:
        return self.levels[-1].level

    def supported_range(self, *, unstable: bool = False) -> tuple[int, int]:
        """The range a Kafka 4.2.1 node supports (``latestTesting`` with unstable versions on)."""
        return self.minimum_production, self.latest_testing if unstable else self.latest_production

    def level(self, level: int, *, unstable: bool = False) -> FeatureLevel:
        """The level ``level``; Kafka's ``Feature.fromFeatureLevel`` message when it has none."""
        for candidate in self.levels:
            if candidate.level == level and (unstable or level <= self.latest_production):
                return candidate
        raise FeatureError(f"No feature:{self.name} with feature level {level}")

    def default_level(self, mv: MetadataVersion | int | str) -> int:
        """The level a cluster formatted at metadata.version ``mv`` gets (``Feature.defaultLevel``)."""
        target = metadata_version(mv).level
        chosen = self.levels[0]
        for candidate in self.levels:
            if candidate.bootstrap_level > target:
                break
            chosen = candidate
        return chosen.level


def _feature(name: str, latest_production: int, *levels: tuple, in_records: bool = True) -> Feature:
    built = tuple(FeatureLevel(name, level, bootstrap, MappingProxyType(dict(deps)), about)
                  for level, bootstrap, deps, about in levels)
    return Feature(name, built, latest_production, in_records)


KRAFT_VERSION = "kraft.version"
TRANSACTION_VERSION = "transaction.version"
GROUP_VERSION = "group.version"
ELIGIBLE_LEADER_REPLICAS_VERSION = "eligible.leader.replicas.version"
SHARE_VERSION = "share.version"
STREAMS_VERSION = "streams.version"

#: Every production feature of Kafka 4.2.1 but metadata.version, in Kafka's ``Feature`` enum order.
FEATURES: Mapping[str, Feature] = MappingProxyType({f.name: f for f in (
    _feature(KRAFT_VERSION, 1,
             (0, MINIMUM_LEVEL, {}, "static controller quorum"),
             (1, 21, {}, "dynamic controller quorum (KIP-853)"),
             in_records=False),
    _feature(TRANSACTION_VERSION, 2,
             (0, MINIMUM_LEVEL, {}, "the original transaction coordinator"),
             (1, 24, {}, "flexible transactional state records (KIP-890)"),
             (2, 24, {}, "an epoch bump per transaction (KIP-890)")),
    _feature(GROUP_VERSION, 1,
             (0, MINIMUM_LEVEL, {}, "the classic group coordinator only"),
             (1, 22, {}, "the consumer rebalance protocol (KIP-848)")),
    _feature(ELIGIBLE_LEADER_REPLICAS_VERSION, 1,
             (0, MINIMUM_LEVEL, {}, "no eligible leader replicas"),
             (1, 26, {METADATA_VERSION: 23}, "eligible leader replicas (KIP-966)")),
    _feature(SHARE_VERSION, 1,
             (0, MINIMUM_LEVEL, {}, "no share groups"),
             (1, 28, {}, "share groups (KIP-932)")),
    _feature(STREAMS_VERSION, 1,
             (0, MINIMUM_LEVEL, {}, "no streams groups"),
             (1, 29, {}, "streams groups (KIP-1071)")),
)})

#: Kafka 4.2.1's test features (``TestFeatureVersion``, ``UnitTestFeatureVersion``), in ``Feature``
#: enum order: known to the controller's ``Feature.featureFromName``, supported by no production node.
#: Level 30 is 4.2.1's unstable metadata.version (its ``latestTesting()``).
TEST_FEATURES: Mapping[str, Feature] = MappingProxyType({f.name: f for f in (
    _feature("test.feature.version", 1,
             (0, MINIMUM_LEVEL, {}, ""), (1, 15, {}, ""), (2, 30, {METADATA_VERSION: 30}, "")),
    _feature("unit.test.feature.version.0", 1, (0, MINIMUM_LEVEL, {}, "")),  # the enum lists level 0 only
    _feature("unit.test.feature.version.1", 0, (0, MINIMUM_LEVEL, {}, ""), (1, 15, {}, "")),
    _feature("unit.test.feature.version.2", 0, (0, MINIMUM_LEVEL, {}, ""), (1, 15, {}, "")),
    _feature("unit.test.feature.version.3", 1,
             (0, MINIMUM_LEVEL, {}, ""), (1, 15, {"unit.test.feature.version.2": 1}, "")),
    _feature("unit.test.feature.version.4", 1, (0, MINIMUM_LEVEL, {}, ""), (1, 30, {}, "")),
    _feature("unit.test.feature.version.5", 1,
             (0, MINIMUM_LEVEL, {}, ""), (1, 15, {"unit.test.feature.version.4": 1}, "")),
    _feature("unit.test.feature.version.6", 1, (0, MINIMUM_LEVEL, {}, ""), (1, 30, {METADATA_VERSION: 30}, "")),
    _feature("unit.test.feature.version.7", 1,
             (0, MINIMUM_LEVEL, {METADATA_VERSION: 15}, ""), (1, 20, {METADATA_VERSION: 20}, "")),
)})


def feature(name: str) -> Feature:
    """The feature called ``name`` (not metadata.version, which is :mod:`.metadata_version`)."""
    try:
        return FEATURES[name]
    except KeyError:
        raise FeatureError(f"unknown feature {name!r}; kwire knows {METADATA_VERSION}, "
                           f"{', '.join(FEATURES)}") from None


def validate_level(level: FeatureLevel, levels: Mapping[str, int]) -> str | None:
    """Kafka's ``Feature.validateVersion``: why ``level`` cannot be set beside ``levels`` (every
    feature's level, metadata.version's included), word for word, or None when it can."""
    mv = levels.get(METADATA_VERSION)
    if level.level >= 1 and (mv is None or mv < MINIMUM_LEVEL):
        minimum = from_level(MINIMUM_LEVEL)
        return (f"{level.feature} could not be set to {level.level} because it depends on "
                f"{METADATA_VERSION}={MINIMUM_LEVEL} ({minimum})")
    for name, needed in level.dependencies.items():
        have = levels.get(name)
        if have is None or have < needed:
            return f"{level.feature} could not be set to {level.level} because it depends on {name} level {needed}"
    return None


def default_levels(mv: MetadataVersion | int | str) -> dict[str, int]:
    """Every feature's default level at metadata.version ``mv``, metadata.version's own included."""
    target = metadata_version(mv)
    levels = {METADATA_VERSION: target.level}
    levels.update((name, f.default_level(target)) for name, f in FEATURES.items())
    return levels
