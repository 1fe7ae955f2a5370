"""KRaft metadata as Kafka's controller and brokers see it: the metadata image and its snapshots.

- :mod:`kwire.metadata.image`: the image (features, brokers, controllers, topics and partitions,
  configs, client quotas, producer ids, ACLs, SCRAM credentials, delegation tokens, ZK migration
  state, quorum);
- :mod:`kwire.metadata.replay`: how each metadata record changes it (Kafka's deltas);
- :mod:`kwire.metadata.loader`: replaying a log directory, a snapshot or a segment into it;
- :mod:`kwire.metadata.describe`: its JSON and text forms.

This part sits above ``kwire.logs`` (which reads the files) and below the command line.
"""
