// Runs Kafka's own message generator (org.apache.kafka.message.MessageGenerator, compiled from the
// Kafka tag by build.sh) over a folder of definition files, through its processing API: the
// generator's command line needs argparse4j, which is not on this machine.
// Written for kwire; it contains no Kafka code.
import java.util.List;

public final class GenerateClasses {
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: GenerateClasses DEFINITIONS_DIR OUTPUT_DIR");
            System.exit(2);
        }
        org.apache.kafka.message.MessageGenerator.processDirectories(
            "org.apache.kafka.common.message", args[1], args[0],
            List.of(), List.of("MessageDataGenerator", "JsonConverterGenerator"));
    }
}
