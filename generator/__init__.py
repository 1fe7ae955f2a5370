"""kwire's build-time code generator (the ``generator`` extra: jinja2, jsonschema), one concern a
sub-package, each importing only those listed before it:

- :mod:`~kwire.generator.definitions`: Kafka's message definitions read, validated and built into
  a typed immutable model (commented JSON, the schema, the semantic rules, version ranges);
- :mod:`~kwire.generator.emit`: the model into Python modules (the plan, the views, the templates,
  each package's index);
- :mod:`~kwire.generator.records`: the record layout and the record decoders emitted from it
  (objects, columns, columns in C), written into ``kwire/records/``;
- :mod:`~kwire.generator.evolution`: how definitions change across releases (the compatibility
  checker, the history merge, the release tables);
- :mod:`~kwire.generator.native`: the mypyc and C builds of the generated package and of the
  record decoders.

No runtime part imports the generator (``tests/test_architecture.py``).
"""
