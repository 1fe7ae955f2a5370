"""The optional packages several test modules use, each named once (:func:`tests.optional.later`:
imported at first use, so a test without the package skips, or fails under CI).

kafka-python, aiokafka and kio are the independent codecs kwire's bytes are checked against;
hypothesis draws the property tests' cases; PyArrow reads what kwire.arrow writes. A handle only one
module uses stays in that module.
"""
from __future__ import annotations

from tests.optional import later

# hypothesis: the property tests' cases
given, settings, st, HealthCheck = (later("hypothesis", name) for name in ("given", "settings", "strategies",
                                                                         "HealthCheck"))

# kafka-python
KpBatch, KpBuilder = (later("kafka.record.default_records", name)
                      for name in ("DefaultRecordBatch", "DefaultRecordBatchBuilder"))
KpLegacyBatch, KpLegacyBuilder = (later("kafka.record.legacy_records", name)
                                  for name in ("LegacyRecordBatch", "LegacyRecordBatchBuilder"))
KpMemoryRecords = later("kafka.record.memory_records", "MemoryRecords")
KpMetadataRequest = later("kafka.protocol.metadata", "MetadataRequest")

# aiokafka: its C extension and its pure-Python records; kio's index of its schemas
aiokafka_c, aiokafka_py = (later("aiokafka.record", name) for name in ("_crecords", "default_records"))
schema_name_map = later("kio.schema.index", "schema_name_map")

# PyArrow, and junitparser for the JUnit reports
pa, pq, junitparser = (later(module) for module in ("pyarrow", "pyarrow.parquet", "junitparser"))
