package org.apache.kafka.common.utils;
import java.util.Map;
/** Stub of the one method ScramMessages uses (it builds SASL messages; the credential path does not call it). */
public final class Utils {
    public static <K, V> String mkString(Map<K, V> map, String begin, String end, String keyValueSeparator, String elementSeparator) {
        StringBuilder b = new StringBuilder(begin);
        String sep = "";
        for (Map.Entry<K, V> e : map.entrySet()) {
            b.append(sep).append(e.getKey()).append(keyValueSeparator).append(e.getValue());
            sep = elementSeparator;
        }
        return b.append(end).toString();
    }
}
