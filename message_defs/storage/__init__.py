"""The definitions of Kafka's storage module (``kwire.message_defs.storage``): producer-state
snapshots and tiered storage's remote-log metadata records, whose apiKeys are a space of their own
(see ``message_defs/README.md``)."""
