"""Run the loopback model server on its own (for benchmarks and manual tries)."""

from __future__ import annotations

from guigraph.testing.server import FakeModelServer, Reply


def main(argv: list[str] | None = None) -> None:
    """``python -m guigraph.testing --latency 0.2``: serve until stdin closes.

    Prints the base URL on the first line, so a benchmark can run the server in its own
    process (keeping its threads off the client's interpreter lock).
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per reply")
    parser.add_argument("--reply", default="ok", help="text of every reply")
    args = parser.parse_args(argv)
    with FakeModelServer(default=Reply.of(args.reply), latency_s=args.latency) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
