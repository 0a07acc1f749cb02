"""`make bench`: runs every tests/bench/bench_*.py in turn; each writes tests/bench/results/*.json."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    only = set(sys.argv[1:])
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        if only and script.stem.removeprefix("bench_") not in only:
            continue
        print(f"== {script.name}", flush=True)
        if subprocess.run([sys.executable, str(script)], cwd=HERE.parents[1]).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"benchmarks that failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"results in {HERE / 'results'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
