"""``kwire dump PATH...``: print the contents of Kafka log segments, snapshots, indexes and state files.

Like Kafka's ``kafka-dump-log.sh`` with its metadata and offsets decoders. Text output is one line
per batch header and one ``|``-indented line per record; ``--json`` prints every event of
:mod:`kwire.logs.dump` as one JSON object per line. Problems go to stderr as
``kwire dump: FILE: reason (byte offset P)`` for damage, worded and classed as every command
words it (:mod:`kwire.logs.damage`), and the dump goes on past it.

Exit codes: 0 everything read; 2 a damaged, foreign or empty file (as ``metadata``, ``features`` and
``decode`` say it), bad usage or a path that cannot be read; 1 instead of 2 for damage when
``--skip-undecodable`` says to read past it (a finding, as ``decode --skip-undecodable``).
"""
from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from kwire.cli.commands import add_command, positive_int
from kwire.logs.dump import BATCH_FILE_KINDS, DECODERS, dump_paths
from kwire.logs.files import skipped_files

TEXT_BYTES_SHOWN = 64  # hex bytes shown per field in text output (JSON shows everything)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "dump",
        description="Dump log segments (*.log), KRaft snapshots (*.checkpoint), offset/time/transaction "
                    "indexes, producer-state snapshots and quorum-state files, or whole data directories. "
                    "__cluster_metadata, __consumer_offsets, __transaction_state, __share_group_state and "
                    "__remote_log_metadata "
                    "records are decoded; "
                    "other topics print keys and values as text or hex.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="a file or a directory (walked recursively)")
    p.add_argument("--json", action="store_true", help="one JSON object per line instead of text")
    p.add_argument("--decoder", choices=DECODERS, default="auto",
                   help="how to decode segment records (default: by the partition directory's topic)")
    p.add_argument("--strict", action="store_true",
                   help="treat record types and versions kwire does not know as errors")
    p.add_argument("--skip-undecodable", action="store_true",
                   help="damage is a finding (exit 1), not unusable input (exit 2); the dump reads past it "
                        "either way")
    kafka = p.add_argument_group("kafka-dump-log's options")
    check = kafka.add_mutually_exclusive_group()
    check.add_argument("--index-sanity-check", action="store_true",
                       help="only check each offset/time index as a broker does at start (FILE passed sanity "
                            "check., or why it would be rebuilt)")
    check.add_argument("--verify-index-only", action="store_true",
                       help="only check each index entry against its segment, without listing the entries")
    kafka.add_argument("--max-bytes", type=positive_int, metavar="N",
                       help="read only the first N bytes of each segment or snapshot")
    kafka.add_argument("--skip-record-metadata", action="store_true",
                       help="text: leave out each record's offset and time, print its content only")
    kafka.add_argument("--print-data-log", "--deep-iteration", action="store_true",
                       help="print each record's content (kwire always does; taken for kafka-dump-log's command lines)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    missing = [path for path in args.paths if not Path(path).exists()]
    for path in missing:
        print(f"kwire dump: {path}: no such file or directory", file=sys.stderr)
    if missing:
        return 2
    if args.verbose:  # what a walk passes over, and why: nothing is left out without a word
        for given in args.paths:
            for path, why in skipped_files(given):
                print(f"kwire dump: {path}: skipped: {why}", file=sys.stderr)
    out = sys.stdout
    corrupt = unreadable = findings = False
    files = 0
    check = "sanity" if args.index_sanity_check else "verify" if args.verify_index_only else None
    for event in dump_paths(args.paths, decoder=args.decoder, strict=args.strict, max_bytes=args.max_bytes,
                            index_check=check):
        kind = event["event"]
        files += kind == "file"
        if kind == "error":  # damage (exit 2, 1 when skipped), or what an index check found (exit 1)
            unreadable = unreadable or bool(event.get("unreadable"))
            findings = findings or bool(event.get("finding"))
            corrupt = corrupt or not event.get("finding")
            print(f"kwire dump: {error_text(event)}", file=sys.stderr)
        elif kind == "skip" and not args.quiet:
            print(f"kwire dump: {event['file']}: skipped: {event['reason']}", file=sys.stderr)
        if args.json:  # errors and skips stay in the stream too, so it is complete on its own
            out.write(json.dumps(event, separators=(",", ":"), ensure_ascii=False) + "\n")
        elif not args.quiet:
            if kind == "file" and files > 1:
                out.write("\n")  # a blank line between files, none after the last: `| tail -n 1` is the summary
            if args.skip_record_metadata and kind == "record":
                out.write(f"| {_record_body(event)}\n")
                continue
            write_text(out, event)
    if not files:
        print(f"kwire dump: no Kafka files in {', '.join(map(str, args.paths))} (looked for log segments, "
              f"snapshots and checkpoints, index, time-index, transaction-index, producer-state and "
              f"quorum-state files, leader-epoch and offset checkpoints, partition.metadata)", file=sys.stderr)
        return 2
    if unreadable or (corrupt and not args.skip_undecodable):
        return 2
    return 1 if corrupt or findings else 0


# ------------------------------------------------------------------------------------ text form


def write_text(out: TextIO, event: dict) -> None:
    line = _TEXT[event["event"]](event)
    if line is not None:
        out.write(line + "\n")


def error_text(event: dict) -> str:
    if "damage" in event and "recordOffset" not in event:  # as kwire.logs.damage words it for every command
        return f"{event['file']}: {event['reason']} (byte offset {event['position']})"
    where = []
    if event.get("recordOffset") is not None:
        where.append(f"record at offset {event['recordOffset']}")
    if event.get("batchOffset") is not None:
        where.append(f"batch at offset {event['batchOffset']}")
    if event.get("line") is not None:
        where.append(f"line {event['line']}")
    if event.get("position") is not None:
        where.append(f"file position {event['position']}")
    place = f"{where[0]} ({', '.join(where[1:])})" if len(where) > 1 else (where[0] if where else "")
    return f"{event['file']}: {place + ': ' if place else ''}{event['reason']}"


def _file(event: dict) -> str:
    lines = [f"Dumping {event['file']}"]
    kind = event["kind"]
    if kind == "segment":
        start = f"Log starting offset: {event['baseOffset']}" if "baseOffset" in event else "Log segment"
        lines.append(f"{start} (records decoded as: {event['decoder']})")
    elif kind == "snapshot":
        lines.append(f"Snapshot end offset: {event['snapshotEndOffset']}, epoch: {event['snapshotEpoch']}")
    elif kind == "bootstrap":
        lines.append("KRaft bootstrap snapshot")
    else:
        lines.append(kind.replace("-", " ").capitalize())
    if "renamed" in event:
        lines.append(f"Renamed .{event['renamed']}: {event['renamedWhy']} (Kafka does not read it as the log)")
    return "\n".join(lines)


def _batch(event: dict) -> str:
    crc = f"0x{event['crc']:08x} ({'ok' if event['crcValid'] else 'BAD'})"
    return (
        f"baseOffset: {event['baseOffset']} lastOffset: {event['lastOffset']} count: {event['count']} "
        f"epoch: {event['partitionLeaderEpoch']} producerId: {event['producerId']} "
        f"producerEpoch: {event['producerEpoch']} baseSequence: {event['baseSequence']} "
        f"isTransactional: {_bool(event['isTransactional'])} isControl: {_bool(event['isControl'])} "
        f"position: {event['position']} {_timestamp_type(event['timestampType'])}: {event['maxTimestamp']} "
        f"size: {event['sizeInBytes']} magic: {event['magic']} compression: {event['compression']} crc: {crc}"
    )


def _record(event: dict) -> str:
    return f"| offset: {event['offset']} time: {_time(event['timestamp'])} {_record_body(event)}"


def _record_body(event: dict) -> str:
    if "control" in event:
        if "unknown" in event:
            return f"control {event['control']}: {event['unknown']}; value: {_hex_text(event['valueHex'])}"
        if "coordinatorEpoch" in event:
            return f"control {event['control']} coordinatorEpoch: {event['coordinatorEpoch']}"
        return f"control {event['control']} {event['type']} {_json(event['data'])}"
    if "apiKey" in event:
        if "unknown" in event:
            return (f"UNKNOWN metadata record apiKey {event['apiKey']} v{event['version']}: {event['unknown']}; "
                    f"body: {_hex_text(event['bodyHex'])}")
        return f"{event['type']} v{event['version']} {_json(event['data'])}"
    if "recordType" in event:
        if "unknown" in event:
            return (f"UNKNOWN record type {event['recordType']}: {event['unknown']}; key: {_hex_text(event['keyHex'])} "
                    f"value: {_hex_text(event['valueHex'])}")
        if event.get("tombstone"):
            value = "<tombstone>"
        else:
            value = f"{event['valueType']} v{event['valueVersion']} {_json(event['value'])}"
        return f"{event['keyType']} {_json(event['key'])} => {value}"
    parts = [_field_text("key", event), _field_text("value", event)]
    if "headers" in event:
        headers = (f"{header['key']}={_field_text('value', header, bare=True)}" for header in event["headers"])
        parts.append("headers: " + ", ".join(headers))
    return " ".join(parts)


def _field_text(name: str, event: dict, *, bare: bool = False) -> str:
    label = "" if bare else f"{name}: "
    if f"{name}Hex" in event:
        return f"{label}{_hex_text(event[name + 'Hex'])}"
    value = event.get(name)
    return f"{label}{'null' if value is None else json.dumps(value, ensure_ascii=False)}"


def _index_entry(event: dict) -> str:
    return " ".join(f"{key}: {value}" for key, value in event.items() if key not in ("event", "file"))


def _quorum_state(event: dict) -> str:
    return f"data_version: {event['dataVersion']} {_json(event['data'])}"


def _end(event: dict) -> str:
    counts = [_count(event["records"], "entry", "entries")]
    if event["kind"] in BATCH_FILE_KINDS:
        counts = [_count(event["batches"], "batch", "batches"), _count(event["records"], "record", "records")]
    if event["errors"]:
        counts.append(_count(event["errors"], "error", "errors"))
    return f"End of {event['file']}: {', '.join(counts)}"


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


_TEXT = {
    "file": _file,
    "batch": _batch,
    "record": _record,
    "index-entry": _index_entry,
    "producer-state": _index_entry,
    "quorum-state": _quorum_state,
    "checkpoint-entry": _index_entry,
    "index-check": lambda event: event["message"],
    "end": _end,
    "skip": lambda event: None,
    "error": lambda event: None,
}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _timestamp_type(name: str) -> str:
    return {"CREATE_TIME": "CreateTime", "LOG_APPEND_TIME": "LogAppendTime"}.get(name, "NoTimestampType")


def _time(millis: int) -> str:
    """ISO 8601 UTC for people; the raw number when it is no real time (-1, or out of range)."""
    if millis < 0:
        return str(millis)
    try:
        moment = datetime.fromtimestamp(millis / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return str(millis)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis % 1000:03d}Z"


def _hex_text(hex_string: str | None) -> str:
    if hex_string is None:
        return "null"
    size = len(hex_string) // 2
    if size <= TEXT_BYTES_SHOWN:
        return f"0x{hex_string} ({size} bytes)"
    return f"0x{hex_string[:TEXT_BYTES_SHOWN * 2]}... ({size} bytes)"
