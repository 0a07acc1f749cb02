"""treeops (seed 002): build a tree, walk and delete it serially and with T threads, vs find/rm."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfatlas_agent._exceptions import WorkloadError
from perfatlas_agent.calibrate import Knob, Room
from perfatlas_agent.measure import Metric
from perfatlas_agent.params import ParamSpec, ParamValue
from perfatlas_agent.workloads.base import RunContext, Workload

AUTO_CANDIDATES = (1, 2, 4, 8, 16, 32, 64)

# One unit of work: a directory path and its level; returns the subdirectories to visit next.
Handler = Callable[[str, int], list[tuple[str, int]]]


def parallel_tree(root: str, threads: int, handle: Handler) -> None:
    """Visit the tree from root with `threads` workers pulling directories from one queue."""
    if threads <= 1:
        stack = [(root, 0)]
        while stack:
            d, level = stack.pop()
            stack.extend(handle(d, level))
        return
    q: queue.Queue[tuple[str, int] | None] = queue.Queue()
    errors: list[BaseException] = []

    def worker() -> None:
        while True:
            item = q.get()
            if item is None:
                q.task_done()
                return
            try:
                if not errors:
                    for child in handle(*item):
                        q.put(child)
            except BaseException as exc:
                errors.append(exc)
            finally:
                q.task_done()

    workers = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    for w in workers:
        w.start()
    q.put((root, 0))
    interrupted: KeyboardInterrupt | None = None
    try:
        q.join()
    except KeyboardInterrupt as exc:
        # Workers skip what is left once an error is recorded; wait for them, then clean up.
        interrupted = exc
        errors.append(exc)
        q.join()
    for _ in workers:
        q.put(None)
    for w in workers:
        w.join()
    if interrupted is not None:
        raise interrupted
    if errors:
        raise errors[0]


def _parallel_list(items: list[str], threads: int, fn: Callable[[str], None]) -> None:
    if threads <= 1 or len(items) < 2:
        for item in items:
            fn(item)
        return
    chunks = [items[i::threads] for i in range(threads)]
    errors: list[BaseException] = []

    def run(chunk: list[str]) -> None:
        try:
            for item in chunk:
                fn(item)
        except BaseException as exc:
            errors.append(exc)

    ts = [threading.Thread(target=run, args=(c,), daemon=True) for c in chunks if c]
    for t in ts:
        t.start()
    try:
        for t in ts:
            t.join()
    except KeyboardInterrupt:
        for t in ts:
            t.join()
        raise
    if errors:
        raise errors[0]


def build_tree(root: str, *, depth: int, fanout: int, files: int, size: int, threads: int) -> int:
    """Make the tree; returns the number of inodes made (directories and files)."""
    payload = b"t" * size
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    os.mkdir(root)

    def handle(d: str, level: int) -> list[tuple[str, int]]:
        op, wr, cl = os.open, os.write, os.close
        for i in range(files):
            fd = op(f"{d}/f{i}", flags, 0o644)
            if payload:
                wr(fd, payload)
            cl(fd)
        subs: list[tuple[str, int]] = []
        if level < depth:
            for j in range(fanout):
                sub = f"{d}/d{j}"
                os.mkdir(sub)
                subs.append((sub, level + 1))
        return subs

    parallel_tree(root, threads, handle)
    return tree_inodes(depth=depth, fanout=fanout, files=files)


def tree_inodes(*, depth: int, fanout: int, files: int) -> int:
    dirs: int = sum(fanout**level for level in range(depth + 1))
    return dirs * (files + 1)


def walk_tree(root: str, threads: int) -> int:
    """readdir + lstat of every entry (what `find -printf %s` does); returns inodes seen."""
    counts = [1]
    lock = threading.Lock()

    def handle(d: str, level: int) -> list[tuple[str, int]]:
        subs: list[tuple[str, int]] = []
        n = 0
        with os.scandir(d) as it:
            for entry in it:
                st = os.lstat(entry.path)
                n += 1
                if (st.st_mode & 0o170000) == 0o040000:
                    subs.append((entry.path, level + 1))
        with lock:
            counts[0] += n
        return subs

    parallel_tree(root, threads, handle)
    return counts[0]


def delete_tree(root: str, threads: int) -> int:
    """Unlink files with T threads across directories, then remove directories deepest first."""
    dirs: list[tuple[str, int]] = []
    counts = [0]
    lock = threading.Lock()

    def handle(d: str, level: int) -> list[tuple[str, int]]:
        subs: list[tuple[str, int]] = []
        n = 0
        ul = os.unlink
        with os.scandir(d) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    subs.append((entry.path, level + 1))
                else:
                    ul(entry.path)
                    n += 1
        with lock:
            counts[0] += n
            dirs.append((d, level))
        return subs

    parallel_tree(root, threads, handle)
    by_level: dict[int, list[str]] = {}
    for d, level in dirs:
        by_level.setdefault(level, []).append(d)
    for level in sorted(by_level, reverse=True):
        _parallel_list(by_level[level], threads, os.rmdir)
    return counts[0] + len(dirs)


def _timed(fn: Callable[[], int]) -> tuple[int, float]:
    t0 = time.perf_counter_ns()
    n = fn()
    return n, (time.perf_counter_ns() - t0) / 1e9


def _run_tool(cmd: list[str]) -> float:
    t0 = time.perf_counter_ns()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    secs = (time.perf_counter_ns() - t0) / 1e9
    if proc.returncode != 0:
        raise WorkloadError(f"{cmd[0]} failed: {proc.stderr.decode(errors='replace')[:300]}")
    return secs


class TreeOps(Workload):
    name = "treeops"
    description = "tree build, walk and delete: serial, T threads, and find / rm -rf baselines"
    params = (
        ParamSpec("depth", "int", 3, "levels below the root"),
        ParamSpec("fanout", "int", 4, "subdirectories per directory"),
        ParamSpec("files", "int", 10, "files per directory"),
        ParamSpec("size", "size", 0, "bytes per file"),
        ParamSpec("threads", "threads", 8, "threads for the parallel walk/delete, or auto"),
    )

    def check(self, params: dict[str, ParamValue]) -> None:
        for tool in ("find", "rm"):
            if shutil.which(tool) is None:
                raise WorkloadError(f"treeops needs {tool} for its baseline")

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        return {"fsync_policy": "none", "o_direct": False}

    def knobs(self, params: dict[str, ParamValue]) -> tuple[Knob, ...]:
        phases = ("build", "walk_serial", "walk", "walk_find", "delete_serial", "delete")
        return (Knob("files", (*phases, "delete_rm")),)

    def limits(self, params: dict[str, ParamValue], room: Room) -> dict[str, int]:
        # Three trees at once (serial, parallel, baseline); ~1 KiB per inode plus its data.
        depth, fanout, size = int(params["depth"]), int(params["fanout"]), int(params["size"])
        dirs = tree_inodes(depth=depth, fanout=fanout, files=0)
        per_file = 4096 * -(-size // 4096) + 1024
        files = room.bytes_budget // (3 * dirs * per_file)
        if room.inode_budget is not None:
            files = min(files, room.inode_budget // (3 * dirs) - 1)
        return {"files": max(min(files, 1 << 16), 0)}

    def _shape(self, ctx: RunContext) -> dict[str, int]:
        p = ctx.params
        return {
            "depth": int(p["depth"]),
            "fanout": int(p["fanout"]),
            "files": int(p["files"]),
            "size": int(p["size"]),
        }

    def _cold(self, ctx: RunContext, root: Path) -> None:
        if ctx.cold.method == "drop_caches":
            ctx.make_cold(root)
        else:
            ctx.cold_methods.add("none")

    def prepare(self, ctx: RunContext) -> None:
        if ctx.params["threads"] != "auto":
            return
        ctx.phase("auto threads")
        shape = self._shape(ctx)
        probe = str(ctx.workdir / "probe")
        build_tree(probe, threads=8, **shape)
        rates: dict[str, float] = {}
        best_t, best_rate, worse = 1, 0.0, 0
        for t in AUTO_CANDIDATES:
            self._cold(ctx, ctx.workdir)
            n, secs = _timed(lambda t=t: walk_tree(probe, t))  # type: ignore[misc]
            rate = n / secs if secs > 0 else 0.0
            rates[str(t)] = round(rate, 1)
            if rate > best_rate * 1.05:
                best_t, best_rate, worse = t, rate, 0
            else:
                worse += 1
                if worse >= 2:
                    break
        delete_tree(probe, 8)
        ctx.params["threads"] = best_t
        ctx.params["threads_auto"] = True
        ctx.meta["auto_threads"] = {"walk_inodes_per_s_by_threads": rates, "chosen": best_t}

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        shape = self._shape(ctx)
        threads = int(ctx.params["threads"])
        serial, par, base = (str(rep_dir / n) for n in ("serial", "parallel", "baseline"))
        m: dict[str, Metric] = {}

        def rates(phase: str, n: int, secs: float) -> None:
            m[f"{phase}.seconds"] = Metric(secs, "s")
            m[f"{phase}.inodes_per_s"] = Metric(n / secs if secs > 0 else 0.0, "inodes/s")

        ctx.phase("build")
        n, secs = _timed(lambda: build_tree(par, threads=threads, **shape))
        rates("build", n, secs)
        build_tree(serial, threads=threads, **shape)
        build_tree(base, threads=threads, **shape)
        inodes = n

        ctx.phase("walk (serial)")
        self._cold(ctx, rep_dir)
        n, secs = _timed(lambda: walk_tree(serial, 1))
        rates("walk_serial", n, secs)
        ctx.phase(f"walk ({threads} threads)")
        self._cold(ctx, rep_dir)
        n, secs = _timed(lambda: walk_tree(par, threads))
        rates("walk", n, secs)
        ctx.phase("find")
        self._cold(ctx, rep_dir)
        secs = _run_tool(["find", base, "-printf", "%s\\n"])
        rates("walk_find", inodes, secs)

        ctx.phase("delete (serial)")
        self._cold(ctx, rep_dir)
        n, secs = _timed(lambda: delete_tree(serial, 1))
        rates("delete_serial", n, secs)
        ctx.phase(f"delete ({threads} threads)")
        self._cold(ctx, rep_dir)
        n, secs = _timed(lambda: delete_tree(par, threads))
        rates("delete", n, secs)
        ctx.phase("rm -rf")
        self._cold(ctx, rep_dir)
        secs = _run_tool(["rm", "-rf", base])
        rates("delete_rm", inodes, secs)

        def ratio(a: str, b: str) -> float:
            den = m[f"{b}.inodes_per_s"].value
            return m[f"{a}.inodes_per_s"].value / den if den else 0.0

        m["walk.speedup"] = Metric(ratio("walk", "walk_serial"), "x", "higher")
        m["walk.speedup_vs_find"] = Metric(ratio("walk", "walk_find"), "x", "higher")
        m["delete.speedup"] = Metric(ratio("delete", "delete_serial"), "x", "higher")
        m["delete.speedup_vs_rm"] = Metric(ratio("delete", "delete_rm"), "x", "higher")
        return m
