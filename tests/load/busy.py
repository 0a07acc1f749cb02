"""Keep N cores busy at normal priority until killed: the load under which the suite must hold.
`python tests/load/busy.py --cores 2 &`, run the tests, then kill its pid (docs/development.md)."""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal


def spin(parent: int) -> None:
    n = 0
    while os.getppid() == parent:  # ends with its parent, even one killed with SIGKILL
        for _ in range(1_000_000):  # pure CPU: no sleep, no I/O for the scheduler to wait on
            n = (n * 1103515245 + 12345) & 0xFFFFFFFF


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="busy processes")
    args = parser.parse_args()
    procs = [
        multiprocessing.Process(target=spin, args=(os.getpid(),), daemon=True)
        for _ in range(args.cores)
    ]
    for p in procs:
        p.start()

    def stop(signum: int, _frame: object) -> None:
        for p in procs:
            p.terminate()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"busy.py: pid {os.getpid()} keeps {args.cores} core(s) busy", flush=True)
    for p in procs:
        p.join()


if __name__ == "__main__":
    main()
