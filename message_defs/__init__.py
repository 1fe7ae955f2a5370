"""The Kafka message definitions kwire ships, one JSON file per message (``kwire.message_defs``).

`kwire generate --defs kwire:builtin` reads them from an installed kwire; `message_defs/README.md`
says which upstream version each follows.
"""
