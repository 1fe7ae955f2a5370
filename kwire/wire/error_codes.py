"""Kafka's protocol error codes: :class:`ErrorCode`, the one table of them.

An :class:`~enum.IntEnum` (in the manner of :class:`http.HTTPStatus`) of every code of Apache Kafka
4.2.1's ``Errors`` enum (``clients/src/main/java/org/apache/kafka/common/protocol/Errors.java``).
Each member has ``retriable`` -- whether Kafka's exception for it is a ``RetriableException`` --
and a short ``description`` in kwire's words. The codes and retriable flags were taken from Kafka's
own classes (tests/data/kafka-errors/README.md says how); ``tests/network/test_errors.py`` checks
this table against those facts.

A code the table does not know (a newer broker's) is kept, not refused: ``ErrorCode.of(999)`` (and
``ErrorCode(999)``) is a stand-in that is the int 999, named ``UNKNOWN_CODE_999``, not
``retriable`` (as Kafka's own clients treat a code they do not know) and not ``known``. Kafka's
``Errors.forCode`` would turn it into UNKNOWN_SERVER_ERROR and lose the number.

In the wire core so that every part may read it: the network layer builds its exceptions from
it (:mod:`kwire.network.errors`), the metadata image names the codes of the quorum's answers.
"""
from __future__ import annotations

import enum
from typing import Self


