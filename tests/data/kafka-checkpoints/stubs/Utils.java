package org.apache.kafka.common.utils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
/** Stub of the one method the checkpoint classes use: Kafka's moves atomically, falling back to a plain move. */
public final class Utils {
    public static void atomicMoveWithFallback(Path source, Path target) throws IOException {
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    }
}
