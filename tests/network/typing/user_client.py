"""A user's script: what `mypy --strict` must accept (tests/network/test_typing.py)."""
from __future__ import annotations

import asyncio

from kwire.generated import MetadataRequest
from kwire.network import Connection, aio
from kwire.network.blocking import BlockingConnection
from kwire.network.connection import Ready, RequestFailed, Response
from kwire.network.errors import ErrorCode, KafkaApiError, iter_errors, raise_for
from kwire.network.sasl import SaslCredentials


def retriable_names() -> list[str]:
    return [code.name for code in ErrorCode if code.retriable]


def check(code: int) -> bool:
    try:
        raise_for(code, "message")
    except KafkaApiError as error:
        return error.retriable
    return False


def drive(connection: Connection, data: bytes, now: float) -> list[int]:
    ids: list[int] = []
    for event in connection.receive_data(data, now):
        if isinstance(event, Response):
            ids.append(event.correlation_id)
        elif isinstance(event, RequestFailed):
            ids.append(-event.correlation_id)
        elif isinstance(event, Ready):
            ids.extend(event.versions)
    return ids


def blocking(host: str, port: int) -> int:
    with BlockingConnection(host, port, sasl=SaslCredentials("PLAIN", "u", "p")) as connection:
        return len(list(iter_errors(connection.request(MetadataRequest()))))


async def main(host: str, port: int) -> ErrorCode | None:
    async with await aio.connect(host, port, timeout=5.0) as connection:
        response = await connection.request(MetadataRequest())
        for report in iter_errors(response):
            return ErrorCode.lookup(report.code)
    return None


if __name__ == "__main__":
    print(asyncio.run(main("127.0.0.1", 9092)))
