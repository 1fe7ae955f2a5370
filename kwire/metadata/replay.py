"""Records replayed one after another onto an image, each change visible to the next record.

:class:`MetadataReplayer` keeps one :class:`kwire.metadata.delta.MetadataDelta` open and makes
the image from it when asked (``replayer.image``), then goes on from that image with a new delta.
It is the controller's view (every rule acts on everything present), the view the loader gives
too; the loader itself commits a delta per batch or transaction (:mod:`kwire.metadata.loader`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kwire.features.releases import KafkaRelease
from kwire.metadata.delta import MetadataDelta
from kwire.metadata.errors import ReplayError
from kwire.metadata.image import MetadataImage

__all__ = ["MetadataReplayer", "ReplayError"]


class MetadataReplayer:
    """Applies metadata records, one at a time, to ``image``.

    ``known_metadata_version`` tells whether a metadata.version level exists (Kafka refuses a
    FeatureLevelRecord naming a level it does not know); by default every level is accepted.
    ``release`` replays by that release's broker image rules (see :class:`MetadataDelta`).
    """

    def __init__(self, image: MetadataImage | None = None,
                 known_metadata_version: Callable[[int], bool] | None = None, *,
                 release: KafkaRelease | None = None) -> None:
        self._known_metadata_version = known_metadata_version
        self._release = release
        self._delta = self._new_delta(image if image is not None else MetadataImage())

    @property
    def image(self) -> MetadataImage:
        """The image after every record replayed so far."""
        if self._delta.is_empty:
            return self._delta.image
        image = self._delta.apply()
        self._delta = self._new_delta(image)
        return image

    def replay(self, message: Any) -> None:
        """Apply one metadata record (an instance of a generated metadata class)."""
        self._delta.replay(message)

    def _new_delta(self, image: MetadataImage) -> MetadataDelta:
        return MetadataDelta(image, release=self._release, known_metadata_version=self._known_metadata_version)
