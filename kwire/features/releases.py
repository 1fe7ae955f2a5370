"""Which metadata.version levels each Kafka release (3.3 to 4.2) reads, and which it ships as default.

From each release's ``MetadataVersion`` (tags 3.3.1 ... 4.2.1): Kafka 3.x reads every KRaft level
from 3.0-IV1 (``MINIMUM_KRAFT_VERSION``), Kafka 4.x from 3.3-IV3 (``MINIMUM_VERSION``); the latest
production level is the one a new cluster gets and the highest ``kafka-features`` accepts without
unstable versions. (3.3 to 3.6 had no ``LATEST_PRODUCTION`` constant: their newest level was it.)

Beside the levels, each release's rules where its image and snapshot writer differ from another's,
as fields (what reads them: :mod:`kwire.metadata.writer` and :mod:`kwire.metadata.delta`), from
each release's ``org.apache.kafka.image`` sources (3.9.0, 4.0.0, 4.1.1, 4.2.1).
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
    #: the image writer writes a ZkMigrationStateRecord (from 3.4-IV0): 3.4 to 3.9; 3.3 predates
    #: it, 4.x removed the migration
    writes_zk_migration_state: bool = False
    #: the image keeps the ZK migration state (a lost state is a loss in Kafka's words): 3.x
    keeps_zk_migration_state: bool = False
    #: the image keeps a FeatureLevelRecord for kraft.version, so the writer writes it: 3.x
    #: (4.x skips it on replay, KAFKA-18979)
    writes_kraft_version_feature_record: bool = False
    #: partitions' eligible leader replicas are written when eligible.leader.replicas.version is on
    #: (``ImageWriterOptions.isEligibleLeaderReplicasEnabled``): 4.x; 3.x decides by level alone
    writes_elr_by_feature: bool = False
    #: configs the release does not define are skipped on replay, so never written: 4.2 (KAFKA-19851)
    skips_undefined_configs: bool = False
    #: a RemoveTopicRecord drops the topic's configs only when the image before the delta holds
    #: them (``ConfigurationsDelta.replay(RemoveTopicRecord)``): every release
    remove_topic_configs_from_image_only: bool = True
    #: a ClearElrRecord for every topic clears the topics created in the same delta too: 4.1 on
    #: (4.0 clears the image's only; 3.x has no ClearElrRecord)
    clear_elr_covers_delta_topics: bool = True

    @property
    def latest_production(self) -> MetadataVersion:
        return from_level(self.latest_production_level)

    def reads(self, mv: MetadataVersion | int | str) -> bool:
        """Whether this release can run a cluster at metadata.version ``mv``."""
        return self.minimum_level <= metadata_version(mv).level <= self.latest_production_level


def _3x(name: str, latest_production_level: int, *, writes_zk_migration_state: bool = True) -> KafkaRelease:
    """A 3.x release: it reads every KRaft level and keeps what 4.x dropped (the ZK migration
    state, a kraft.version FeatureLevelRecord)."""
    return KafkaRelease(name, MINIMUM_KRAFT_LEVEL, latest_production_level,
                        writes_zk_migration_state=writes_zk_migration_state, keeps_zk_migration_state=True,
                        writes_kraft_version_feature_record=True)


#: Oldest first. Levels a release knew only as unstable are not counted as its own.
RELEASES: tuple[KafkaRelease, ...] = (
    _3x("3.3", 7, writes_zk_migration_state=False),
    _3x("3.4", 8),
    _3x("3.5", 11),
    _3x("3.6", 14),
    _3x("3.7", 19),
    _3x("3.8", 20),
    _3x("3.9", 21),
    KafkaRelease("4.0", MINIMUM_LEVEL, 25, writes_elr_by_feature=True, clear_elr_covers_delta_topics=False),
    KafkaRelease("4.1", MINIMUM_LEVEL, 27, writes_elr_by_feature=True),
    KafkaRelease("4.2", MINIMUM_LEVEL, 29, writes_elr_by_feature=True, skips_undefined_configs=True),
)
_BY_NAME = {r.name: r for r in RELEASES}


def kafka_release(name: str) -> KafkaRelease:
    """The release ``3.6`` (``3.6.1`` counts as its line ``3.6``)."""
    line = ".".join(str(name).strip().split(".")[:2])
    try:
        return _BY_NAME[line]
    except KeyError:
        raise FeatureError(f"unknown Kafka release {name!r}; kwire knows {', '.join(_BY_NAME)}") from None


def release_for(mv: MetadataVersion | int | str) -> KafkaRelease:
    """The oldest release that ships ``mv`` as production (``14`` -> 3.6; levels below 3.3-IV3 -> 3.3)."""
    level = metadata_version(mv).level
    for release in RELEASES:
        if level <= release.latest_production_level:
            return release
    raise FeatureError(f"no Kafka release kwire knows ships metadata.version {level}")  # pragma: no cover
