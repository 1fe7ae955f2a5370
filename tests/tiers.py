"""The two tiers of the suite. ``make test`` runs every test; ``make check`` (``pytest -m check``)
runs the fast tier: the unit tests of every part, without Spark, live peers, compilers or the other
slow tests named in SLOW, and each test function with at most SAMPLE of its parameter sets.

tests/conftest.py marks the fast tier's tests ``check`` after collection; tests/test_tiers.py checks
that it still covers every part and holds none of what it leaves out.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import pytest

#: a test asking for one of these fixtures starts a JVM, a server or a compiler: not in the fast tier
SLOW_FIXTURES = {
    "spark": "a Spark session",
    "cluster": "a Spark standalone cluster",
    "cluster_driver": "a Spark driver on the cluster",
    "s3": "an S3 server with Kafka data in it",
    "compiled_generated": "mypyc and a C compiler",
    "compiled_record_decoder": "mypyc and a C compiler",
}
#: tests carrying one of these marks are not in the fast tier
SLOW_MARKS = {"live": "real Kafka clients and brokers on loopback"}

#: node-id prefixes (a folder, a module, or module::test) left out of the fast tier, and why
SLOW: dict[str, str] = {
    "tests/spark/": "Spark",
    "tests/test_compiled_wheel.py": "builds a compiled wheel and installs it",
    "tests/test_docs.py": "pdoc renders the API reference",
    "tests/test_readme.py": "runs every README example, Spark's too",
    "tests/test_ci_docs.py": "runs the CI page's commands and pre-commit",
    "tests/test_packaging.py": "builds wheels and installs them into fresh venvs",
    "tests/test_architecture.py": "parses every module of kwire (make test checks the import graph)",
    "tests/test_optional.py::test_compiled_build_tests_without_mypy": "a child pytest that compiles",
    "tests/test_optional.py::test_the_suite_collects_on_a_light_checkout": "collects the whole suite",
    "tests/test_tiers.py::test_the_fast_tier_covers_every_part_and_nothing_it_leaves_out": "collects the whole suite",
    "tests/generator/test_native_compiler.py": "mypyc and a C compiler",
    "tests/generator/test_native_build.py": "mypyc and a C compiler",
    "tests/cli/test_build_native.py": "mypyc and a C compiler",
    "tests/generator/test_restored_versions_java.py": "Kafka 3.8.0's classes on a JVM",
    "tests/features/test_java_order.py": "a JVM",
    "tests/network/test_typing.py": "mypy --strict",
    "tests/testing/test_plugin.py::test_a_user_project_fuzzes_its_own_codecs_with_the_fixture": "a child pytest",
    "tests/testing/test_plugin.py::test_the_fixture_fails_on_a_codec_bug_with_a_minimal_example": "a child pytest",
    "tests/generated/test_generated_package.py::test_check_reports_stale_files": "regenerates every codec",
    "tests/generated/test_generated_package.py::test_every_shipped_message_imports_and_is_indexed":
        "imports every codec",
    "tests/generated/test_lazy_package.py": "child interpreters",
    "tests/records/test_roundtrip.py::test_round_trip": "hypothesis, hundreds of batches",
    "tests/generated/test_compiled_build.py::test_a_nullable_struct_with_a_default_compiles": "mypyc and a C compiler",
    "tests/test_optional.py::test_a_bare_import_fails_the_light_collection_and_later_skips": "child pytests",
    "tests/arrow/test_decode_files.py::test_a_directory_decodes_to_the_rows_read_table_gives_one_part_per_split":
        "worker processes",
    "tests/arrow/test_decode_files.py::test_read_table_needs_pyarrow_and_nothing_else": "a child interpreter",
    "tests/arrow/test_decode_files.py::test_the_command_decodes_here_by_default": "worker processes",
    "tests/cli/test_fuzz.py::test_fuzz_passes_and_writes_the_reports": "a fuzz sweep",
    "tests/cli/test_fuzz.py::test_same_report_in_one_or_two_processes": "fuzz sweeps in worker processes",
    "tests/cli/test_fuzz_gate.py::test_a_time_budget_says_how_far_it_got": "fuzz sweeps against a clock",
    "tests/cli/test_grammar.py::test_dump_verbose_names_the_kafka_files_it_skips_and_why": "dumps a data directory",
    "tests/cli/test_no_silent_success.py::test_check_compat_with_an_empty_side_is_an_error": "every definition",
    "tests/cli/test_real_data_directory.py::test_generate_refuses_to_replace_a_file_it_did_not_write":
        "generates every codec",
    "tests/fuzz/test_hostile_input.py::test_bounded_hostile_run_finds_nothing": "a hostile-input run",
    "tests/fuzz/test_matrix.py::test_run_cases_gives_the_same_result_in_another_process": "a child process",
    "tests/fuzz/test_matrix.py::test_sweep_passes_on_kafka_python_definitions": "a sweep over 100 definitions",
    "tests/fuzz/test_properties.py::test_hypothesis_instances_are_valid": "hypothesis over every message",
    "tests/generated/test_generated_package.py::test_generated_package_is_not_stale": "regenerates every codec",
    "tests/generator/test_kafka_input.py::test_every_directory_of_kafka_421_generates_whole_and_imports":
        "generates Kafka 4.2.1's every definition",
    "tests/logs/test_metadata_log.py::test_kafka_361_metadata_log_decodes_completely_and_reencodes_exactly":
        "18,000 records",
    "tests/metadata/test_matrix.py::test_the_command_writes_json_and_a_picture": "matplotlib",
    "tests/metadata/test_matrix.py::test_images_with_one_directory_name_are_told_apart": "replays real logs",
    "tests/records/test_corruption.py::test_mutated_batches_raise_only_kwire_errors": "hypothesis",
}

#: parameter sets a test function keeps in the fast tier: the first, the last and evenly between
SAMPLE = 5


def why_slow(item: pytest.Item) -> str | None:
    """Why ``item`` is not in the fast tier, or None when it is (sampling aside)."""
    for prefix, why in SLOW.items():
        if item.nodeid.startswith(prefix):
            return why
    for name in getattr(item, "fixturenames", ()):
        if name in SLOW_FIXTURES:
            return SLOW_FIXTURES[name]
    for mark in item.iter_markers():
        if mark.name in SLOW_MARKS:
            return SLOW_MARKS[mark.name]
    return None


def sample(count: int, keep: int = SAMPLE) -> set[int]:
    """Indices of the parameter sets kept out of ``count``: all when there are few, else ``keep``
    of them, the first and the last among them."""
    if count <= keep:
        return set(range(count))
    return {round(i * (count - 1) / (keep - 1)) for i in range(keep)}


def fast_tier(items: Iterable[pytest.Item]) -> list[pytest.Item]:
    """The items of the fast tier, in collection order."""
    by_function: dict[str, list[pytest.Item]] = defaultdict(list)
    for item in items:
        if why_slow(item) is None:
            by_function[item.nodeid.partition("[")[0]].append(item)
    kept = []
    for group in by_function.values():
        kept += [item for index, item in enumerate(group) if index in sample(len(group))]
    return kept


def mark_fast_tier(items: list[pytest.Item]) -> None:
    for item in fast_tier(items):
        item.add_marker(pytest.mark.check)
