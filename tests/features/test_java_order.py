"""Java's map iteration orders, as kwire.features.java_order models them, checked against a real JDK.

The JDK on the machine (Java 17, which Spark needs anyway) builds the same maps the way Kafka's
image classes and controller build them and prints their order; nothing here is compared with
kwire's own output. Kafka's TimelineHashMap orders are the ones Kafka's own ``org.apache.kafka.timeline``
classes printed (see ``test_timeline_hash_map_order``).
"""
from __future__ import annotations

import itertools
import random
import shutil
import subprocess
import textwrap

from kwire.features import java_order as order

JAVA_PROGRAM = textwrap.dedent("""
    import java.util.*;
    import java.io.*;

    public class Orders {
        public static void main(String[] args) throws IOException {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
            String line;
            while ((line = in.readLine()) != null) {
                String[] parts = line.split("\\t", -1);
                String mode = parts[0];
                boolean ints = parts[1].equals("int");
                List<Object> keys = new ArrayList<>();
                for (int i = 2; i < parts.length; i++) keys.add(ints ? (Object) Integer.valueOf(parts[i]) : parts[i]);
                Map<Object, Object> fresh = new HashMap<>();
                for (Object k : keys) fresh.put(k, k);
                Map<Object, Object> result;
                if (mode.equals("fresh")) {
                    result = fresh;
                } else if (mode.equals("sized")) {
                    result = new HashMap<>(fresh.size());
                    for (Map.Entry<Object, Object> e : fresh.entrySet()) result.put(e.getKey(), e.getValue());
                } else {
                    result = new HashMap<>(fresh);
                }
                StringBuilder out = new StringBuilder();
                for (Object k : result.keySet()) out.append(k).append('\\t');
                System.out.println(out.toString() + "|" + (ints ? "" : hashes(keys)));
            }
        }

        static String hashes(List<Object> keys) {
            StringBuilder out = new StringBuilder();
            for (Object k : keys) out.append(k.hashCode()).append(',');
            return out.toString();
        }
    }
""")

MODES = {"fresh": order.hash_map_order, "sized": order.sized_copy_order, "copy": order.copied_hash_map_order}


def _cases():
    rng = random.Random(584)
    words = ["metadata.version", "kraft.version", "group.version", "transaction.version", "PLAINTEXT", "SSL",
             "CONTROLLER", "compression.type", "cleanup.policy", "segment.bytes", "retention.ms", "user",
             "client-id", "ip", "producer_byte_rate", "consumer_byte_rate", "ünïcode", "日本"]
    cases = []
    for mode in MODES:
        for size in (1, 2, 3, 5, 7, 12, 13, 25, 40):
            keys = rng.sample(words, min(size, len(words))) if size <= len(words) else \
                [f"k{rng.randrange(10**6)}" for _ in range(size)]
            cases.append((mode, "str", list(dict.fromkeys(keys))))
            cases.append((mode, "int", list(dict.fromkeys(rng.randrange(-5, 3000) for _ in range(size)))))
        # crowded buckets: a put finding 8 keys in its bucket doubles a table under 64 buckets
        cases.append((mode, "str", SAME_HASH[:9] + ["a", "b", "metadata.version"]))
        cases.append((mode, "str", ["x", "y"] + SAME_BUCKET[:9] + ["z"]))
    return cases


# "Aa" and "BB" have one String.hashCode, so any word made of them shares it with its like
SAME_HASH = ["".join(p) for p in itertools.product(("Aa", "BB"), repeat=4)]
# different hashes, one bucket of a 16-bucket table: they part when it grows
SAME_BUCKET = [w for w in (f"k{i}" for i in range(2000)) if order._bucket(order.string_hash(w), 16) == 5][:9]


