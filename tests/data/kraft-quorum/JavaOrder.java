// Kafka's HashMap/HashSet orders and texts for the quorum tests, from the JDK's own collections.
// Uuid.hashCode/toString and ReplicaKey.hashCode/toString are written as Kafka 4.2.1 defines them
// (clients/.../common/Uuid.java, raft/.../raft/ReplicaKey.java). Run: java JavaOrder.java > java-order.txt
import java.nio.ByteBuffer;
import java.util.*;
import java.util.stream.Collectors;

public class JavaOrder {
    record Uuid(long msb, long lsb) {
        static Uuid fromString(String s) {
            ByteBuffer b = ByteBuffer.wrap(Base64.getUrlDecoder().decode(s));
            return new Uuid(b.getLong(), b.getLong());
        }
        @Override public int hashCode() { long x = msb ^ lsb; return (int) (x >> 32) ^ (int) x; }
        @Override public String toString() {
            ByteBuffer b = ByteBuffer.allocate(16); b.putLong(msb); b.putLong(lsb);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
        }
    }
    record ReplicaKey(int id, Optional<Uuid> directoryId) {
        @Override public int hashCode() { return Objects.hash(id, directoryId); }
        @Override public String toString() { return String.format("ReplicaKey(id=%d, directoryId=%s)", id, directoryId); }
    }

    // format: DynamicVoters (TreeMap) -> toVoterSet (HashMap) -> VoterSet.fromMap (copy): the VotersRecord's order.
    // read back: VoterSet.fromVotersRecord fills new HashMap<>(n) in record order; voterKeys() streams its
    // values into a HashSet; LeaderState.voterStates is a new HashMap<>() filled in the voter set's order.
    static void voterKeys(String label, String... idAndDirs) {
        TreeMap<Integer, Uuid> tree = new TreeMap<>();
        for (String s : idAndDirs) { String[] p = s.split(":"); tree.put(Integer.parseInt(p[0]), Uuid.fromString(p[1])); }
        Map<Integer, Uuid> map = new HashMap<>();
        tree.forEach(map::put);
        Map<Integer, Uuid> record = new HashMap<>(map);
        Map<Integer, Uuid> read = new HashMap<>(record.size());
        record.forEach(read::put);
        Set<ReplicaKey> keys = read.entrySet().stream().map(e -> new ReplicaKey(e.getKey(), Optional.of(e.getValue())))
            .collect(Collectors.toSet());
        Map<Integer, Uuid> states = new HashMap<>();
        read.forEach(states::put);
        System.out.println(label + " record " + record.keySet());
        System.out.println(label + " keys " + keys);
        System.out.println(label + " states " + states.keySet());
    }

    public static void main(String[] args) {
        voterKeys("three", "1:4znU-ou9Taa06bmEJxsjnw", "2:nKF6yzhxS-2F12yYx2aYRw", "3:ANbHvzbFTM6KJXvFvFmVnA");
        voterKeys("four", "1:4znU-ou9Taa06bmEJxsjnw", "2:nKF6yzhxS-2F12yYx2aYRw", "3:ANbHvzbFTM6KJXvFvFmVnA",
                  "4:P3rPQ8Z1TtKw4Z8cnYlUtQ");
        voterKeys("spread", "17:AAAAAAAAAAAAAAAAAAAAAQ", "1:AAAAAAAAAAAAAAAAAAAAAg", "40:AAAAAAAAAAAAAAAAAAAAAw");
        voterKeys("many", "3000:4znU-ou9Taa06bmEJxsjnw", "16:nKF6yzhxS-2F12yYx2aYRw", "0:ANbHvzbFTM6KJXvFvFmVnA",
                  "65536:P3rPQ8Z1TtKw4Z8cnYlUtQ", "7:AAAAAAAAAAAAAAAAAAAAAQ");
    }
}
