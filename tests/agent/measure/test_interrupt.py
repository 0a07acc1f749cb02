"""Ctrl-C: the files made are cleaned up and the repetitions measured are kept."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.agent.conftest import agent_cmd


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_cleans_up_and_keeps_what_was_measured(
    tmpfs_target: Path, spool: Path, threads: int
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_AGENT_SPOOL"] = str(spool)
    env["PERFATLAS_AGENT_MIN_SECONDS"] = "0"  # the sizes asked for: no calibration first
    proc = subprocess.Popen(
        agent_cmd("run", "smallfile", "--target", str(tmpfs_target), "-p", "nfiles=20000", "-p", f"threads={threads}",
                  "-n", "50", "--no-warmup"),
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # Ctrl-C reaches the agent as it reaches one started from a terminal, whatever this
        # process inherited: a shell's background job starts with SIGINT ignored, and Python
        # leaves an ignored SIGINT ignored (the agent then ran all 50 repetitions).
        preexec_fn=_default_sigint,
    )  # fmt: skip
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    for line in proc.stderr:
        if "repetition 3/50" in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)  # inside repetition 3, or a later one if this read lagged
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    # The repetition under way when the signal landed: the last one the agent said it started.
    started = max([3, *(int(n) for n in re.findall(r"repetition (\d+)/50", err))])
    assert os.listdir(tmpfs_target) == [], "interrupted run left files behind"
    (path,) = spool.glob("*.json")
    run = json.loads(path.read_text())
    assert run["status"] == "partial"
    samples = {r["metric"]: r["samples"] for r in run["results"]}
    # Those finished before it are kept: all but the one interrupted (or all, when the signal
    # fell between two repetitions).
    assert len(samples["create.ops_per_s"]) in (started - 1, started)
    assert "interrupted" in run["meta"]["error"]
