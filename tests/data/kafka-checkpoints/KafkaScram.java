// Prints the UserScramCredentialRecord fields Kafka's ScramFormatter computes (Kafka 3.9,
// clients/.../security/scram/internals/ScramFormatter.java and ScramMechanism.java, branch 3.9 at c821449),
// as ScramParser.PerMechanismData.toRecord does: storedKey = H(HMAC(Hi(password, salt, i), "Client Key")),
// serverKey = HMAC(Hi(...), "Server Key"). One line per case: mechanism, name, password, salt, iterations,
// then storedKey and serverKey, all bytes in base64.
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

public class KafkaScram {
    public static void main(String[] args) throws Exception {
        String[][] cases = {
            {"SCRAM-SHA-256", "alice", "alice-secret", "MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=", "4096"},
            {"SCRAM-SHA-512", "alice", "alice-secret", "MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=", "8192"},
            {"SCRAM-SHA-256", "bob", "p\u00e4ss,word=\"x\"", "c2FsdA==", "16384"},
            {"SCRAM-SHA-512", "carol", "c", "AAECAwQFBgcICQoLDA0ODw==", "4096"},
        };
        Base64.Encoder b64 = Base64.getEncoder();
        for (String[] c : cases) {
            ScramMechanism mechanism = ScramMechanism.forMechanismName(c[0]);
            ScramFormatter formatter = new ScramFormatter(mechanism);
            byte[] salt = Base64.getDecoder().decode(c[3]);
            int iterations = Integer.parseInt(c[4]);
            byte[] salted = formatter.saltedPassword(c[2], salt, iterations);
            byte[] storedKey = formatter.storedKey(formatter.clientKey(salted));
            byte[] serverKey = formatter.serverKey(salted);
            System.out.println(String.join("\t", c[0], c[1], b64.encodeToString(c[2].getBytes(StandardCharsets.UTF_8)),
                c[3], c[4], b64.encodeToString(storedKey), b64.encodeToString(serverKey)));
        }
        // ScramParserTest.testPerMechanismDataToRecord: a given saltedpassword (base64), SCRAM-SHA-512, 4096;
        // the password column is then "saltedpassword:" and that base64
        byte[] saltedPassword = Base64.getDecoder().decode("mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE=");
        ScramFormatter formatter = new ScramFormatter(ScramMechanism.SCRAM_SHA_512);
        System.out.println(String.join("\t", "SCRAM-SHA-512", "alice", "saltedpassword:mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE=",
            "MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=", "4096", b64.encodeToString(formatter.storedKey(formatter.clientKey(saltedPassword))),
            b64.encodeToString(formatter.serverKey(saltedPassword))));
    }
}