class ErrorCode(enum.IntEnum):
    """A Kafka protocol error code; ``retriable`` and ``description`` on every member."""

    retriable: bool
    description: str

    # Builds the members from the rows below. The defaults are never used (a call ErrorCode(6)
    # looks the member up); they let type checkers read ErrorCode(6) as the lookup it is.
    def __new__(cls, code: int, retriable: bool = False, description: str = "") -> Self:
        member = int.__new__(cls, code)
        member._value_ = code
        member.retriable = retriable
        member.description = description
        return member

    UNKNOWN_SERVER_ERROR = (-1, False, "The broker hit an error it has no code for; its log says more.")
    NONE = (0, False, "No error.")
    OFFSET_OUT_OF_RANGE = (1, False, "The offset asked for is before the log start or after its end.")
    CORRUPT_MESSAGE = (2, True, "A record batch failed its CRC, has a bad size, or is otherwise unreadable.")
    UNKNOWN_TOPIC_OR_PARTITION = (3, True, "This broker has no such topic or partition (or does not yet know of it).")
    INVALID_FETCH_SIZE = (4, False, "The fetch size asked for is not allowed.")
    LEADER_NOT_AVAILABLE = (5, True, "The partition has no leader at the moment: an election is under way.")
    NOT_LEADER_OR_FOLLOWER = (6, True, "This broker is not the leader (or not a replica) "
                                       "of the partition: refresh metadata.")
    REQUEST_TIMED_OUT = (7, True, "The broker gave up on the request after its timeout.")
    BROKER_NOT_AVAILABLE = (8, False, "The broker is not available.")
    REPLICA_NOT_AVAILABLE = (9, True, "A replica of the partition is not available.")
    MESSAGE_TOO_LARGE = (10, False, "A record batch is larger than the broker or topic accepts.")
    STALE_CONTROLLER_EPOCH = (11, False, "The request came from a controller that is no longer the controller.")
    OFFSET_METADATA_TOO_LARGE = (12, False, "The metadata string of an offset commit is too long.")
    NETWORK_EXCEPTION = (13, True, "The connection closed before the response arrived.")
    COORDINATOR_LOAD_IN_PROGRESS = (14, True, "The coordinator is still loading its state; try again shortly.")
    COORDINATOR_NOT_AVAILABLE = (15, True, "The group or transaction coordinator is not available.")
    NOT_COORDINATOR = (16, True, "This broker is not the coordinator for the group or transaction: find it again.")
    INVALID_TOPIC_EXCEPTION = (17, False, "The topic name is not valid, or the operation is not allowed on that topic.")
    RECORD_LIST_TOO_LARGE = (18, False, "A record batch is larger than the log segment size.")
    NOT_ENOUGH_REPLICAS = (19, True, "Too few in-sync replicas to accept the write; nothing was written.")
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = (20, True, "Written to the leader's log, but to fewer "
                                                  "in-sync replicas than required.")
    INVALID_REQUIRED_ACKS = (21, False, "The acks value of a Produce request is not allowed.")
    ILLEGAL_GENERATION = (22, False, "The group generation in the request is not the current one.")
    INCONSISTENT_GROUP_PROTOCOL = (23, False, "The member's protocols do not match those of the group's other members.")
    INVALID_GROUP_ID = (24, False, "The group id is not valid (empty, for example).")
    UNKNOWN_MEMBER_ID = (25, False, "The coordinator does not know this member id.")
    INVALID_SESSION_TIMEOUT = (26, False, "The session timeout is outside the range the broker allows.")
    REBALANCE_IN_PROGRESS = (27, False, "The group is rebalancing: the member must join again.")
    INVALID_COMMIT_OFFSET_SIZE = (28, False, "The size of the offset commit is not valid.")
    TOPIC_AUTHORIZATION_FAILED = (29, False, "Not authorized for this topic.")
    GROUP_AUTHORIZATION_FAILED = (30, False, "Not authorized for this group.")
    CLUSTER_AUTHORIZATION_FAILED = (31, False, "Not authorized for this cluster operation.")
    INVALID_TIMESTAMP = (32, False, "A record's timestamp is outside the range the broker accepts.")
    UNSUPPORTED_SASL_MECHANISM = (33, False, "The broker does not offer this SASL mechanism.")
    ILLEGAL_SASL_STATE = (34, False, "The request does not fit the current stage of SASL authentication.")
    UNSUPPORTED_VERSION = (35, False, "The broker does not support this version of the API.")
    TOPIC_ALREADY_EXISTS = (36, False, "A topic of that name already exists.")
    INVALID_PARTITIONS = (37, False, "The number of partitions is not valid.")
    INVALID_REPLICATION_FACTOR = (38, False, "The replication factor is not valid.")
    INVALID_REPLICA_ASSIGNMENT = (39, False, "The replica assignment is not valid.")
    INVALID_CONFIG = (40, False, "A configuration value is not valid.")
    NOT_CONTROLLER = (41, True, "This broker is not the active controller.")
    INVALID_REQUEST = (42, False, "The broker could not make sense of the request "
                                  "(malformed, or meant for another broker version).")
    UNSUPPORTED_FOR_MESSAGE_FORMAT = (43, False, "The topic's message format cannot carry what the request needs.")
    POLICY_VIOLATION = (44, False, "The request breaks a policy configured on the broker.")
    OUT_OF_ORDER_SEQUENCE_NUMBER = (45, False, "An idempotent producer's sequence number is not the next one expected.")
    DUPLICATE_SEQUENCE_NUMBER = (46, False, "An idempotent producer sent a sequence number already written.")
    INVALID_PRODUCER_EPOCH = (47, False, "The producer's epoch is old: another producer with its "
                                         "transactional id took over, or its transaction expired.")
    INVALID_TXN_STATE = (48, False, "The transactional operation is not allowed in the transaction's current state.")
    INVALID_PRODUCER_ID_MAPPING = (49, False, "The producer id is not the one assigned to this transactional id.")
    INVALID_TRANSACTION_TIMEOUT = (50, False, "The transaction timeout is above the broker's maximum.")
    CONCURRENT_TRANSACTIONS = (51, True, "Another operation on the same transaction is in progress; try again.")
    TRANSACTION_COORDINATOR_FENCED = (52, False, "The transaction coordinator that sent this "
                                                 "is no longer the coordinator.")
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = (53, False, "Not authorized for this transactional id.")
    SECURITY_DISABLED = (54, False, "Security features are turned off on this broker.")
    OPERATION_NOT_ATTEMPTED = (55, False, "The broker skipped this part of a batched "
                                          "request because another part failed.")
    KAFKA_STORAGE_ERROR = (56, True, "The broker could not read or write its log on disk.")
    LOG_DIR_NOT_FOUND = (57, False, "The log directory named does not exist on the broker.")
    SASL_AUTHENTICATION_FAILED = (58, False, "SASL authentication failed (wrong credentials, usually).")
    UNKNOWN_PRODUCER_ID = (59, False, "The broker has no state for this producer id "
                                      "(its records may have been deleted).")
    REASSIGNMENT_IN_PROGRESS = (60, False, "A partition reassignment is already in progress.")
    DELEGATION_TOKEN_AUTH_DISABLED = (61, False, "Delegation tokens are turned off on this broker.")
    DELEGATION_TOKEN_NOT_FOUND = (62, False, "No such delegation token.")
    DELEGATION_TOKEN_OWNER_MISMATCH = (63, False, "The principal does not own the delegation "
                                                  "token and may not renew it.")
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = (64, False, "Delegation token requests are not allowed on this kind "
                                                       "of connection or with these credentials.")
    DELEGATION_TOKEN_AUTHORIZATION_FAILED = (65, False, "Not authorized for delegation token operations.")
    DELEGATION_TOKEN_EXPIRED = (66, False, "The delegation token has expired.")
    INVALID_PRINCIPAL_TYPE = (67, False, "The principal type is not supported.")
    NON_EMPTY_GROUP = (68, False, "The group still has members, so it cannot be deleted.")
    GROUP_ID_NOT_FOUND = (69, False, "No such group.")
    FETCH_SESSION_ID_NOT_FOUND = (70, True, "The broker has no fetch session with this id.")
    INVALID_FETCH_SESSION_EPOCH = (71, True, "The fetch session epoch is not the expected one.")
    LISTENER_NOT_FOUND = (72, True, "The partition's leader has no listener of the name the request came through.")
    TOPIC_DELETION_DISABLED = (73, False, "Deleting topics is turned off on this cluster.")
    FENCED_LEADER_EPOCH = (74, True, "The leader epoch in the request is older than the broker's.")
    UNKNOWN_LEADER_EPOCH = (75, True, "The leader epoch in the request is newer than the broker's.")
    UNSUPPORTED_COMPRESSION_TYPE = (76, False, "The broker or the request's version does not "
                                               "support this compression codec.")
    STALE_BROKER_EPOCH = (77, False, "The broker epoch in the request is old.")
    OFFSET_NOT_AVAILABLE = (78, True, "The leader's high watermark has not caught up yet, so the offset is not known.")
    MEMBER_ID_REQUIRED = (79, False, "The group asks the member to join again with the member id it was given.")
    PREFERRED_LEADER_NOT_AVAILABLE = (80, True, "The preferred leader is not available.")
    GROUP_MAX_SIZE_REACHED = (81, False, "The group already has as many members as allowed.")
    FENCED_INSTANCE_ID = (82, False, "Another member took over this static instance id.")
    ELIGIBLE_LEADERS_NOT_AVAILABLE = (83, True, "No replica eligible to become leader is available.")
    ELECTION_NOT_NEEDED = (84, True, "The election was not needed: the leader is already the preferred one.")
    NO_REASSIGNMENT_IN_PROGRESS = (85, False, "There is no partition reassignment in progress to cancel.")
    GROUP_SUBSCRIBED_TO_TOPIC = (86, False, "The group still consumes this topic, so its offsets cannot be deleted.")
    INVALID_RECORD = (87, False, "The broker refused a record of the batch (see the per-record errors).")
    UNSTABLE_OFFSET_COMMIT = (88, True, "Offsets of a pending transaction are not yet settled; try again.")
    THROTTLING_QUOTA_EXCEEDED = (89, True, "A throttling quota was exceeded.")
    PRODUCER_FENCED = (90, False, "A newer producer with the same transactional id fenced this one.")
    RESOURCE_NOT_FOUND = (91, False, "No such resource.")
    DUPLICATE_RESOURCE = (92, False, "The request names the same resource twice.")
    UNACCEPTABLE_CREDENTIAL = (93, False, "The credential does not meet the broker's rules.")
    INCONSISTENT_VOTER_SET = (94, False, "The voter sets of the KRaft replicas do not agree.")
    INVALID_UPDATE_VERSION = (95, False, "The update version is not valid.")
    FEATURE_UPDATE_FAILED = (96, False, "A feature level could not be updated (the controller refused it).")
    PRINCIPAL_DESERIALIZATION_FAILURE = (97, False, "The forwarded principal could not be read back.")
    SNAPSHOT_NOT_FOUND = (98, False, "No such snapshot.")
    POSITION_OUT_OF_RANGE = (99, False, "The position asked for is outside the snapshot.")
    UNKNOWN_TOPIC_ID = (100, True, "This broker does not know the topic id.")
    DUPLICATE_BROKER_REGISTRATION = (101, False, "A broker with this id is already registered.")
    BROKER_ID_NOT_REGISTERED = (102, False, "No broker with this id is registered.")
    INCONSISTENT_TOPIC_ID = (103, True, "The topic id in the request does not match the partition's.")
    INCONSISTENT_CLUSTER_ID = (104, False, "The cluster id in the request is not this cluster's.")
    TRANSACTIONAL_ID_NOT_FOUND = (105, False, "No such transactional id.")
    FETCH_SESSION_TOPIC_ID_ERROR = (106, True, "The fetch session's topic ids changed; start a new session.")
    INELIGIBLE_REPLICA = (107, False, "The replica named may not join the ISR.")
    NEW_LEADER_ELECTED = (108, False, "A new leader was elected while the request waited.")
    OFFSET_MOVED_TO_TIERED_STORAGE = (109, False, "The offset now lives only in tiered storage.")
    FENCED_MEMBER_EPOCH = (110, False, "The member's epoch was fenced by the coordinator: join again with epoch 0.")
    UNRELEASED_INSTANCE_ID = (111, False, "The static instance id is still held by another member.")
    UNSUPPORTED_ASSIGNOR = (112, False, "The group does not offer the assignor asked for.")
    STALE_MEMBER_EPOCH = (113, False, "The member's epoch is old.")
    MISMATCHED_ENDPOINT_TYPE = (114, False, "The request reached an endpoint of the wrong kind (broker or controller).")
    UNSUPPORTED_ENDPOINT_TYPE = (115, False, "This kind of endpoint is not supported yet.")
    UNKNOWN_CONTROLLER_ID = (116, False, "No controller with this id is known.")
    UNKNOWN_SUBSCRIPTION_ID = (117, False, "The client-telemetry subscription id is unknown or out of date.")
    TELEMETRY_TOO_LARGE = (118, False, "The pushed telemetry is larger than the broker accepts.")
    INVALID_REGISTRATION = (119, False, "The controller judged the broker's registration not valid.")
    TRANSACTION_ABORTABLE = (120, False, "The transaction hit an error; abort it to go on with this transactional id.")
    INVALID_RECORD_STATE = (121, False, "The record's delivery state does not allow this acknowledgement.")
    SHARE_SESSION_NOT_FOUND = (122, True, "The broker has no such share session.")
    INVALID_SHARE_SESSION_EPOCH = (123, True, "The share session epoch is not the expected one.")
    FENCED_STATE_EPOCH = (124, False, "The share-group state epoch in the request is not the share coordinator's.")
    INVALID_VOTER_KEY = (125, False, "The voter key does not match the receiving replica's.")
    DUPLICATE_VOTER = (126, False, "The voter is already one of the voters.")
    VOTER_NOT_FOUND = (127, False, "The voter is not one of the voters.")
    INVALID_REGULAR_EXPRESSION = (128, False, "The regular expression is not valid.")
    REBOOTSTRAP_REQUIRED = (129, False, "The client's view of the cluster is stale: bootstrap again.")
    STREAMS_INVALID_TOPOLOGY = (130, False, "The Streams topology is not valid.")
    STREAMS_INVALID_TOPOLOGY_EPOCH = (131, False, "The Streams topology epoch is not valid.")
    STREAMS_TOPOLOGY_FENCED = (132, False, "The Streams topology epoch is out of date.")
    SHARE_SESSION_LIMIT_REACHED = (133, True, "The broker holds as many share sessions as it allows; try again later.")

    @classmethod
    def lookup(cls, code: int) -> ErrorCode | None:
        """The member for ``code``, or None for a number Kafka 4.2.1 does not define."""
        member = cls._value2member_map_.get(code)
        return member if isinstance(member, ErrorCode) else None

    @classmethod
    def of(cls, code: int) -> ErrorCode:
        """The member for ``code``; for a code the table does not know, a stand-in keeping it."""
        return cls(code)

    @classmethod
    def _missing_(cls, value: object) -> ErrorCode | None:
        if not isinstance(value, int) or isinstance(value, bool):
            return None  # not a code: Enum's ValueError
        stand_in = int.__new__(cls, value)
        stand_in._name_ = f"UNKNOWN_CODE_{value}"
        stand_in._value_ = value
        stand_in.retriable = False
        stand_in.description = "A code this kwire does not know (a newer broker's?)."
        return stand_in

    @property
    def known(self) -> bool:
        """Whether the code is one of Kafka 4.2.1's (not a stand-in for an unknown one)."""
        return self._value_ in type(self)._value2member_map_
