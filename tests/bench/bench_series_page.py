"""Series page benchmark on a small database of its own (one series of 10,000 points, its
fs_version label changing every 2,000 runs and its kernel once): the points' JSON as the page
asks for it, its bytes and the server's CPU per request with and without gzip (each beside the
other, alternated in the same run), and in Chromium the page's cold draw of the 10,000 points:
how many times plotly draws them, when the drawing ends and when it reaches the screen.

The figure before (`ui_before`) is measured in the same run: the frontend of BENCH_SERIES_BEFORE
(a commit, default d8811db) is built from `git archive` into a folder of /tmp (kept for the
next run) and served by a second server, that commit's backend, on the same database; the two
builds' cold loads alternate, one of each in turn, so that both see the same load on this
shared machine (its load average is written before and after).

Each cold load is a new browser context. `navigation_to_last_draw_ms` is when the page's last
perfatlas:plot-drawn mark (components/charts/Plot.tsx, after Plotly.react) is set, since
navigation; `one_draw_ms` from a perfatlas:plot-start mark to its plot-drawn; and
`navigation_to_painted_ms` when the first frame after that mark has been committed (a
requestAnimationFrame, then a task: Chromium commits the frame in between, and with its
software WebGL the frame's commit is where a WebGL canvas is drawn and read back, ~1 s for the
old 10,000 error bars, after the plot-drawn mark).

At 1 M results: the page's browser work is that of the 10,000 points shown, whatever the
database's size; what the size changes is the two reads (the points, the change points).
BENCH_SERIES_DB=perfatlas_bench (bench_server.py's database: 1.1 M results) measures the browser
part on its 100,000-point series instead (the page shows its newest 10,000) and writes
tests/bench/results/series_page_1m.json."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import psutil
import psycopg

# Run as a script: its own folder is on sys.path.
from common import PERFATLAS, admin_dsn, free_port, percentile, perfatlas_env, start_server

REPO = Path(__file__).resolve().parents[2]
DIST = REPO / "frontend" / "dist"
DB = os.environ.get("BENCH_SERIES_DB", "perfatlas_bench_series")
OWN_DB = DB == "perfatlas_bench_series"
RESULTS = (
    REPO / "tests" / "bench" / "results" / ("series_page.json" if OWN_DB else "series_page_1m.json")
)
BEFORE = os.environ.get("BENCH_SERIES_BEFORE", "d8811db")
POINTS = 10_000
WORKLOAD, METRIC, AGENT = "series_bench", "create.ops_per_s", "bench-series"
# The page's request (features/series/api/get-series-points.ts SERIES_POINT_FIELDS).
FIELDS = os.environ.get("BENCH_SERIES_FIELDS", "run,p5,p95,versions")
REQUESTS = 200  # per encoding, in alternating batches
BATCH = 20
COLD_LOADS = int(os.environ.get("BENCH_SERIES_LOADS", "9"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TARGET_DRAWN_MS = 500


def runs(rng: random.Random) -> list[dict[str, Any]]:
    t0 = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    made = []
    for i in range(POINTS):
        level = 1000.0 * (0.9 if i >= 6000 else 1.0)
        made.append(
            {
                "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                "workload": WORKLOAD,
                "agent": AGENT,
                "target": "/mnt/bench",
                "parameters": {"nfiles": 1000},
                "labels": {"fs_version": f"2.{i // 2000}.0"},
                "started_at": (t0 + dt.timedelta(hours=i)).isoformat(),
                "fsync_policy": "none",
                "cold_method": "drop_caches",
                "environment": {
                    "hostname": AGENT,
                    "kernel": "6.1.0" if i < 5000 else "6.8.0",
                    "fs_type": "ext4",
                    "cores": 2,
                },
                "results": [
                    {
                        "metric": METRIC,
                        "unit": "ops/s",
                        "samples": [round(level * (1 + 0.05 * rng.random()), 3) for _ in range(5)],
                    }
                ],
            }
        )
    return made


def seeded(env: dict[str, str]) -> bool:
    try:
        with psycopg.connect(admin_dsn(DB)) as conn:
            row = conn.execute("SELECT count(*) FROM results").fetchone()
            return bool(row and row[0] == POINTS)
    except psycopg.Error:
        return False


def seed(env: dict[str, str]) -> None:
    print(f"seeding {DB}: one series of {POINTS} points", flush=True)
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')
    subprocess.run([*PERFATLAS, "migrate"], env=env, check=True, capture_output=True)
    server, base = start_server(env)
    try:
        token = subprocess.run(
            [*PERFATLAS, "token", "create", "--scope", "upload", "-q"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        made = runs(random.Random(40))
        with httpx.Client(
            base_url=base, timeout=300, headers={"Authorization": f"Bearer {token}"}
        ) as client:
            for start in range(0, POINTS, 1000):
                batch = {"runs": made[start : start + 1000]}
                client.post("/api/v1/runs/batch", json=batch).raise_for_status()
    finally:
        server.terminate()
        server.wait(timeout=20)
    subprocess.run([*PERFATLAS, "fold"], env=env, check=True, capture_output=True)
    with psycopg.connect(admin_dsn(DB), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def server_cpu(pid: int) -> float:
    """CPU seconds of the server and its children (the API's worker processes)."""
    proc = psutil.Process(pid)
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        times = p.cpu_times()
        total += times.user + times.system
    return total


def wire(base: str, url: str, pid: int) -> dict[str, Any]:
    """Bytes and the server's CPU per request, gzip and identity alternated in batches."""
    figures: dict[str, dict[str, Any]] = {}
    with httpx.Client(base_url=base, timeout=60) as client:
        for name, encoding in (("identity", "identity"), ("gzip", "gzip")):
            with client.stream("GET", url, headers={"Accept-Encoding": encoding}) as r:
                r.raise_for_status()
                raw = b"".join(r.iter_raw())
                figures[name] = {
                    "bytes": len(raw),
                    "content_encoding": r.headers.get("content-encoding"),
                }
            figures[name].update({"cpu_s": 0.0, "wall": []})
        for _ in range(3):  # warm the connection's prepared statements
            client.get(url, headers={"Accept-Encoding": "identity"})
        for _ in range(REQUESTS // BATCH):
            for name in ("identity", "gzip"):
                before = server_cpu(pid)
                for _ in range(BATCH):
                    started = time.perf_counter()
                    with client.stream("GET", url, headers={"Accept-Encoding": name}) as r:
                        for _chunk in r.iter_raw():
                            pass
                    figures[name]["wall"].append((time.perf_counter() - started) * 1000)
                figures[name]["cpu_s"] += server_cpu(pid) - before
    out = {}
    for name, f in figures.items():
        out[name] = {
            "bytes": f["bytes"],
            "content_encoding": f["content_encoding"],
            "server_cpu_ms_per_request": round(f["cpu_s"] * 1000 / REQUESTS, 2),
            "wall_p50_ms": round(percentile(f["wall"], 0.5), 1),
            "wall_p95_ms": round(percentile(f["wall"], 0.95), 1),
            "requests": REQUESTS,
        }
    return out


# Counted from the page's own marks (components/charts/Plot.tsx): a draw is a plotly call.
MARKS = """() => ({
  starts: performance.getEntriesByName('perfatlas:plot-start').map(e => e.startTime),
  drawn: performance.getEntriesByName('perfatlas:plot-drawn').map(e => e.startTime),
  painted: performance.getEntriesByName('bench:plot-painted').map(e => e.startTime),
  changes: performance.getEntriesByName('perfatlas:change-points-answer').map(e => e.startTime),
  overlays: performance.getEntriesByName('perfatlas:overlay-drawn').map(e => e.startTime),
  line_draws: window.__lineDraws || 0,
  afterplot: window.__afterplots || 0,
  traces: (document.querySelector('.js-plotly-plot')?._fullData || []).map(t => [t.type, (t.x || []).length]),
})"""
# plotly's own event, counted from the page's first script on: every draw of the plot emits it.
COUNT_AFTERPLOT = """
window.__afterplots = 0;
new MutationObserver(() => {
  const gd = document.querySelector('.js-plotly-plot');
  if (gd && !gd.__counted && gd.on) { gd.__counted = true; gd.on('plotly_afterplot', () => { window.__afterplots += 1; }); }
}).observe(document, { childList: true, subtree: true, attributes: true });
// Every time plotly sets a line's path: a draw of the points, whatever the page's marks say.
window.__lineDraws = 0;
new MutationObserver((records) => {
  for (const r of records) if (r.target.matches?.('.scatterlayer path.js-line')) window.__lineDraws += 1;
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['d'] });
// The first frame after each plot-drawn mark, committed: a requestAnimationFrame callback runs
// before the frame's paint and commit, a task it posts after them.
const mark = performance.mark.bind(performance);
performance.mark = (name, options) => {
  const made = mark(name, options);
  if (name === 'perfatlas:plot-drawn') {
    requestAnimationFrame(() => setTimeout(() => mark('bench:plot-painted'), 0));
  }
  return made;
};
"""


# The change points' answer held this long in one scenario: as a detector over a long series on
# a busy server answers, after plotly has loaded and could have drawn the points.
LATE_CHANGES_S = 2.0


def browser_cpu() -> dict[int, float]:
    """CPU seconds of each of Chromium's processes (this process's descendants), by pid."""
    seen: dict[int, float] = {}
    for p in psutil.Process().children(recursive=True):
        try:
            if "chrom" in p.name():
                times = p.cpu_times()
                seen[p.pid] = times.user + times.system
        except psutil.Error:
            pass
    return seen


def cold_load(chromium: Any, base: str, series_id: int, late: bool) -> dict[str, Any]:
    """One cold load of the series page (a new context: empty cache), its marks and the CPU
    time Chromium's processes spent on it (the renderer's, the GPU process's software WebGL,
    the browser's), which depends less on the machine's load than the wall times do."""
    cpu_before = browser_cpu()
    context = chromium.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.add_init_script(COUNT_AFTERPLOT)
    if late:

        def hold(route: Any) -> None:
            time.sleep(LATE_CHANGES_S)
            route.continue_()

        page.route("**/change-points*", hold)
    with page.expect_response(lambda r: "/change-points" in r.url, timeout=60_000):
        page.goto(f"{base}/series/{series_id}", wait_until="commit")
    page.wait_for_selector("[data-testid=plot][data-drawn='1']", timeout=60_000)
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        "() => performance.getEntriesByName('perfatlas:plot-drawn').length >= "
        "performance.getEntriesByName('perfatlas:plot-start').length && "
        "performance.getEntriesByName('bench:plot-painted').length >= "
        "performance.getEntriesByName('perfatlas:plot-drawn').length"
    )
    marks: dict[str, Any] = page.evaluate(MARKS)
    cpu_after = browser_cpu()
    marks["browser_cpu_ms"] = 1000 * sum(
        used - cpu_before.get(pid, 0.0) for pid, used in cpu_after.items()
    )
    context.close()
    return marks


def summary(loads: list[dict[str, Any]]) -> dict[str, Any]:
    def p50_max(values: list[float]) -> dict[str, float]:
        return {"p50": round(percentile(values, 0.5), 1), "max": round(max(values), 1)}

    drawn_last = [m["drawn"][-1] for m in loads]
    painted_last = [m["painted"][-1] for m in loads]
    drawing = [d - s for m in loads for s, d in zip(m["starts"], m["drawn"], strict=False)]
    return {
        "draws_per_load": [len(m["starts"]) for m in loads],
        "plotly_afterplot_per_load": [m["afterplot"] for m in loads],
        "navigation_to_last_draw_ms": p50_max(drawn_last),
        "navigation_to_painted_ms": p50_max(painted_last),
        "one_draw_ms": p50_max(drawing),
        "drawn_to_painted_ms": p50_max(
            [p - d for p, d in zip(painted_last, drawn_last, strict=True)]
        ),
        # until the page's network is idle (half a second after the last request)
        "browser_cpu_per_load_ms": p50_max([m["browser_cpu_ms"] for m in loads]),
        "traces": loads[-1]["traces"],
        # The change points' answer, since navigation (this build's mark; none in the one
        # before), and the marks laid over the drawn plot (none when the series has no change
        # point, as this benchmark's), and how often plotly set a line's path per load.
        **(
            {"navigation_to_change_points_answer_ms": p50_max([m["changes"][0] for m in loads])}
            if all(m["changes"] for m in loads)
            else {}
        ),
        "overlays_per_load": [len(m["overlays"]) for m in loads],
        "line_paths_set_per_load": [m["line_draws"] for m in loads],
    }


def browser(builds: dict[str, str], series_id: int) -> dict[str, Any]:
    """Each build's cold loads ({name: base URL}), alternated: one load of each in turn."""
    from playwright.sync_api import sync_playwright

    scenarios = {"as_served": False, "change_points_late": True}
    loads: dict[str, dict[str, list[dict[str, Any]]]] = {
        build: {name: [] for name in scenarios} for build in builds
    }
    load_before = [round(x, 2) for x in os.getloadavg()]
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, late in scenarios.items():
            for _ in range(COLD_LOADS):
                for build, base in builds.items():
                    loads[build][name].append(cold_load(chromium, base, series_id, late))
        version = chromium.version
        chromium.close()
    out: dict[str, Any] = {}
    for build in builds:
        out[build] = {
            "chromium": version,
            "cold_loads": COLD_LOADS,
            # The machine is shared: its load beside the figures, before and after the loads.
            "load_average_1_5_15": {
                "before": load_before,
                "after": [round(x, 2) for x in os.getloadavg()],
            },
            **{name: summary(loads[build][name]) for name in scenarios},
        }
        out[build]["change_points_late"]["delay_s"] = LATE_CHANGES_S
        out[build]["how"] = (
            "a new browser context per load, the builds' loads alternated; draws = "
            "perfatlas:plot-start marks (one per Plotly.react of the plot), afterplot = plotly's "
            "own event; navigation_to_last_draw = the last perfatlas:plot-drawn mark's time since "
            "navigation, navigation_to_painted = the first frame committed after it "
            "(requestAnimationFrame, then a task), one_draw = from a plot-start to its "
            "plot-drawn mark; browser_cpu_per_load = CPU time of Chromium's processes from "
            "before the context to the network idle after the draw; change_points_late: their "
            "answer held "
            f"{LATE_CHANGES_S} s by the browser"
        )
    return out


def before_tree(commit: str) -> Path:
    """The frontend of `commit` built, and its backend, in a folder of /tmp (kept: a later run
    reuses it)."""
    sha = subprocess.run(
        ["git", "rev-parse", "--short", commit], cwd=REPO, text=True, capture_output=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    tree = Path(tempfile.gettempdir()) / f"perfatlas-bench-series-before-{sha}"
    if (tree / "frontend" / "dist" / "index.html").is_file():
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir()
    archive = subprocess.run(
        ["git", "archive", sha, "frontend", "backend"], cwd=REPO, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    (tree / "frontend" / "node_modules").symlink_to(REPO / "frontend" / "node_modules")
    print(f"building {sha}'s frontend in {tree}", flush=True)
    subprocess.run(
        ["npx", "vite", "build", "--logLevel", "warn"], cwd=tree / "frontend", check=True
    )
    return tree


def series_shown(base: str) -> dict[str, Any]:
    """The benchmark's series: its own database's one, or the 1 M database's longest."""
    if OWN_DB:
        params: dict[str, str | int] = {"workload": WORKLOAD}
    else:
        params = {"sort": "points", "limit": 1}
    found: dict[str, Any] = httpx.get(f"{base}/api/v1/series", params=params).json()["items"][0]
    return found


def main() -> int:
    if not (DIST / "index.html").is_file():
        print("the web UI is not built: run `make ui` first", file=sys.stderr)
        return 1
    env = perfatlas_env(
        DB, free_port(), PERFATLAS_PUBLIC_READ="true", PERFATLAS_DETECT_ON_INGEST="false"
    )
    if OWN_DB and not seeded(env):
        seed(env)
    before = before_tree(BEFORE)
    before_env = {
        **perfatlas_env(
            DB, free_port(), PERFATLAS_PUBLIC_READ="true", PERFATLAS_DETECT_ON_INGEST="false"
        ),
        "PYTHONPATH": str(before / "backend"),
    }
    server, base = start_server(env)
    before_server, before_base = start_server(before_env)
    try:
        series = series_shown(base)
        url = f"/api/v1/series/{series['id']}/points?fields={FIELDS}"
        measured_wire = wire(base, url, server.pid) if OWN_DB else None
        ui = (
            browser({"ui_before": before_base, "ui": base}, series["id"])
            if Path(CHROMIUM).is_file()
            else {}
        )
    finally:
        for process in (server, before_server):
            process.terminate()
            process.wait(timeout=20)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True, capture_output=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "frontend/src"], cwd=REPO, text=True, capture_output=True
    ).stdout.strip()
    report: dict[str, Any] = {
        "benchmark": "series_page",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": commit + (" (frontend/src changed since)" if dirty else ""),
        "machine": {
            "cpus": os.cpu_count(),
            "kernel": platform.release(),
            "python": platform.python_version(),
            "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
        },
        "database": {
            "name": DB,
            "results": database_results(),
            "series_points": series["points"],
        },
        "request": url,
        "points_json": measured_wire,
    }
    if ui:
        report["ui_before"] = {**ui["ui_before"], "commit": BEFORE, "built_in": str(before)}
        report["ui"] = {**ui["ui"], "commit": report["commit"]}
        served = report["ui"]["as_served"]
        late = report["ui"]["change_points_late"]
        draws = max(served["draws_per_load"] + late["draws_per_load"])
        was = report["ui_before"]["as_served"]
        report["figures"] = {
            "draws_of_10000_points": {"value": draws, "target": "== 1", "met": draws == 1},
            **{
                f"cold_{measure.removesuffix('_ms')}_p50_ms": {
                    "before": was[measure]["p50"],
                    "value": served[measure]["p50"],
                    "target": f"<= {TARGET_DRAWN_MS}",
                    "met": served[measure]["p50"] <= TARGET_DRAWN_MS,
                }
                for measure in (
                    "navigation_to_last_draw_ms",
                    "navigation_to_painted_ms",
                    "one_draw_ms",
                )
            },
            "browser_cpu_per_cold_load_p50_ms": {
                "before": was["browser_cpu_per_load_ms"]["p50"],
                "value": served["browser_cpu_per_load_ms"]["p50"],
            },
        }
        if measured_wire:
            report["figures"]["json_bytes"] = {
                "identity": measured_wire["identity"]["bytes"],
                "gzip": measured_wire["gzip"]["bytes"],
            }
    RESULTS.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report.get("figures", report), indent=1))
    return 0


def database_results() -> int:
    with psycopg.connect(admin_dsn(DB)) as conn:
        row = conn.execute("SELECT count(*) FROM results").fetchone()
        return int(row[0]) if row else 0


if __name__ == "__main__":
    sys.exit(main())
