// Asks Kafka's own org.apache.kafka.common.Uuid which strings fromString accepts.
// Reads candidates.txt (one candidate a line, as the hex of its UTF-8 bytes) and prints, per line,
// "hex<TAB>accept<TAB>most-significant:least-significant bits as hex" or "hex<TAB>refuse<TAB>message".
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.Uuid;

public class UuidProbe {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            byte[] raw = new byte[line.length() / 2];
            for (int i = 0; i < raw.length; i++) {
                raw[i] = (byte) Integer.parseInt(line.substring(2 * i, 2 * i + 2), 16);
            }
            String candidate = new String(raw, StandardCharsets.UTF_8);
            try {
                Uuid uuid = Uuid.fromString(candidate);
                System.out.println(line + "\taccept\t" + String.format("%016x%016x",
                    uuid.getMostSignificantBits(), uuid.getLeastSignificantBits()));
            } catch (IllegalArgumentException e) {
                System.out.println(line + "\trefuse\t" + e.getMessage());
            }
        }
    }
}
