"""Changes to the configs (Kafka's ``ConfigurationsDelta``) and client quotas (``ClientQuotasDelta``)."""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from kwire.generated import ClientQuotaRecord, ConfigRecord
from kwire.metadata.changes import MapChanges
from kwire.metadata.image import ClientQuota, ClientQuotasImage, ConfigResource, ConfigurationsImage

TOPIC_RESOURCE = 2  # ConfigResource.Type.TOPIC


class ConfigurationsDelta:
    """``topic_configs_from_image_only``: whether a removed topic takes only the configs the image
    before the delta held (Kafka's image) or also those set in the delta (the controller's view;
    see :class:`kwire.features.releases.KafkaRelease`)."""

    def __init__(self, image: ConfigurationsImage, *, topic_configs_from_image_only: bool = False) -> None:
        self.image = image
        self.topic_configs_from_image_only = topic_configs_from_image_only
        self.resources = MapChanges(image.resources)
        self._changed: dict[ConfigResource, dict[str, str]] = {}  # resources whose configs changed: their copy

    def replay_config(self, record: ConfigRecord) -> None:
        key = (record.resource_type, record.resource_name)
        data = self._data(key)
        if record.value is None:
            if data is not None:
                data.pop(record.name, None)
                if not data:
                    self.resources.remove(key)
                    del self._changed[key]
        else:
            if data is None:
                data = self._changed[key] = {}
                self.resources.set(key, MappingProxyType(data))
            data[record.name] = record.value

    def remove_topic(self, name: str) -> None:
        """A RemoveTopicRecord removed topic ``name``: its configs go with it."""
        key = (TOPIC_RESOURCE, name)
        if self.topic_configs_from_image_only and key not in self.image.resources:
            return
        self.resources.remove(key)
        self._changed.pop(key, None)

    def _data(self, key: ConfigResource) -> dict[str, str] | None:
        """The configs of ``key``, copied for changing (None: the resource has none)."""
        data = self._changed.get(key)
        if data is None:
            current = self.resources.get(key)
            if current is None:
                return None
            data = self._changed[key] = dict(current)
            self.resources.set(key, MappingProxyType(data))
        return data

    def apply(self) -> ConfigurationsImage:
        return replace(self.image, resources=self.resources.frozen())


class ClientQuotasDelta:
    def __init__(self, image: ClientQuotasImage) -> None:
        self.image = image
        self.entities = MapChanges(image.entities)

    def replay_client_quota(self, record: ClientQuotaRecord) -> None:
        parts: dict[str, str | None] = {}
        for data in record.entity:
            parts[data.entity_type] = data.entity_name
        key = frozenset(parts.items())
        quota = self.entities.get(key)
        if record.remove:
            if quota is not None:
                quotas = {name: value for name, value in quota.quotas.items() if name != record.key}
                if quotas:
                    self.entities.set(key, replace(quota, quotas=quotas))
                else:
                    self.entities.remove(key)
        else:
            if quota is None:
                quota = ClientQuota(tuple(parts.items()))
            self.entities.set(key, replace(quota, quotas={**quota.quotas, record.key: record.value}))

    def apply(self) -> ClientQuotasImage:
        return replace(self.image, entities=self.entities.frozen())
