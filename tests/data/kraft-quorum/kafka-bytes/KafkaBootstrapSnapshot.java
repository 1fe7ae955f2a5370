import java.io.FileOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.*;
import java.util.stream.Collectors;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.*;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.record.*;

// The bytes of Formatter.writeDynamicQuorumSnapshot: RecordsSnapshotWriter.Builder.build's header batch
// (its MemoryRecordsBuilder calls, in order) and freeze's footer (BatchAccumulator.appendSnapshotFooterRecord:
// MemoryRecords.withSnapshotFooterRecord), with the voters of DynamicVoters.toVoterSet + VoterSet.toVotersRecord.
public class KafkaBootstrapSnapshot {
  public static void main(String[] args) throws Exception {
    String out = args[0]; String listener = args[2]; long now = Long.parseLong(args[3]);
    TreeMap<Integer, String[]> tree = new TreeMap<>();                    // DynamicVoters: a TreeMap by id
    for (String v : args[1].split(",")) {
      String[] p = v.split("[@:]");                                       // id@host:port:dir (no IPv6 here)
      tree.put(Integer.parseInt(p[0]), p);
    }
    Map<Integer, String[]> toVoterSet = new HashMap<>();
    for (String[] p : tree.values()) toVoterSet.put(Integer.parseInt(p[0]), p);
    Map<Integer, String[]> voterSet = new HashMap<>(toVoterSet);          // VoterSet.fromMap
    List<VotersRecord.Voter> voters = new ArrayList<>();
    for (String[] p : voterSet.values()) {
      InetSocketAddress address = new InetSocketAddress(p[1], Integer.parseInt(p[2]));
      VotersRecord.EndpointCollection endpoints = new VotersRecord.EndpointCollection(List.of(
          new VotersRecord.Endpoint().setName(ListenerName.normalised(listener).value())
              .setHost(address.getHostString()).setPort(address.getPort())).iterator());
      voters.add(new VotersRecord.Voter().setVoterId(Integer.parseInt(p[0]))
          .setVoterDirectoryId(org.apache.kafka.common.Uuid.fromString(p[3]))
          .setEndpoints(endpoints)
          .setKRaftVersionFeature(new VotersRecord.KRaftVersionFeature().setMinSupportedVersion((short) 0)
              .setMaxSupportedVersion((short) 1)));
    }
    ByteBuffer buffer = ByteBuffer.allocate(8 * 1024 * 1024);
    MemoryRecords header;
    try (MemoryRecordsBuilder builder = new MemoryRecordsBuilder(buffer, RecordBatch.CURRENT_MAGIC_VALUE,
        Compression.NONE, TimestampType.CREATE_TIME, 0L, now, RecordBatch.NO_PRODUCER_ID,
        RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, true, 0, buffer.capacity())) {
      builder.appendSnapshotHeaderMessage(now, new SnapshotHeaderRecord()
          .setVersion(ControlRecordUtils.SNAPSHOT_HEADER_CURRENT_VERSION).setLastContainedLogTimestamp(now));
      builder.appendKRaftVersionMessage(now, new KRaftVersionRecord()
          .setVersion(ControlRecordUtils.KRAFT_VERSION_CURRENT_VERSION).setKRaftVersion((short) 1));
      builder.appendVotersMessage(now, new VotersRecord().setVersion(ControlRecordUtils.KRAFT_VOTERS_CURRENT_VERSION)
          .setVoters(voters));
      header = builder.build();
    }
    MemoryRecords footer = MemoryRecords.withSnapshotFooterRecord(3L, now, 0, ByteBuffer.allocate(1024),
        new SnapshotFooterRecord().setVersion(ControlRecordUtils.SNAPSHOT_FOOTER_CURRENT_VERSION));
    try (FileOutputStream file = new FileOutputStream(out)) {
      for (MemoryRecords records : List.of(header, footer)) {
        ByteBuffer b = records.buffer().duplicate();
        byte[] bytes = new byte[b.remaining()]; b.get(bytes); file.write(bytes);
      }
    }
  }
}
