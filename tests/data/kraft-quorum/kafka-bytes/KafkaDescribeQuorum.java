import java.util.*;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.DescribeQuorumResponseDataJsonConverter;

// The DescribeQuorumResponse RaftUtil.singletonDescribeQuorumResponse builds (v2), fields set as it sets
// them, printed by Kafka's generated JSON converter.
public class KafkaDescribeQuorum {
  public static void main(String[] a) {
    int leader = 1; int epoch = 1; long leo = 3;
    int[] ids = {1, 3, 4};
    String[] dirs = {"4znU-ou9Taa06bmEJxsjnw", "ANbHvzbFTM6KJXvFvFmVnA", "P3rPQ8Z1TtKw4Z8cnYlUtQ"};
    List<DescribeQuorumResponseData.ReplicaState> voters = new ArrayList<>();
    DescribeQuorumResponseData.NodeCollection nodes = new DescribeQuorumResponseData.NodeCollection(3);
    for (int i = 0; i < ids.length; i++) {
      voters.add(new DescribeQuorumResponseData.ReplicaState().setReplicaId(ids[i])
          .setLogEndOffset(ids[i] == leader ? leo : -1L).setLastCaughtUpTimestamp(-1L).setLastFetchTimestamp(-1L)
          .setReplicaDirectoryId(Uuid.fromString(dirs[i])));
      DescribeQuorumResponseData.ListenerCollection listeners = new DescribeQuorumResponseData.ListenerCollection();
      listeners.add(new DescribeQuorumResponseData.Listener().setName("CONTROLLER").setHost("localhost").setPort(9092 + ids[i]));
      nodes.add(new DescribeQuorumResponseData.Node().setNodeId(ids[i]).setListeners(listeners));
    }
    DescribeQuorumResponseData response = new DescribeQuorumResponseData().setTopics(List.of(
        new DescribeQuorumResponseData.TopicData().setTopicName("__cluster_metadata").setPartitions(List.of(
            new DescribeQuorumResponseData.PartitionData().setPartitionIndex(0).setErrorCode((short) 0)
                .setLeaderId(leader).setLeaderEpoch(epoch).setHighWatermark(-1L)
                .setCurrentVoters(voters).setObservers(new ArrayList<>())))));
    response.setNodes(nodes);
    System.out.println(DescribeQuorumResponseDataJsonConverter.write(response, (short) 2));
    java.nio.ByteBuffer b = org.apache.kafka.common.protocol.MessageUtil.toByteBuffer(response, (short) 2);
    byte[] raw = new byte[b.remaining()]; b.get(raw);
    System.out.println(Base64.getEncoder().encodeToString(raw));
  }
}