def test_hash_map_orders_match_the_jdk(tmp_path):
    java = shutil.which("java")
    assert java, "Java 17 is a requirement of kwire's test suite (Spark needs it)"
    source = tmp_path / "Orders.java"
    source.write_text(JAVA_PROGRAM)
    cases = _cases()
    stdin = "".join(f"{mode}\t{kind}\t" + "\t".join(map(str, keys)) + "\n" for mode, kind, keys in cases)
    done = subprocess.run([java, str(source)], input=stdin, capture_output=True, text=True, timeout=120,
                          encoding="utf-8")
    assert done.returncode == 0, done.stderr
    for (mode, kind, keys), line in zip(cases, done.stdout.splitlines(), strict=True):
        listed, _, hashes = line.partition("|")
        jdk = [k for k in listed.split("\t") if k != ""]
        key_hash = order.string_hash if kind == "str" else order.int_hash
        ours = [str(k) for k in MODES[mode](keys, key_hash)]
        assert ours == jdk, (mode, kind, keys)
        if kind == "str":
            assert [str(order.string_hash(k)) for k in keys] == hashes.rstrip(",").split(","), keys


def test_hash_map_orders_as_the_jvm_printed_them():
    # printed by OpenJDK 17: new HashMap<String, Short>() put in this order, keySet() joined
    assert order.hash_map_order(["metadata.version", "group.version", "transaction.version", "kraft.version",
                                 "eligible.leader.replicas.version", "share.version", "streams.version"]) == [
        "group.version", "kraft.version", "metadata.version", "share.version", "streams.version",
        "transaction.version", "eligible.leader.replicas.version"]
    # 15 keys: the table has grown to 32 buckets
    assert order.hash_map_order([f"x{i}" for i in range(1, 16)]) == [
        "x8", "x9", "x10", "x12", "x1", "x11", "x2", "x14", "x3", "x13", "x4", "x5", "x15", "x6", "x7"]
    assert [order.java_string_hash(s) for s in ("metadata.version", "é", "\U0001F600")] == [1098778905, 233, 1772899]


# Printed by Kafka's own timeline package (BaseHashTable, SnapshottableHashTable, TimelineHashMap,
# SnapshotRegistry of apache/kafka trunk 2024-10-25, whose SnapshottableHashTable.CurrentIterator is
# the one Kafka 4.2.1 ships), compiled with javac on OpenJDK 17: new TimelineHashMap<Integer, ...>(registry, 0),
# put() of each id in turn, keySet() in iteration order. Kafka's code is not part of kwire; only its output is.
TIMELINE_ORDERS_FROM_KAFKA = [
    ([0, 1, 2, 3], [2, 0, 1, 3]),
    ([0, 1, 2, 3, 4, 5], [5, 0, 2, 4, 1, 3]),
    ([3, 2, 1], [2, 1, 3]),
    ([1, 2], [2, 1]),
    ([1, 2, 3, 4], [2, 4, 1, 3]),
    (list(range(10)), [5, 0, 2, 7, 4, 9, 1, 6, 3, 8]),
    ([1000, 1001, 1002], [1000, 1002, 1001]),
    ([5, 3, 9, 1, 7], [5, 7, 1, 9, 3]),
    ([574, 993, 96], [96, 993, 574]),
    ([2511, 1831, 754, 2875, 493, 2668], [1831, 493, 2875, 2668, 754, 2511]),
    ([1415, 326, 949, 1102, 203, 1308, 2462, 733, 2260], [733, 1102, 1308, 203, 326, 2462, 949, 1415, 2260]),
    ([2806, 1761, 2900, 198, 2363, 87, 2414, 1081, 1272, 1726, 778, 739, 456],
     [1081, 1272, 2806, 2900, 198, 1761, 2363, 739, 1726, 87, 456, 778, 2414]),
    ([2387, 2174, 2985, 2319, 250, 2860, 1337, 2508, 1371, 1058, 755, 1610, 1279, 2665, 2110, 582, 1144, 1108,
      2734, 2833],
     [1144, 2110, 2665, 1610, 2508, 2319, 2387, 1337, 1371, 1279, 250, 755, 2860, 2174, 2734, 582, 1108, 2985,
      2833, 1058]),
]


def test_timeline_hash_map_order():
    # BaseHashTable grows from 2 slots; keys sharing a slot come out newest first (ids 0 and 5 share
    # slot 0 of 8, so 5 comes before 0)
    for inserted, kafka_order in TIMELINE_ORDERS_FROM_KAFKA:
        assert order.timeline_hash_order(inserted) == kafka_order, inserted
