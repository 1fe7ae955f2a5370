package org.apache.kafka.common.security.scram.internals;
import java.util.Collections;
import java.util.Map;
/** Stub: SASL message extensions, not on the credential path (ScramFormatter's keys do not use them). */
public class ScramExtensions {
    public ScramExtensions() { }
    public ScramExtensions(String s) { }
    public ScramExtensions(Map<String, String> m) { }
    public Map<String, String> map() { return Collections.emptyMap(); }
}
