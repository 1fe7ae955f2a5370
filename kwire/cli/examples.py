"""The example commands every ``kwire ... --help`` ends with, one to three per command.

Kept in one table so that the test can check each parses (tests/cli/test_grammar.py) and every
command has some; paths are those of an operator's machine, with a copy of the data directory.
"""
from __future__ import annotations

import argparse
from typing import Any

EXAMPLES: dict[str, tuple[str, ...]] = {
    "": ("kwire dump /tmp/kafka-copy/__cluster_metadata-0 | tail -n 3",
         "kwire metadata image /tmp/kafka-copy",
         "kwire generate --defs kwire:builtin --out mycodecs"),
    "validate": ("kwire validate message_defs",
                 "kwire validate kwire:builtin"),
    "generate": ("kwire generate --defs kwire:builtin --out mycodecs",
                 "kwire generate --defs message_defs --out generated --check",
                 "kwire generate --defs message_defs --out generated --package kwire.generated --compile"),
    "check-compat": ("kwire check-compat git:v1.0:message_defs message_defs",
                     "kwire check-compat old/FetchRequest.json new/FetchRequest.json --json"),
    "dump": ("kwire dump /tmp/kafka-copy/__cluster_metadata-0/00000000000000000000.log",
             "kwire dump -v /tmp/kafka-copy --json",
             "kwire dump --index-sanity-check /tmp/kafka-copy/orders-0"),
    "fuzz": ("kwire fuzz --messages FetchRequest --cases 200",
             "kwire fuzz --cases 200 --report reports/fuzz --force",
             "kwire fuzz --bytes --cases 10000 --target 'message:Fetch*'"),
    "decode": ("kwire decode /tmp/kafka-copy --out /tmp/kafka-decoded",
               "kwire decode /tmp/kafka-copy --out /tmp/kafka-decoded --format json --mode overwrite"),
    "schemas": ("kwire schemas --out schemas --messages TopicRecord",),
    "frame": ("kwire frame resp.bin --request req.bin",
              "kwire frame req.bin --json"),
    "storage": ("kwire storage format --metadata-version 3.9 --out /tmp/kafka-new",),
    "storage format": ("kwire storage format --metadata-version 3.9 --out /tmp/kafka-new --dry-run",
                       "kwire storage format --release-version 4.0 --feature group.version=1 --out /tmp/kafka-new",
                       "kwire storage format --cluster-id MkU3OEVBNTcwNTJENDM2Qk --node-id 1 --standalone "
                       "--controller-listener CONTROLLER://localhost:9093 --out /tmp/kafka-new"),
    "storage info": ("kwire storage info /tmp/kafka-copy",
                     "kwire storage info -v /var/lib/kafka/data /var/lib/kafka/meta --json"),
    "storage random-uuid": ("kwire storage random-uuid",),
    "features": ("kwire features describe /tmp/kafka-copy",
                 "kwire features downgrade /tmp/kafka-copy --metadata-version 3.6 --dry-run"),
    "features describe": ("kwire features describe /tmp/kafka-copy --json",
                          "kwire features describe --bootstrap-server localhost:9092"),
    "features upgrade": ("kwire features upgrade /tmp/kafka-copy --metadata-version 3.9",
                         "kwire features upgrade /tmp/kafka-copy --release-version 4.0 --dry-run"),
    "features downgrade": ("kwire features downgrade /tmp/kafka-copy --metadata-version 3.6",
                           "kwire features downgrade /tmp/kafka-copy --metadata-version 3.3 --unsafe --json"),
    "features disable": ("kwire features disable /tmp/kafka-copy --feature group.version",),
    "features version-mapping": ("kwire features version-mapping",
                                 "kwire features version-mapping --release-version 3.9",
                                 "kwire features version-mapping --release-version 4.0-IV2 --json"),
    "features feature-dependencies": ("kwire features feature-dependencies "
                                      "--feature eligible.leader.replicas.version=1",
                                      "kwire features feature-dependencies --feature metadata.version=21 "
                                      "--feature kraft.version=1 --json"),
    "metadata quorum": ("kwire metadata quorum /tmp/kafka-copy",
                        "kwire metadata quorum /tmp/kafka-copy --describe --json",
                        "kwire metadata quorum /tmp/kafka-copy --add-voter 4:P3rPQ8Z1TtKw4Z8cnYlUtQ "
                        "--endpoint CONTROLLER://localhost:9096"),
    "metadata": ("kwire metadata image /tmp/kafka-copy",
                 "kwire metadata snapshot /tmp/kafka-copy --metadata-version 3.6 --dry-run"),
    "metadata shell": ("kwire metadata shell /tmp/kafka-copy ls /image/topics/byName",
                       "kwire metadata shell /tmp/kafka-copy tree /image/features",
                       "kwire metadata shell /tmp/kafka-copy --json cat '/image/topics/byName/*/0'"),
    "metadata image": ("kwire metadata image /tmp/kafka-copy",
                       "kwire metadata image /tmp/kafka-copy --until 7111 --json"),
    "metadata snapshot": ("kwire metadata snapshot /tmp/kafka-copy --metadata-version 3.6 --dry-run",
                          "kwire metadata snapshot /tmp/kafka-copy --metadata-version 3.6 --out /tmp/snapshots/"),
    "metadata downgrade-matrix": ("kwire metadata downgrade-matrix /tmp/kafka-copy",
                                  "kwire metadata downgrade-matrix /tmp/node-1 /tmp/node-2 --out matrix.json "
                                  "--picture matrix.png"),
    "versions": ("kwire versions --api Fetch",
                 "kwire versions --release 3.6 --json",
                 "kwire versions --derive-from /path/to/kafka/.git --release-commit 4.2.1=COMMIT=/path/to/fork/.git "
                 "--out release_versions.json"),
    "merge-versions": ("kwire merge-versions message_defs/ProduceRequest.json "  # in a clone of Kafka
                       "git:3.8.0:clients/src/main/resources/common/message/ProduceRequest.json "
                       "--out merged/ProduceRequest.json",),
    "doctor": ("kwire doctor",
               "kwire doctor --json"),
    "build-native": ("kwire build-native --codecs",
                     "kwire build-native --codecs all --jobs 2",
                     "kwire build-native --messages ApiVersionsRequest,ApiVersionsResponse --json"),
}


def _keeping_examples(base: Any) -> Any:
    """``base`` (the parser's own formatter class), but the examples paragraph keeps its line breaks."""
    if base in _FORMATTERS:
        return _FORMATTERS[base]

    class ExampleFormatter(base):  # type: ignore[valid-type, misc]
        def _fill_text(self, text: str, width: int, indent: str) -> str:
            body, marker, examples = text.partition(_MARKER)
            filled = super()._fill_text(body, width, indent) if body.strip() else ""
            return filled + (("\n\n" if filled else "") + _MARKER.strip() + examples if marker else "")

    _FORMATTERS[base] = ExampleFormatter
    return ExampleFormatter


_FORMATTERS: dict[Any, Any] = {}
_MARKER = "\n\nexamples:"


def add_examples(parser: argparse.ArgumentParser, command: str) -> None:
    """End ``parser``'s help with the examples of ``command`` ("" for kwire itself, "metadata image")."""
    if command not in EXAMPLES:  # tests/cli/test_grammar.py names the command; the CLI still works
        return
    lines = "\n".join(f"  {example}" for example in EXAMPLES[command])
    parser.epilog = f"{parser.epilog or ''}{_MARKER}\n{lines}"
    parser.formatter_class = _keeping_examples(parser.formatter_class)
