package org.slf4j;
/** Stub: logging discarded (the classes under test only log). */
public interface Logger {
    default void error(String m, Object... a) {}
    default void warn(String m, Object... a) {}
    default void info(String m, Object... a) {}
    default void debug(String m, Object... a) {}
    default void trace(String m, Object... a) {}
    default boolean isDebugEnabled() { return false; }
    default boolean isTraceEnabled() { return false; }
}
