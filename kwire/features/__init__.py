"""KIP-584 feature versioning and KIP-778 metadata.version, as Apache Kafka 4.2.1 defines them.

The tables follow the sources of Kafka 4.2.1 (tag ``4.2.1``, commit 18d5ecd939c8):
``server-common/.../MetadataVersion.java`` and the feature classes beside it (``KRaftVersion``,
``TransactionVersion``, ``GroupVersion``, ``EligibleLeaderReplicasVersion``, ``ShareVersion``,
``StreamsVersion``, ``Feature``). Levels 1 to 6 of metadata.version, which Kafka 4.x dropped, come
from Kafka 3.9. Facts only: the code and its comments are kwire's.

- :mod:`.metadata_version`: every level (``3.6-IV2`` is level 14), whether it changed the
  metadata, the rules gated on it and the record versions Kafka writes at it; parsing.
- :mod:`.feature_versions`: the other features, their levels, dependencies and defaults.
- :mod:`.releases`: which levels each Kafka release (3.3 to 4.2) reads and ships.
- :mod:`.bootstrap`: ``bootstrap.checkpoint`` as ``kafka-storage format`` writes it.
- :mod:`.update_features`: UpdateFeatures as the controller judges it, given a
  :class:`ClusterFeatures` state (``kwire.metadata.cluster_features`` builds one from a replayed
  image); :mod:`.describe` what ``kafka-features describe`` shows.
- :mod:`.java_order`: the iteration orders of Java's and Kafka's hash maps, which decide which
  refusal the controller reports and the order of a snapshot's records (``kwire.metadata``).
"""
from __future__ import annotations

from .bootstrap import BootstrapMetadata, format_bootstrap, format_feature_levels, read_bootstrap
from .errors import FeatureError
from .feature_versions import (
    ELIGIBLE_LEADER_REPLICAS_VERSION,
    FEATURES,
    GROUP_VERSION,
    KRAFT_VERSION,
    SHARE_VERSION,
    STREAMS_VERSION,
    TEST_FEATURES,
    TRANSACTION_VERSION,
    Feature,
    FeatureLevel,
    default_levels,
    feature,
    validate_level,
)
from .metadata_version import (
    FEATURE_NAME as METADATA_VERSION,
)
from .metadata_version import (
    GATES,
    KAFKA_RELEASE,
    LATEST,
    LATEST_PRODUCTION,
    METADATA_VERSIONS,
    MINIMUM_BOOTSTRAP_LEVEL,
    MINIMUM_KRAFT_LEVEL,
    MINIMUM_LEVEL,
    RECORD_VERSIONS,
    MetadataVersion,
    from_level,
    metadata_changed_between,
    metadata_version,
)
from .releases import RELEASES, KafkaRelease, kafka_release, release_for
from .update_features import ClusterFeatures, Verdict, judge_update_features, update_request

__all__ = [
    "ELIGIBLE_LEADER_REPLICAS_VERSION", "FEATURES", "GATES", "GROUP_VERSION", "KAFKA_RELEASE", "KRAFT_VERSION",
    "LATEST", "LATEST_PRODUCTION", "METADATA_VERSION", "METADATA_VERSIONS", "MINIMUM_BOOTSTRAP_LEVEL",
    "MINIMUM_KRAFT_LEVEL", "MINIMUM_LEVEL", "RECORD_VERSIONS", "RELEASES", "SHARE_VERSION", "STREAMS_VERSION",
    "TEST_FEATURES", "TRANSACTION_VERSION", "Feature", "FeatureError", "FeatureLevel", "KafkaRelease",
    "MetadataVersion",
    "default_levels", "feature", "from_level", "kafka_release", "metadata_changed_between", "metadata_version",
    "release_for", "validate_level",
    "BootstrapMetadata", "ClusterFeatures", "Verdict", "format_bootstrap", "format_feature_levels",
    "judge_update_features", "read_bootstrap", "update_request",
]
