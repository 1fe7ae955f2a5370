"""Changes to the finalized features (Kafka's ``FeaturesDelta``): metadata.version, the other
features' levels (level 0 removes one) and the ZK migration state."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from kwire.generated import FeatureLevelRecord, ZkMigrationStateRecord
from kwire.metadata.changes import MapChanges
from kwire.metadata.errors import ReplayError
from kwire.metadata.image import ZK_MIGRATION_STATES, FeaturesImage

METADATA_VERSION = "metadata.version"


class FeaturesDelta:
    """``known_metadata_version`` tells whether a metadata.version level exists (Kafka refuses a
    FeatureLevelRecord naming a level it does not know); None accepts every level."""

    def __init__(self, image: FeaturesImage, known_metadata_version: Callable[[int], bool] | None = None) -> None:
        self.image = image
        self._known_metadata_version = known_metadata_version
        self.metadata_version = image.metadata_version
        self.finalized = MapChanges(image.finalized)
        self.zk_migration_state = image.zk_migration_state

    def replay_feature_level(self, record: FeatureLevelRecord) -> None:
        if record.name == METADATA_VERSION:
            known = self._known_metadata_version
            if known is not None and not known(record.feature_level):
                raise ReplayError(f"No MetadataVersion with feature level {record.feature_level}")
            self.metadata_version = record.feature_level
        elif record.feature_level == 0:
            self.finalized.remove(record.name)
        else:
            self.finalized.set(record.name, record.feature_level)

    def replay_zk_migration_state(self, record: ZkMigrationStateRecord) -> None:
        if record.zk_migration_state not in ZK_MIGRATION_STATES:
            raise ReplayError(f"Value {record.zk_migration_state} is not a valid Zk migration state")
        self.zk_migration_state = record.zk_migration_state

    def apply(self) -> FeaturesImage:
        return replace(self.image, metadata_version=self.metadata_version, finalized=self.finalized.frozen(),
                       zk_migration_state=self.zk_migration_state)
