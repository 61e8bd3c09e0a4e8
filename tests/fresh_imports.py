"""Which packages a piece of code imports, run in a fresh interpreter (the tests' own process
has imported everything long ago)."""

from __future__ import annotations

import json
import subprocess
import sys

_REPORT = (
    "import json, sys\n"
    "loaded = {m.split('.')[0] for m in sys.modules}\n"
    "print(json.dumps(sorted(set(json.loads(sys.argv[1])) & loaded)))"
)


def packages_imported(code: str, packages: set[str]) -> list[str]:
    """Those of ``packages`` (top-level names) that running ``code`` imported, sorted."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{_REPORT}", json.dumps(sorted(packages))],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return list(json.loads(done.stdout.strip().splitlines()[-1]))
