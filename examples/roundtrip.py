"""Round-trip record batches through a Kafka broker with kwire's small client.

    python examples/roundtrip.py --bootstrap 127.0.0.1:9092 [--topic kwire-roundtrip] [--codec gzip]
    python examples/roundtrip.py --mock-cluster        # librdkafka's mock cluster instead (kwire[mock])

For each codec: build a batch with kwire.records, produce it (topic ``<topic>-<codec>``, created
when missing), fetch it back from its base offset and compare every record. Prints the versions
negotiated and one line per codec; exits 0 when every batch came back unchanged, 1 otherwise.
"""
from __future__ import annotations

import argparse
import sys
import time
from contextlib import nullcontext

from kwire.network.client import KafkaClient
from kwire.records import Codec, RecordBatchBuilder
from kwire.records.record import Record
from kwire.testing import mock_cluster
from kwire.wire.errors import KwireError

API_NAMES = {0: "Produce", 1: "Fetch", 3: "Metadata", 18: "ApiVersions", 19: "CreateTopics"}


def build_batch(codec: Codec, count: int, timestamp_ms: int) -> tuple[bytes, list[tuple]]:
    """A batch of ``count`` records, and what each record should read back as."""
    builder = RecordBatchBuilder(codec=codec)
    expected = []
    for i in range(count):
        key, value = f"key-{i}".encode(), f"value {i} ".encode() * 8
        headers = [("index", str(i).encode())]
        builder.append(timestamp_ms + i, key, value, headers)
        expected.append((timestamp_ms + i, key, value, headers))
    return builder.build(), expected


def as_tuple(record: Record) -> tuple:
    return record.timestamp, record.key, record.value, list(record.headers)


def round_trip(client: KafkaClient, topic: str, codec: Codec, count: int) -> bool:
    where = client.partition(topic)
    batch, expected = build_batch(codec, count, int(time.time() * 1000))
    base_offset = client.produce(where, batch)
    fetched = client.fetch(where, base_offset, until=base_offset + count)
    got = [as_tuple(r) for r in fetched.records]
    codecs = sorted({b.compression.name.lower() for b in fetched.batches})
    ok = got == expected and [r.offset for r in fetched.records] == list(range(base_offset, base_offset + count))
    print(f"{codec.name.lower():7} {topic}[{where.partition}] offsets {base_offset}-{base_offset + count - 1}: "
          f"{len(got)} records back, stored as {','.join(codecs)}: {'ok' if ok else 'MISMATCH'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--bootstrap", help="host:port of a broker")
    where.add_argument("--mock-cluster", action="store_true",
                       help="start librdkafka's mock cluster in this process and use it (kwire[mock])")
    parser.add_argument("--topic", default="kwire-roundtrip", help="topic name prefix")
    parser.add_argument("--codec", choices=[c.name.lower() for c in Codec] + ["all"], default="all")
    parser.add_argument("--records", type=int, default=10, help="records per batch")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request")
    args = parser.parse_args(argv)
    codecs = list(Codec) if args.codec == "all" else [Codec[args.codec.upper()]]
    try:
        with (mock_cluster() if args.mock_cluster else nullcontext(args.bootstrap)) as bootstrap, \
                KafkaClient(bootstrap, client_id="kwire-roundtrip", timeout=args.timeout) as client:
            asked = ", ".join(f"v{v}" for v in client.bootstrap.api_versions_used)
            chosen = ", ".join(f"{name} v{client.bootstrap.common_versions(key)[-1]}"
                               for key, name in API_NAMES.items() if client.bootstrap.common_versions(key))
            print(f"ApiVersions asked at {asked}; using {chosen}")
            results = [round_trip(client, f"{args.topic}-{codec.name.lower()}", codec, args.records)
                       for codec in codecs]
    except KwireError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
