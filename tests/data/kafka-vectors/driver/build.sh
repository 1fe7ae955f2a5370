#!/usr/bin/env bash
# Rebuilds ../3.8.0/vectors.json from cases.json with Kafka 3.8.0's own generated message classes.
#   bash tests/data/kafka-vectors/driver/build.sh
# Needs: a git clone (or bare mirror) of apache/kafka with tag 3.8.0 in KAFKA_GIT, Java 17 (javac),
# and the jackson-core/databind/annotations, slf4j-api, lz4, zstd-jni and snappy jars in JARS_DIR
# (pyspark's wheel carries them all).
# Everything of Kafka's is extracted into a temporary build directory and never committed.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
TAG="${KAFKA_TAG:-3.8.0}"
KAFKA_GIT="${KAFKA_GIT:-/work/.mirror/apache+kafka/repo}"
JARS_DIR="${JARS_DIR:-$(python3 -c 'import pyspark, os; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))' 2>/dev/null || echo /work/main/.venv/lib/python3.11/site-packages/pyspark/jars)}"
if [ -z "${BUILD:-}" ]; then
    BUILD="$(mktemp -d -t kafka-vectors.XXXXXX)"
    trap 'rm -rf "$BUILD"' EXIT
fi
OUT="${OUT:-$HERE/../$TAG/vectors.json}"

CP="$(ls "$JARS_DIR"/jackson-core-*.jar "$JARS_DIR"/jackson-databind-*.jar "$JARS_DIR"/jackson-annotations-*.jar \
       "$JARS_DIR"/slf4j-api-*.jar \
       "$JARS_DIR"/lz4-java-*.jar "$JARS_DIR"/zstd-jni-*.jar "$JARS_DIR"/snappy-java-*.jar | tr '\n' ':')"
SHA="$(git --git-dir="$KAFKA_GIT" rev-parse "$TAG^{commit}")"
echo "building in $BUILD from $TAG ($SHA)"

mkdir -p "$BUILD/src" "$BUILD/java" "$BUILD/classes"
git --git-dir="$KAFKA_GIT" archive "$TAG" generator/src/main/java clients/src/main/java \
    clients/src/main/resources/common/message | tar -x -C "$BUILD/src"

# The generator's main() parses its arguments with argparse4j (not here): drop main() and those
# imports; GenerateClasses.java calls the public processDirectories() instead.
GEN="$BUILD/src/generator/src/main/java/org/apache/kafka/message/MessageGenerator.java"
sed -i -e '/argparse4j/d' -e '/public static void main(String\[\] args)/,/^    }$/d' "$GEN"
javac -nowarn -d "$BUILD/classes" -cp "$CP" "$BUILD"/src/generator/src/main/java/org/apache/kafka/message/*.java \
    "$HERE/GenerateClasses.java"

# Every client definition of the release: Kafka's record classes (which the `records` fields
# need) use some of the generated classes themselves (control records, principal data).
java -cp "$BUILD/classes:$CP" GenerateClasses "$BUILD/src/clients/src/main/resources/common/message" \
    "$BUILD/java/org/apache/kafka/common/message"

# The generated classes, with the few classes of Kafka's clients module they use (javac takes
# them from the source path as it needs them), and the driver.
javac -nowarn -d "$BUILD/classes" -cp "$BUILD/classes:$CP" -sourcepath "$BUILD/src/clients/src/main/java" \
    "$BUILD"/java/org/apache/kafka/common/message/*.java "$HERE/KafkaVectors.java"
java -cp "$BUILD/classes:$CP" KafkaVectors "$HERE/cases.json" "$OUT" \
    "Kafka $TAG generated message classes, commit $SHA"
