"""Client throughput: 1,000 chat requests at concurrency 32 against a 200 ms loopback server.

The ideal time is requests x latency / concurrency (6.25 s); the client passes when the
measured time is within 1.15 x of it, i.e. its own overhead (SDK, HTTP, retries wrapper, limit,
accounting) stays under 15 %. One warm-up call precedes the clock (the SDK import is a
one-time cost). The server runs in its own process so that its threads do not compete with
the client for the interpreter lock.

    .venv/bin/python bench/client.py [--requests 1000] [--concurrency 32] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time

import benchrun
from guigraph.llm import messages as m
from guigraph.llm.client import ChatClient
from guigraph.llm.config import ModelConfig
from guigraph.llm.limits import ConcurrencyLimit
from guigraph.llm.usage import UsageLedger


async def run(client: ChatClient, requests: int) -> float:
    started = time.perf_counter()
    await asyncio.gather(
        *(client.acomplete([m.user(f"request {i}: say ok")]) for i in range(requests))
    )
    elapsed = time.perf_counter() - started
    await client.aclose()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--bound", type=float, default=1.15)
    args = parser.parse_args()

    bench = benchrun.start("client")
    server = subprocess.Popen(
        [sys.executable, "-m", "guigraph.testing", "--latency", str(args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        ledger = UsageLedger()
        config = ModelConfig(model="test-model", base_url=base_url, api_key="bench")
        client = ChatClient(config, ledger=ledger, limit=ConcurrencyLimit(args.concurrency))
        # One warm-up call outside the clock: importing the SDK is a one-time cost (~0.5 s).
        client.complete([m.user("warm-up")])
        ledger.records.clear()
        cpu_started = time.process_time()
        elapsed = asyncio.run(run(client, args.requests))
        client_cpu = time.process_time() - cpu_started
    finally:
        if server.stdin is not None:
            server.stdin.close()
        server.wait(timeout=10)

    ideal = args.requests * args.latency / args.concurrency
    ratio = elapsed / ideal
    total = ledger.total()
    print(
        f"{args.requests} requests, concurrency {args.concurrency}, latency {args.latency}s: "
        f"{elapsed:.2f}s (ideal {ideal:.2f}s, ratio {ratio:.3f}, bound {args.bound}); "
        f"{total.calls} calls, {total.total_tokens} tokens accounted; "
        f"client CPU {client_cpu * 1000 / args.requests:.2f} ms/request"
    )
    passed = ratio <= args.bound and total.calls == args.requests
    bench.figure("wall_s", round(elapsed, 2))
    bench.figure("ratio_to_ideal", round(ratio, 3))
    bench.figure("client_cpu_ms_per_request", round(client_cpu * 1000 / args.requests, 2))
    bench.table(
        f"{args.requests} requests at concurrency {args.concurrency}, server latency "
        f"{args.latency} s (loopback server in its own process)",
        ["wall", "ideal", "ratio to ideal", "bound", "calls accounted", "client CPU per request"],
        [[f"{elapsed:.2f} s", f"{ideal:.2f} s", round(ratio, 3), args.bound, total.calls,
          f"{client_cpu * 1000 / args.requests:.2f} ms"]],
    )  # fmt: skip
    bench.save()
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
