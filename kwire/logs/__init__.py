"""Kafka's on-disk logs: KRaft metadata logs and snapshots, coordinator logs, log directories, ``kwire dump``."""
