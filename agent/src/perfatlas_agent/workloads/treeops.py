"""treeops (seed 002): build a tree, walk and delete it serially and with T threads, vs find/rm.

threads=auto (seed 002's wish: tune the thread count from inodes per second) tunes the walk and
the delete apart, on a probe tree of the run's shape: each candidate count (1, 2, 4, ... 64) is
timed AUTO_SAMPLES times and rated by its median; a count is taken only when its median beats
the smaller count's by AUTO_GAIN (a real gain over the noise), else the climb stops at the
smaller one. The run keeps threads=auto as its parameter (one series, whatever was chosen);
the counts chosen and every sample are in meta.auto_threads."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ParameterError, WorkloadError
from perfatlas_agent.measure.calibrate import Knob, Room
from perfatlas_agent.measure.metrics import Metric
from perfatlas_agent.measure.params import ParamSpec, ParamValue
from perfatlas_agent.workloads.base import RunContext, Workload
from perfatlas_agent.workloads.trees import (
    TreeShape,
    build_tree,
    delete_tree,
    regular_shape,
    walk_tree,
)

AUTO_CANDIDATES = (1, 2, 4, 8, 16, 32, 64)
AUTO_SAMPLES = 3
AUTO_GAIN = 1.10  # a count must beat the next smaller one's median rate by 10 %
AUTO_PROBE_INODES = 2000  # the probe tree: the run's shape, at most this many inodes
BUILD_THREADS = 16  # untimed trees (probes, the serial and baseline copies)
MAX_DEPTH = 200


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


def choose_threads(rates: dict[int, list[float]]) -> int:
    """Climb the candidates while each one's median rate beats the smaller one's by AUTO_GAIN;
    the last count that did (or 1)."""
    chosen = AUTO_CANDIDATES[0]
    for t in AUTO_CANDIDATES[1:]:
        if t not in rates:
            break
        if statistics.median(rates[t]) < AUTO_GAIN * statistics.median(rates[chosen]):
            break
        chosen = t
    return chosen


class TreeOps(Workload):
    name = "treeops"
    description = "tree build, walk and delete: serial, T threads, and find / rm -rf baselines"
    params = (
        ParamSpec(
            "inodes", "int", None,
            "total inodes of the tree, root included (depth derived; instead of depth)",
        ),
        ParamSpec("depth", "int", 3, "levels below the root (when inodes is not given)"),
        ParamSpec("fanout", "int", 4, "subdirectories per directory"),
        ParamSpec("files", "int", 10, "files per directory"),
        ParamSpec("size", "size", 0, "bytes per file"),
        ParamSpec("threads", "threads", 8, "threads for the parallel walk/delete, or auto"),
    )  # fmt: skip

    def unused(self, params: dict[str, ParamValue]) -> set[str]:
        return {"depth"} if params.get("inodes") is not None else set()

    def check(self, params: dict[str, ParamValue]) -> None:
        for tool in ("find", "rm"):
            if shutil.which(tool) is None:
                raise WorkloadError(f"treeops needs {tool} for its baseline")
        if params.get("inodes") is not None and int(params["inodes"]) < 1:
            raise ParameterError("inodes must be at least 1 (the root)")
        if int(params["files"]) < 0 or int(params["fanout"]) < 0:
            raise ParameterError("files and fanout must be 0 or more")
        shape = self.shape(params)
        if shape.dirs > 1 and shape.fanout < 1:
            raise ParameterError(f"{shape.inodes} inodes need fanout >= 1")
        if shape.depth > MAX_DEPTH:
            raise ParameterError(f"the tree would be {shape.depth} levels deep; raise fanout")

    def shape(self, params: dict[str, ParamValue]) -> TreeShape:
        fanout, files = int(params["fanout"]), int(params["files"])
        if params.get("inodes") is not None:
            return TreeShape(int(params["inodes"]), fanout, files)
        return regular_shape(depth=int(params["depth"]), fanout=fanout, files=files)

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        return {"fsync_policy": "none", "o_direct": False}

    def knobs(self, params: dict[str, ParamValue]) -> tuple[Knob, ...]:
        if params.get("inodes") is not None:
            return ()  # the tree size asked for is the size run (studies sweep it)
        phases = ("build", "walk_serial", "walk", "walk_find", "delete_serial", "delete")
        return (Knob("files", (*phases, "delete_rm")),)

    def limits(self, params: dict[str, ParamValue], room: Room) -> dict[str, int]:
        # Three trees at once (serial, parallel, baseline); ~1 KiB per inode plus its data.
        size = int(params["size"])
        per_inode = 4096 * -(-size // 4096) + 1024
        dirs = self.shape({**params, "files": 0}).dirs
        files = room.bytes_budget // (3 * dirs * per_inode)
        if room.inode_budget is not None:
            files = min(files, room.inode_budget // (3 * dirs) - 1)
        return {"files": max(min(files, 1 << 16), 0)}

    def _cold(self, ctx: RunContext, root: Path) -> None:
        if ctx.cold.method == "drop_caches":
            ctx.make_cold(root)
        else:
            ctx.cold_methods.add("none")

    def prepare(self, ctx: RunContext) -> None:
        shape = self.shape(ctx.params)
        ctx.meta["tree"] = shape.describe()
        threads = ctx.params["threads"]
        if threads != "auto":
            t = int(threads)
            ctx.scratch["threads"] = {"build": t, "walk": t, "delete": t}
            return
        if "threads" in ctx.scratch:  # tuned already (--min-seconds prepares again)
            return
        ctx.phase("auto threads")
        probe_shape = TreeShape(min(shape.inodes, AUTO_PROBE_INODES), shape.fanout,
                                shape.files_per_dir)  # fmt: skip
        size = int(ctx.params["size"])
        probe = str(ctx.workdir / "probe")

        def walk(t: int) -> float:
            self._cold(ctx, ctx.workdir)
            n, secs = _timed(lambda: walk_tree(probe, t))
            return n / secs if secs > 0 else 0.0

        def delete(t: int) -> float:
            build_tree(probe, probe_shape, size=size, threads=BUILD_THREADS)
            self._cold(ctx, ctx.workdir)
            n, secs = _timed(lambda: delete_tree(probe, t))
            return n / secs if secs > 0 else 0.0

        build_tree(probe, probe_shape, size=size, threads=BUILD_THREADS)
        walk_rates = self._tune(walk)
        delete_tree(probe, BUILD_THREADS)
        delete_rates = self._tune(delete)
        chosen = {"walk": choose_threads(walk_rates), "delete": choose_threads(delete_rates)}
        chosen["build"] = chosen["delete"]  # building writes metadata, as deleting does
        ctx.scratch["threads"] = chosen
        ctx.meta["auto_threads"] = {
            **chosen,
            "walk_inodes_per_s": {str(t): [round(r, 1) for r in v] for t, v in walk_rates.items()},
            "delete_inodes_per_s": {
                str(t): [round(r, 1) for r in v] for t, v in delete_rates.items()
            },
            "samples": AUTO_SAMPLES,
            "rule": f"climb 1, 2, 4... while the median rate beats the smaller count's by "
            f"{round((AUTO_GAIN - 1) * 100)} %",
            "probe": probe_shape.describe(),
        }

    def _tune(self, sample: Callable[[int], float]) -> dict[int, list[float]]:
        rates: dict[int, list[float]] = {}
        for t in AUTO_CANDIDATES:
            rates[t] = [sample(t) for _ in range(AUTO_SAMPLES)]
            if choose_threads(rates) != t:
                break  # no real gain over the smaller count: the climb stops
        return rates

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        shape = self.shape(ctx.params)
        size = int(ctx.params["size"])
        use: dict[str, int] = ctx.scratch["threads"]
        serial, par, base = (str(rep_dir / n) for n in ("serial", "parallel", "baseline"))
        m: dict[str, Metric] = {}

        def rates(phase: str, n: int, secs: float) -> None:
            m[f"{phase}.seconds"] = Metric(secs, "s")
            m[f"{phase}.inodes_per_s"] = Metric(n / secs if secs > 0 else 0.0, "inodes/s")

        ctx.phase("build")
        n, secs = _timed(lambda: build_tree(par, shape, size=size, threads=use["build"]))
        rates("build", n, secs)
        build_tree(serial, shape, size=size, threads=BUILD_THREADS)
        build_tree(base, shape, size=size, threads=BUILD_THREADS)
        inodes = n

        ctx.phase("walk (serial)")
        self._cold(ctx, rep_dir)
        n, secs = _timed(lambda: walk_tree(serial, 1))
        rates("walk_serial", n, secs)
        ctx.phase(f"walk ({use['walk']} threads)")
        self._cold(ctx, rep_dir)
        n, secs = _timed(lambda: walk_tree(par, use["walk"]))
        rates("walk", n, secs)
        ctx.phase("find")
        self._cold(ctx, rep_dir)
        secs = _run_tool(["find", base, "-printf", "%s\\n"])
        rates("walk_find", inodes, secs)

        ctx.phase("delete (serial)")
        self._cold(ctx, rep_dir)
        n, secs = _timed(lambda: delete_tree(serial, 1))
        rates("delete_serial", n, secs)
        ctx.phase(f"delete ({use['delete']} threads)")
        self._cold(ctx, rep_dir)
        n, secs = _timed(lambda: delete_tree(par, use["delete"]))
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

    def cleanup(self, ctx: RunContext) -> None:
        threads = ctx.scratch.get("threads")
        ctx.scratch.clear()
        if ctx.params.get("threads") == "auto" and threads is not None:
            ctx.scratch["threads"] = threads  # --min-seconds prepares again: keep the tuning
