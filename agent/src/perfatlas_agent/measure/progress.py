"""Progress reporting: a rich bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


def _fmt_params(params: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items() if k not in ("cmd", "archive"))


class PlainReporter:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self._t0 = time.monotonic()

    def _line(self, text: str) -> None:
        print(f"[{time.monotonic() - self._t0:7.1f}s] {text}", file=self.stream, flush=True)

    def plan(self, total_reps: int) -> None:
        self._line(f"{total_reps} repetitions planned")

    def run_started(self, index: int, total: int, workload: str, params: Mapping[str, Any]) -> None:
        self._line(f"run {index + 1}/{total}: {workload} {_fmt_params(params)}")

    def rep_started(self, rep: int, reps: int, warmup: bool) -> None:
        self._line(f"  repetition {rep + 1}/{reps}{' (warm-up, discarded)' if warmup else ''}")

    def phase(self, name: str) -> None:
        self._line(f"    {name}")

    def rep_finished(self) -> None:
        pass

    def run_finished(self, run: Mapping[str, Any]) -> None:
        self._line(f"  done: {run['uuid']} ({run['status']}, {len(run['results'])} metrics)")

    def message(self, text: str) -> None:
        self._line(text)

    def close(self) -> None:
        pass


class RichReporter:
    def __init__(self) -> None:
        self.console = Console(stderr=True)
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )
        self.task = self.progress.add_task("starting", total=None)
        self._run = ""
        self.progress.start()

    def plan(self, total_reps: int) -> None:
        self.progress.update(self.task, total=total_reps)

    def run_started(self, index: int, total: int, workload: str, params: Mapping[str, Any]) -> None:
        self._run = f"[bold]{workload}[/] {index + 1}/{total}"
        self.progress.console.print(f"run {index + 1}/{total}: {workload} {_fmt_params(params)}")
        self.progress.update(self.task, description=self._run)

    def rep_started(self, rep: int, reps: int, warmup: bool) -> None:
        self._rep = f"rep {rep + 1}/{reps}{' warm-up' if warmup else ''}"
        self.progress.update(self.task, description=f"{self._run} {self._rep}")

    def phase(self, name: str) -> None:
        rep = getattr(self, "_rep", "")
        self.progress.update(self.task, description=f"{self._run} {rep} [cyan]{name}[/]")

    def rep_finished(self) -> None:
        self.progress.advance(self.task)

    def run_finished(self, run: Mapping[str, Any]) -> None:
        self.progress.console.print(f"  [green]done[/] {run['uuid']} ({run['status']})")

    def message(self, text: str) -> None:
        self.progress.console.print(text)

    def close(self) -> None:
        self.progress.stop()


def make_reporter(stream: TextIO | None = None) -> PlainReporter | RichReporter:
    target = stream or sys.stderr
    if target.isatty():
        return RichReporter()
    return PlainReporter(target)
