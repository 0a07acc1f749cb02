"""A PostgreSQL 15 cluster of the benchmarks' own, set as docs/deployment.md (Running big) advises, so
that the figures can be measured both on the machine's server as it comes (the defaults, as CI
runs it) and on one set for a big database, on the same machine.

    BENCH_PG=tuned make bench-scale      # any benchmark: common.py starts it and points there
    python tests/bench/pgcluster.py up   # start it (made on first use); prints its URL
    python tests/bench/pgcluster.py down # stop it (its data stays, for the next `up`)

Its data lives in BENCH_PG_DIR (default /var/tmp/perfatlas-bench-pg; a 10 M database takes
about 10 GB) and it answers on BENCH_PG_PORT (5439); it is made and run as root (its commands
run as the `postgres` user). It stays up after a benchmark, so that
`make bench-scale`'s load benchmark finds the database its server benchmark stored."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import psycopg

DATA = Path(os.environ.get("BENCH_PG_DIR", "/var/tmp/perfatlas-bench-pg"))
PORT = int(os.environ.get("BENCH_PG_PORT", "5439"))
URL = f"postgresql+psycopg://postgres@127.0.0.1:{PORT}"


def settings() -> dict[str, str]:
    """docs/deployment.md's "PostgreSQL settings that matter", for this machine's memory."""
    ram_mb = psutil.virtual_memory().total // 2**20
    return {
        "shared_buffers": f"{ram_mb // 4}MB",
        "effective_cache_size": f"{ram_mb * 3 // 4}MB",
        "work_mem": "32MB",
        "maintenance_work_mem": "1GB",
        "max_wal_size": "8GB",
        "checkpoint_completion_target": "0.9",
        "random_page_cost": "1.1",
        "autovacuum": "on",
        "synchronous_commit": "on",
        "max_connections": "200",
    }


def _bin(name: str) -> str:
    path = Path("/usr/lib/postgresql/15/bin") / name
    if not path.is_file():
        raise SystemExit(f"pgcluster: no PostgreSQL 15 `{name}` at {path}")
    return str(path)


def _as_postgres(*command: str) -> None:
    """PostgreSQL refuses to run as root: its commands run as the `postgres` user."""
    try:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", *command],
            check=True,
            capture_output=True,
            text=True,
        )
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"pgcluster: {command[0]} failed: {exc.stderr.strip()}") from None


def serving() -> str | None:
    """The data directory of the server answering on PORT, if one does."""
    try:
        with psycopg.connect(f"host=127.0.0.1 port={PORT} user=postgres dbname=postgres",
                             connect_timeout=2) as conn:  # fmt: skip
            row = conn.execute("SELECT current_setting('data_directory')").fetchone()
            return str(row[0]) if row else None
    except psycopg.OperationalError:
        return None


def up() -> str:
    """Makes the cluster if it is not there, starts it if it is not answering; its URL."""
    running = serving()
    if running is not None:
        if Path(running).resolve() != DATA.resolve():
            raise SystemExit(f"pgcluster: port {PORT} is another server's (data in {running})")
        return URL
    if os.geteuid() != 0:
        raise SystemExit("pgcluster: run as root (the cluster's commands run as `postgres`)")
    if not (DATA / "PG_VERSION").exists():
        DATA.mkdir(parents=True, exist_ok=True)
        shutil.chown(DATA, "postgres", "postgres")
        _as_postgres(_bin("initdb"), "-D", str(DATA), "-U", "postgres", "--auth=trust",
                     "--encoding=UTF8", "--locale=C.UTF-8")  # fmt: skip
    options = " ".join(f"-c {k}={shlex.quote(v)}" for k, v in settings().items())
    _as_postgres(
        _bin("pg_ctl"), "-D", str(DATA), "-l", str(DATA / "server.log"), "-w", "-t", "120",
        "-o", f"-p {PORT} -c listen_addresses=127.0.0.1 "
        f"-c unix_socket_directories={shlex.quote(str(DATA))} "
        + options, "start",
    )  # fmt: skip
    for _ in range(120):
        if serving() is not None:
            return URL
        time.sleep(0.5)
    raise SystemExit(f"pgcluster: the cluster in {DATA} did not answer; see its server.log")


def down() -> None:
    if (DATA / "postmaster.pid").exists():
        _as_postgres(_bin("pg_ctl"), "-D", str(DATA), "-m", "fast", "-w", "stop")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "up":
        print(up())
    elif what == "down":
        down()
    else:
        raise SystemExit("usage: pgcluster.py up|down")
