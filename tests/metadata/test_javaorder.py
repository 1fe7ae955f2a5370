"""Java's HashMap iteration order, as kwire.metadata.javaorder models it, checked against a real JDK.

The JDK on the machine (Java 17, which Spark needs anyway) builds the same maps the way Kafka's
image classes build them and prints their order; nothing here is compared with kwire's own output.
"""
from __future__ import annotations

import random
import shutil
import subprocess
import textwrap

from kwire.metadata import javaorder as order

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

MODES = {"fresh": order.fresh_hash_map_order, "sized": order.sized_copy_order, "copy": order.copied_hash_map_order}


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
    return cases


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
