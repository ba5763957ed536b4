#!/usr/bin/env python3
"""Holds waiting reads open on a running apple-id-mock, one connection each, as parallel CI jobs
that assert with `waitSeconds` do: `hold-waiting-reads.py BASE_URL COUNT PATH [COUNT PATH ...]`
sends COUNT requests `GET PATH` for each pair (PATH with its query: `waitSeconds`, a `minCount` no
call meets, the namespace's prefix), prints `holding N` once every request is sent, and holds them
until SIGTERM or SIGINT; then prints how many were answered while held, by status (a 409 is a read
the server did not admit). One process and no thread per read, so 1,000 cost the machine little
besides the server's share (scripts/benchmark.sh, BENCH_ONLY=waiters)."""

import asyncio
import signal
import sys
from collections import Counter
from urllib.parse import urlsplit


async def hold(host: str, port: int, path: str, sent: Counter, answered: Counter) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n\r\n".encode())
    await writer.drain()
    sent["sent"] += 1
    try:
        line = await reader.readline()
        parts = line.split(b" ", 2)
        answered[parts[1].decode() if len(parts) > 1 else "closed"] += 1
    finally:
        writer.close()


async def main(argv: list[str]) -> int:
    if len(argv) < 3 or len(argv) % 2 == 0:
        print(__doc__, file=sys.stderr)
        return 2
    base = urlsplit(argv[0])
    host, port = base.hostname or "127.0.0.1", base.port or 80
    pairs = [(int(argv[i]), argv[i + 1]) for i in range(1, len(argv), 2)]
    sent: Counter = Counter()
    answered: Counter = Counter()
    tasks = [
        asyncio.create_task(hold(host, port, path, sent, answered)) for count, path in pairs for _ in range(count)
    ]
    # Every request written (or its connection failed), then a moment for the server to take them in.
    while sent["sent"] < len(tasks) and not all(task.done() for task in tasks):
        await asyncio.sleep(0.01)
    failed = [task for task in tasks if task.done() and task.exception() is not None]
    if failed:
        print(f"{len(failed)} connections failed: {failed[0].exception()}", file=sys.stderr)
        return 1
    await asyncio.sleep(0.5)
    print(f"holding {len(tasks)}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for task in tasks:
        task.cancel()
    summary = ", ".join(f"{status}: {count}" for status, count in sorted(answered.items())) or "none"
    print(f"answered while held: {summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
