"""Java's map iteration orders, as kwire.features.java_order models them, checked against a real JDK.

The JDK on the machine (Java 17, which Spark needs anyway) builds the same maps the way Kafka's
image classes and controller build them and prints their order; nothing here is compared with
kwire's own output. Kafka's TimelineHashMap order is worked out by hand from ``BaseHashTable``.
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


def test_timeline_hash_map_order():
    # BaseHashTable: six ids grow the table from 2 to 8 slots; Fibonacci hashing puts ids 0..5 in
    # slots 0, 4, 1, 6, 3, 0
    assert order.timeline_hash_order([0, 1, 2, 3, 4, 5]) == [0, 5, 2, 4, 1, 3]
    assert order.timeline_hash_order([1, 2]) == [2, 1]  # two slots: 1 -> slot 1, 2 -> slot 0
