"""``kwire metadata quorum PATH``: the KRaft controller quorum over a metadata log (KIP-853).

- no option: the voter set's history (each VotersRecord: offset, epoch, the leader of that epoch,
  the voters before and after), the kraft.version and its changes, the current leader and epoch
  (``quorum-state`` when the directory has it);
- ``--describe``: the DescribeQuorumResponse (v2) the leader would answer at the end of the log,
  in Kafka's JSON form, with what only a live leader knows at Kafka's "unknown" values;
- ``--add-voter`` / ``--remove-voter`` / ``--update-voter ID:DIRECTORY_ID``: the request judged
  against the log (:mod:`kwire.metadata.quorum`): refused with Kafka's error code and message, or
  passing every check the log can answer, with the VotersRecord the leader would append and the
  checks only the live leader can make.

Exit codes: 0 described or passing, 1 refused, 2 bad usage or unreadable input.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from kwire.cli.commands import add_command, until_argument
from kwire.cli.errors import fail
from kwire.wire.errors import KwireError


def register_quorum(commands: argparse._SubParsersAction) -> None:
    q = add_command(
        commands, "quorum", raw=True,
        summary="the controller quorum of a log: voter-set history, DescribeQuorum, voter changes judged",
        exit_status="0 described or passing the log's checks, 1 refused, 2 bad usage or unreadable input.",
        description="The KRaft controller quorum over a metadata log directory, snapshot or segment: kraft.version, "
                    "the voter set and each change to it, the leader; --describe prints the DescribeQuorumResponse "
                    "(v2) the leader would answer; --add-voter/--remove-voter/--update-voter judge a voter change "
                    "as Kafka 4.2.1's raft leader would, for the checks that depend only on the log.")
    q.add_argument("path", metavar="PATH", help="metadata log directory (or the data directory holding it), "
                                                "snapshot or segment")
    until_argument(q)
    change = q.add_mutually_exclusive_group()
    change.add_argument("--describe", action="store_true", help="the DescribeQuorumResponse v2 the leader would answer")
    change.add_argument("--add-voter", metavar="ID:DIRECTORY_ID", help="judge an AddRaftVoter request")
    change.add_argument("--remove-voter", metavar="ID:DIRECTORY_ID", help="judge a RemoveRaftVoter request")
    change.add_argument("--update-voter", metavar="ID:DIRECTORY_ID", help="judge an UpdateRaftVoter request")
    q.add_argument("--endpoint", action="append", default=[], metavar="NAME://HOST:PORT",
                   help="a listener of the voter added or updated (repeatable)")
    q.add_argument("--kraft-versions", default="0-1", metavar="MIN-MAX",
                   help="for --update-voter: the kraft.version range the voter supports (default 0-1)")
    q.add_argument("--default-listener", metavar="NAME",
                   help="for --update-voter: the leader's default controller listener, if known")
    q.add_argument("--json", action="store_true", help="print JSON")
    q.set_defaults(func=run_quorum)


def _fail(message: str, code: int = 2) -> int:
    return fail("metadata quorum", message, code)


def _replica_key(text: str) -> tuple[int, Any]:
    from kwire.wire.uuids import uuid_from_text

    voter_id, sep, directory = text.partition(":")
    if not sep or not voter_id.strip().lstrip("-").isdigit():
        raise ValueError(f"expected ID:DIRECTORY_ID, got {text!r}")
    return int(voter_id), uuid_from_text(directory.strip())


def run_quorum(args: argparse.Namespace) -> int:
    from kwire.features.formatter import parse_listener
    from kwire.metadata import quorum

    try:
        history = quorum.read_quorum_history(args.path, until=args.until)
    except (KwireError, OSError) as err:
        return _fail(str(err))
    if args.describe:
        response = quorum.describe_quorum_response(history)
        if not args.quiet:
            print(json.dumps(response.to_dict(2), indent=2 if args.json else None))
        return 0
    request = args.add_voter or args.remove_voter or args.update_voter
    if request is None:
        if args.json:
            print(json.dumps(quorum.history_json(history), indent=2))
        elif not args.quiet:
            print("\n".join(quorum.history_text(history)))
        return 0
    try:
        voter_id, directory_id = _replica_key(request)
        endpoints = [parse_listener(e) for e in args.endpoint]
        low, _, high = args.kraft_versions.partition("-")
        supported = (int(low), int(high or low))
    except (ValueError, KwireError) as err:
        return _fail(str(err))
    if args.add_voter:
        if not endpoints:
            return _fail("--add-voter needs at least one --endpoint NAME://HOST:PORT")
        verdict = quorum.judge_add_voter(history, voter_id, directory_id, endpoints)
    elif args.remove_voter:
        verdict = quorum.judge_remove_voter(history, voter_id, directory_id)
    else:
        if not endpoints:
            return _fail("--update-voter needs at least one --endpoint NAME://HOST:PORT")
        verdict = quorum.judge_update_voter(history, voter_id, directory_id, endpoints, supported,
                                            args.default_listener)
    return _print_verdict(args, history, verdict)


def _print_verdict(args: argparse.Namespace, history: Any, verdict: Any) -> int:
    from kwire.metadata import quorum

    if args.json:
        print(json.dumps({
            "path": str(history.path), "api": verdict.api, "refused": verdict.refused,
            "errorCode": verdict.error_code, "errorName": verdict.error_name, "errorMessage": verdict.error_message,
            "kraftVersion": history.kraft_version,
            "voters": None if history.voters is None else [quorum.voter_json(v) for v in history.voters],
            "newVoters": None if verdict.new_voters is None else [quorum.voter_json(v) for v in verdict.new_voters],
            "liveChecks": verdict.live_checks, "notes": verdict.notes}, indent=2))
    elif not args.quiet:
        if verdict.refused:
            message = f": {verdict.error_message}" if verdict.error_message else " (the response carries no message)"
            print(f"{verdict.api} refused with {verdict.error_name} ({verdict.error_code}){message}")
        else:
            print(f"{verdict.api} passes every check the log can answer (kraft.version {history.kraft_version}).")
            if verdict.new_voters is not None:
                print("The leader would append a VotersRecord with:")
                for voter in verdict.new_voters:
                    print(f"  voter {quorum.voter_text(voter)}")
        if verdict.live_checks:
            print("Checked first by the live leader (a failing one answers instead):" if verdict.refused
                  else "Left to the live leader:")
            for check in verdict.live_checks:
                print(f"  - {check}")
        for note in verdict.notes:
            print(f"note: {note}")
    return 1 if verdict.refused else 0
