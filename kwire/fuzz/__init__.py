"""Fuzzing of generated codecs: random instances, round-trip properties, cross-version matrices.

Modules, each with one job:

* ``values``     seeded random instances valid at a version (stdlib only: runs on Spark executors)
* ``strategies`` the same space as hypothesis strategies (for the test suite)
* ``diff``       which fields of two instances differ, as paths like ``topics[].name``
* ``properties`` the per-(message, version) round-trip properties
* ``matrix``     the pure work unit ``run_cases`` and merging of its results (observed behaviour)
* ``static``     what a down/up-conversion can do, computed from ``FIELDS`` alone
* ``directed``   builds the instance that shows one field lost or refused
* ``sweep``      the local run over many messages (what ``kwire fuzz`` drives)
* ``report``     JSON, Markdown and heatmap pictures of a sweep
* ``baseline``   the CI gate: cells of a sweep worse than in a committed report.json
* ``junit``      a sweep as JUnit XML, one test case per message and version
* ``hostile``    (a sub-package) every decoder fed random and mutated bytes (``kwire fuzz --bytes``)
"""
