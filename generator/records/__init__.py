"""One description of a Kafka record (:mod:`.layout`) and the decoders emitted from it into
``kwire/records/``: objects and columns in Python (:mod:`.decoders`, ``python -m
kwire.generator.records.decoders [--check]``) and columns in C (:mod:`.decoder_c`)."""
