"""fio: run fio (a job file or a job built from parameters) and turn its JSON into metrics."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ParameterError, WorkloadError
from perfatlas_agent.measure.metrics import Metric
from perfatlas_agent.measure.params import ParamSpec, ParamValue
from perfatlas_agent.workloads.base import RunContext, Workload

_PCTS = {"50.000000": "p50", "95.000000": "p95", "99.000000": "p99"}


def _safe(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_\-]", "_", name) or "job"
    return cleaned if re.match(r"^[A-Za-z_]", cleaned) else f"j{cleaned}"


def _latency(out: dict[str, Metric], prefix: str, part: dict[str, Any], name: str) -> None:
    block = part.get(f"{name}_ns")
    if not isinstance(block, dict) or not block.get("N"):
        return
    if isinstance(block.get("mean"), int | float):
        out[f"{prefix}.{name}_mean"] = Metric(float(block["mean"]) / 1000.0, "us")
    pcts = block.get("percentile") or {}
    for key, label in _PCTS.items():
        if isinstance(pcts.get(key), int | float):
            out[f"{prefix}.{name}_{label}"] = Metric(float(pcts[key]) / 1000.0, "us")


def metrics_from_fio(data: dict[str, Any]) -> dict[str, Metric]:
    """The server's fio importer's metrics: `read.bw` (KiB/s), `read.iops`, `read.clat_p99`...

    Same names and units as `POST /api/v1/import/fio`, so fio runs made by the agent and fio
    output imported by hand land in the same series. A job file with several jobs prefixes
    each job's metrics with its name.
    """
    out: dict[str, Metric] = {}
    jobs = [j for j in data.get("jobs", []) if isinstance(j, dict)]
    for job in jobs:
        prefix = f"{_safe(str(job.get('jobname', 'job')))}." if len(jobs) > 1 else ""
        for rw in ("read", "write", "trim"):
            part = job.get(rw) or {}
            if not part.get("io_bytes"):
                continue
            out[f"{prefix}{rw}.bw"] = Metric(float(part.get("bw", 0)), "KiB/s")
            out[f"{prefix}{rw}.iops"] = Metric(float(part.get("iops", 0.0)), "iops")
            _latency(out, f"{prefix}{rw}", part, "clat")
            _latency(out, f"{prefix}{rw}", part, "lat")
        sync = job.get("sync")
        if isinstance(sync, dict) and sync.get("total_ios"):
            _latency(out, f"{prefix}sync", sync, "lat")
    return out


def _strip_bins(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _strip_bins(v) for k, v in data.items() if k != "bins"}
    if isinstance(data, list):
        return [_strip_bins(v) for v in data]
    return data


class Fio(Workload):
    name = "fio"
    description = "fio with a job file, or one job from rw/bs/size/ioengine/iodepth/direct"
    params = (
        ParamSpec(
            "jobfile",
            "str",
            None,
            "fio job file (its directory= is set to the target)",
            sweepable=False,
        ),
        ParamSpec("rw", "str", "read", "fio rw= (read, write, randread, randwrite, ...)"),
        ParamSpec("bs", "size", 4096, "fio bs="),
        ParamSpec("size", "size", 64 << 20, "fio size="),
        ParamSpec("ioengine", "str", "psync", "fio ioengine="),
        ParamSpec("iodepth", "int", 1, "fio iodepth="),
        ParamSpec("numjobs", "int", 1, "fio numjobs= (reported together)"),
        ParamSpec("direct", "bool", False, "fio direct="),
        ParamSpec("fsync_end", "bool", True, "fio end_fsync="),
    )

    def check(self, params: dict[str, ParamValue]) -> None:
        if shutil.which("fio") is None:
            raise WorkloadError("fio is not installed on this machine")
        jobfile = params.get("jobfile")
        if jobfile is not None and not Path(str(jobfile)).is_file():
            raise ParameterError(f"job file {jobfile} does not exist")

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        if params.get("jobfile") is not None:
            return {"fsync_policy": "unknown", "o_direct": None}
        return {
            "fsync_policy": "end" if params.get("fsync_end") else "none",
            "o_direct": bool(params.get("direct")),
        }

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        p = ctx.params
        cmd = ["fio", "--output-format=json+", f"--directory={rep_dir}"]
        if p.get("jobfile") is not None:
            cmd.append(str(p["jobfile"]))
        else:
            cmd += [
                "--name=job",
                f"--rw={p['rw']}",
                f"--bs={p['bs']}",
                f"--size={p['size']}",
                f"--ioengine={p['ioengine']}",
                f"--iodepth={p['iodepth']}",
                f"--numjobs={p['numjobs']}",
                f"--direct={1 if p['direct'] else 0}",
                f"--end_fsync={1 if p['fsync_end'] else 0}",
                "--group_reporting",
            ]
        if "read" in str(p.get("rw", "")) and not p.get("direct") and p.get("jobfile") is None:
            # fio's default invalidate=1 drops the file's cached pages (fadvise) before reading
            ctx.cold_methods.add("none" if ctx.cold.method == "none" else "fadvise")
        ctx.phase("fio")
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise WorkloadError(f"fio failed: {(proc.stderr or proc.stdout)[-500:]}")
        text = proc.stdout[proc.stdout.find("{") :]
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise WorkloadError(f"fio printed no JSON: {exc}") from exc
        ctx.meta["fio_version"] = data.get("fio version")
        ctx.meta["fio_command"] = cmd
        ctx.meta["fio_json"] = _strip_bins(data)
        metrics = metrics_from_fio(data)
        if not metrics:
            raise WorkloadError("fio reported no I/O")
        return metrics
