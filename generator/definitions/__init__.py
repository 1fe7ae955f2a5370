"""Kafka's message definitions, read and checked: commented JSON (:mod:`.jsonc`), the JSON
schema (``definition_schema.json``) and the semantic rules (:mod:`.builder`) applied by
:mod:`.loader`, into the typed immutable model (:mod:`.model`, :mod:`.types`, :mod:`.versions`);
every finding a :class:`~.errors.Problem`."""
