"""The wire core: primitives, the one error family, the base class of generated codecs, Kafka's JSON form.

Imports neither the generator nor the generated package: generated code imports this.
"""
