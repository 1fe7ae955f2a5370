// Writes and reads Kafka's per-partition and per-directory state files with Kafka 3.9's own classes
// (CheckpointFile, LeaderEpochCheckpointFile, CheckpointFileWithFailureHandler, PartitionMetadataFile,
// PartitionMetadataReadBuffer, Uuid; branch 3.9 at c821449), for kwire's tests (tests/data/kafka-checkpoints).
//   java KafkaCheckpoints OUT_DIR
// OUT_DIR/written/: files as Kafka writes them; OUT_DIR/damaged/: inputs; OUT_DIR/kafka-reads.txt: what
// Kafka's readers make of each damaged input (the entries, or the exception's class and message).
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.common.CheckpointFile;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;

public class KafkaCheckpoints {
    // OffsetCheckpointFile.Formatter (core/src/main/scala/kafka/server/checkpoints/OffsetCheckpointFile.scala),
    // Scala, transliterated: "topic partition offset", split on \s+ into exactly three parts
    static final Pattern WHITE_SPACES = Pattern.compile("\\s+");
    static final CheckpointFile.EntryFormatter<String[]> OFFSETS = new CheckpointFile.EntryFormatter<String[]>() {
        public String toString(String[] e) { return e[0] + " " + e[1] + " " + e[2]; }
        public Optional<String[]> fromString(String line) {
            String[] parts = WHITE_SPACES.split(line);
            if (parts.length != 3) return Optional.empty();
            return Optional.of(new String[] {parts[0], Integer.toString(Integer.parseInt(parts[1])),
                                             Long.toString(Long.parseLong(parts[2]))});
        }
    };

    public static void main(String[] args) throws Exception {
        File out = new File(args[0]);
        File written = new File(out, "written");
        File topicDir = new File(written, "orders-3");
        topicDir.mkdirs();
        LogDirFailureChannel channel = new LogDirFailureChannel(10);
        new LeaderEpochCheckpointFile(new File(topicDir, "leader-epoch-checkpoint"), channel).write(Arrays.asList(
            new EpochEntry(0, 0), new EpochEntry(1, 61), new EpochEntry(3, 6948), new EpochEntry(2147483647, 9223372036854775807L)));
        PartitionMetadataFile metadata = new PartitionMetadataFile(new File(topicDir, "partition.metadata"), channel);
        metadata.record(Uuid.fromString("3rRiSJWoStS_jKosjd7CtQ"));
        metadata.maybeFlush();
        List<String[]> offsets = Arrays.asList(new String[] {"orders", "3", "6950"},
            new String[] {"__consumer_offsets", "49", "0"}, new String[] {"orders", "0", "9223372036854775807"});
        for (String name : new String[] {"replication-offset-checkpoint", "recovery-point-offset-checkpoint",
                                         "log-start-offset-checkpoint", "cleaner-offset-checkpoint"}) {
            new CheckpointFile<>(new File(written, name), 0, OFFSETS).write(offsets);
        }
        new CheckpointFile<>(new File(written, "empty-offset-checkpoint"), 0, OFFSETS).write(Arrays.asList());

        File damaged = new File(out, "damaged");
        StringBuilder report = new StringBuilder();
        File[] inputs = damaged.listFiles();
        Arrays.sort(inputs);
        for (File input : inputs) {
            if (!input.getName().contains(".")) continue;
            String kind = input.getName().substring(0, input.getName().indexOf('.'));
            String answer;
            try {
                if (kind.equals("epochs")) {
                    answer = new CheckpointFile<>(input, 0, LeaderEpochCheckpointFile.FORMATTER).read().toString();
                } else if (kind.equals("offsets")) {
                    StringBuilder b = new StringBuilder("[");
                    for (String[] e : new CheckpointFile<>(input, 0, OFFSETS).read()) b.append(String.join(" ", e)).append(";");
                    answer = b.append("]").toString();
                } else {
                    answer = "topicId=" + new PartitionMetadataFile(input, channel).read().topicId();
                }
            } catch (Throwable t) {
                Throwable cause = t.getCause() != null && t.getClass().getSimpleName().equals("KafkaStorageException") ? t.getCause() : t;
                answer = cause.getClass().getSimpleName() + ": " + cause.getMessage();
            }
            report.append(input.getName()).append("\t").append(answer.replace(damaged.getAbsolutePath(), "DIR")).append("\n");
        }
        Files.write(new File(out, "kafka-reads.txt").toPath(), report.toString().getBytes(StandardCharsets.UTF_8));
    }
}
