// Turns hand-typed messages in Kafka's JSON form into byte vectors with Kafka's own generated
// message classes (compiled by build.sh from a Kafka release tag; see README.md beside the data).
// For each case: <Name>DataJsonConverter.read(json, version) -> <Name>Data, written with
// ObjectSerializationCache + ByteBufferAccessor; the bytes are then read back by Kafka's reader,
// which must give an equal object and the same bytes again, and written to JSON by the converter.
// Written for kwire; it contains no Kafka code.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;

import java.io.File;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

public final class KafkaVectors {
    private static final String PACKAGE = "org.apache.kafka.common.message.";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: KafkaVectors CASES_JSON OUTPUT_JSON SOURCE_TEXT");
            System.exit(2);
        }
        JsonNode cases = MAPPER.readTree(new File(args[0]));
        List<String> lines = new ArrayList<>();
        for (JsonNode testCase : cases) {
            lines.add(MAPPER.writeValueAsString(vector(testCase, args[2])));
        }
        String text = "[\n" + String.join(",\n", lines) + "\n]\n";
        Files.write(Paths.get(args[1]), text.getBytes(StandardCharsets.UTF_8));
        System.out.printf("KafkaVectors: %d vectors written to %s%n", lines.size(), args[1]);
    }

    private static ObjectNode vector(JsonNode testCase, String source) throws Exception {
        String name = testCase.get("message").asText();
        short version = (short) testCase.get("version").asInt();
        JsonNode input = withRecordSets(testCase.get("json").deepCopy());
        String where = name + " v" + version + " (" + testCase.get("why").asText() + ")";

        Class<?> dataClass = Class.forName(PACKAGE + name + "Data");
        Class<?> converter = Class.forName(PACKAGE + name + "DataJsonConverter");
        Method read = converter.getMethod("read", JsonNode.class, short.class);
        Method write = converter.getMethod("write", dataClass, short.class, boolean.class);

        Message message = (Message) read.invoke(null, input, version);
        byte[] bytes = serialize(message, version);

        Message again = (Message) dataClass.getConstructor(Readable.class, short.class)
            .newInstance(new ByteBufferAccessor(ByteBuffer.wrap(bytes)), version);
        if (!again.equals(message)) {
            throw new IllegalStateException(where + ": Kafka's reader gave a different message");
        }
        if (!java.util.Arrays.equals(serialize(again, version), bytes)) {
            throw new IllegalStateException(where + ": Kafka's writer gave different bytes the second time");
        }

        ObjectNode out = MAPPER.createObjectNode();
        out.put("message", name);
        out.put("version", version);
        out.put("why", testCase.get("why").asText());
        out.set("kafka_read_from", input);
        out.put("hex", HexFormat.of().formatHex(bytes));
        out.set("kafka_json", (JsonNode) write.invoke(null, again, version, true));
        if (hasRecords(message)) {
            out.set("kafka_json_records_as_size", (JsonNode) write.invoke(null, again, version, false));
        }
        out.put("source", source);
        return out;
    }

    // A text "@records magic=M" in a case stands for a real message set: two records written by
    // Kafka's MemoryRecords at that magic (0 and 1 are the formats Produce v0-2 and Fetch v0-3
    // carry), no compression, base offset 0; replaced by its base64 before Kafka's reader sees it.
    private static JsonNode withRecordSets(JsonNode node) {
        if (node.isTextual() && node.asText().startsWith("@records magic=")) {
            byte magic = Byte.parseByte(node.asText().substring("@records magic=".length()));
            MemoryRecords records = MemoryRecords.withRecords(magic, 0L, Compression.NONE,
                new SimpleRecord(1700000000000L, "key-1".getBytes(StandardCharsets.UTF_8),
                    "value-1".getBytes(StandardCharsets.UTF_8)),
                new SimpleRecord(1700000000001L, null, "value-2".getBytes(StandardCharsets.UTF_8)));
            ByteBuffer buffer = records.buffer();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return new TextNode(Base64.getEncoder().encodeToString(bytes));
        }
        if (node.isObject()) {
            ObjectNode object = (ObjectNode) node;
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                object.set(name, withRecordSets(object.get(name)));
            }
        } else if (node.isArray()) {
            ArrayNode array = (ArrayNode) node;
            for (int i = 0; i < array.size(); i++) {
                array.set(i, withRecordSets(array.get(i)));
            }
        }
        return node;
    }

    private static byte[] serialize(Message message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = message.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        message.write(new ByteBufferAccessor(buffer), cache, version);
        if (buffer.hasRemaining()) {
            throw new IllegalStateException("size() said " + size + " but write() left " + buffer.remaining());
        }
        return buffer.array();
    }

    private static boolean hasRecords(Message message) {
        String name = message.getClass().getSimpleName();
        return name.startsWith("ProduceRequest") || name.startsWith("FetchResponse");
    }
}
