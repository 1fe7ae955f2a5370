"""API versions under the names Kafka gave them before a rename (``kwire.message_defs.former_names``):
API 74 v0 as ListClientMetricsResources (Kafka 3.7-4.0), which Kafka 4.1 renamed
ListConfigResources. A folder is an apiKey space of its own (see ``message_defs/README.md``), so
these sit beside the current names without taking their api key."""
