"""`perfatlas-agent study list | run | spec`: the seeds' studies, one command each."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import click

from perfatlas_agent.config import load_config
from perfatlas_agent.errors import Abandon
from perfatlas_agent.measure.params import parse_assignments
from perfatlas_agent.send.deliver import Upload
from perfatlas_agent.send.report import say
from perfatlas_agent.send.spool import Spool
from perfatlas_agent.studies import Options, all_studies, get_study
from perfatlas_agent.studies.model import DEFAULT
from perfatlas_agent.studies.mounts import FILESYSTEMS
from perfatlas_agent.studies.places import StudyRun, parse_filesystems, plan_places


@click.group()
def study() -> None:
    """The five studies of the seeds: list them, run one, or print its specs."""


@study.command("list")
def list_studies() -> None:
    """Each study: its seed, what it measures, runs per filesystem and time (quick / full)."""
    for s in all_studies().values():
        quick, full = Options.here(quick=True), Options.here(quick=False)
        click.echo(f"{s.name}  (seed {s.seed}: {s.title})")
        click.echo(f"    measures: {s.measures}")
        variants = ", ".join(f"{v.name} ({v.describe()})" for v in s.variants)
        click.echo(f"    variants of each disk filesystem: {variants}")
        click.echo(
            f"    runs per disk filesystem: quick {s.runs_per_filesystem(quick)}, full "
            f"{s.runs_per_filesystem(full)}; on tmpfs: quick "
            f"{s.runs_per_filesystem(quick, memory=True)}, full "
            f"{s.runs_per_filesystem(full, memory=True)}"
        )
        click.echo(f"    time per filesystem: quick {s.estimate[0]}, full {s.estimate[1]}")


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Abandon("SIGTERM")


@study.command("run")
@click.argument("name")
@click.option("--filesystems", default=",".join(FILESYSTEMS), show_default=True,
              help="loop-mounted images (and a tmpfs) to make, as root; none: only --target")  # fmt: skip
@click.option("--target", "targets", multiple=True, type=click.Path(path_type=Path),
              help="also run in this folder, as it is mounted (repeatable; no root needed)")  # fmt: skip
@click.option("--quick", is_flag=True, help="small sizes, few repetitions (a minute or so)")
@click.option("--archive", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="a tarball to extract (bonnie-001, durability-004) instead of a generated one")  # fmt: skip
@click.option("--image-dir", type=click.Path(path_type=Path, file_okay=False),
              help="where the images go (default /var/tmp; a tmpfs here makes them memory)")  # fmt: skip
@click.option("--keep", is_flag=True, help="keep the images (unmounted) after the study")
@click.option("--label", "-l", "labels", multiple=True, help="k=v label on every run")
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False),
              help="also write the runs to this JSON file")  # fmt: skip
@click.option("--server", envvar="PERFATLAS_SERVER", help="server URL ($PERFATLAS_SERVER)")
@click.option("--token", envvar="PERFATLAS_TOKEN", help="upload token ($PERFATLAS_TOKEN)")
@click.option("--spool", "spool_dir", envvar="PERFATLAS_AGENT_SPOOL",
              type=click.Path(path_type=Path, file_okay=False), help="spool folder")  # fmt: skip
@click.option("--retry-deadline", type=float, default=60.0, show_default=True,
              help="seconds to keep retrying a failing server")  # fmt: skip
@click.option("--agent-name", envvar="PERFATLAS_AGENT_NAME", help="the machine's name on the runs")
def run_study(
    name: str, filesystems: str, targets: tuple[Path, ...], quick: bool, archive: Path | None,
    image_dir: Path | None, keep: bool, labels: tuple[str, ...], output: Path | None,
    server: str | None, token: str | None, spool_dir: Path | None, retry_deadline: float,
    agent_name: str | None,
) -> None:  # fmt: skip
    """Run study NAME on each filesystem (root: loop images in a temporary folder, removed
    after) and on each --target; every run is labelled study=, fs=, mount=."""
    chosen = get_study(name)
    fs_names = parse_filesystems(filesystems)
    options = Options.here(quick=quick, archive=str(archive.resolve()) if archive else None)
    config = load_config(None)
    if config is not None and not server:
        server, token = config.server, token or config.token
    places = plan_places(chosen, fs_names, list(targets), root=os.geteuid() == 0, say=say)
    study_run = StudyRun(
        study=chosen, options=options, places=places,
        agent_name=agent_name or (config.name if config else None) or socket.gethostname(),
        labels=parse_assignments(labels, "--label"), image_dir=image_dir, keep=keep,
    )  # fmt: skip
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    say(f"study {chosen.name} ({'quick' if quick else 'full'}) on "
        f"{', '.join(p.title for p in places) or 'nothing'}")  # fmt: skip
    try:
        code = study_run.run(Upload(server, token, Spool(spool_dir), retry_deadline), output, say)
    finally:
        signal.signal(signal.SIGTERM, previous)
    sys.exit(code)


@study.command("spec")
@click.argument("name")
@click.option("--quick", is_flag=True, help="the quick variant")
@click.option("--target", "targets", multiple=True, default=["/var/tmp/perfatlas-study"],
              show_default=True, help="folder the specs run in (repeatable)")  # fmt: skip
@click.option("--variant", "variants", multiple=True, metavar="NAME=DIR",
              help="also the specs of a variant (sync, write-through...) run in DIR, a folder "
              "mounted that way")  # fmt: skip
@click.option("--archive", help="a tarball on the agent to extract instead of a generated one")
@click.option("--label", "-l", "labels", multiple=True, help="k=v label on every run (fs=ext4)")
def spec_study(
    name: str, quick: bool, targets: tuple[str, ...], variants: tuple[str, ...],
    archive: str | None, labels: tuple[str, ...],
) -> None:  # fmt: skip
    """Print the study's specs as a JSON list of WorkloadSpecs (one per schedule, or all at
    once with `perfatlas-agent run --spec FILE`); sizes from this machine's RAM."""
    chosen = get_study(name)
    options = Options.here(quick=quick, archive=archive)
    user = parse_assignments(labels, "--label")
    wanted = {DEFAULT: list(targets)}
    for name_dir in variants:
        ((vname, folder),) = parse_assignments([name_dir], "--variant").items()
        if vname not in {v.name for v in chosen.variants}:
            raise click.UsageError(f"--variant {name_dir}: {chosen.name} has no variant {vname} "
                                   f"({', '.join(v.name for v in chosen.variants)})")  # fmt: skip
        wanted.setdefault(vname, []).append(folder)
    out: list[dict[str, Any]] = []
    for vname in [v.name for v in chosen.variants if v.name in wanted]:
        for spec in chosen.specs(options, vname, wanted[vname], labels=user):
            out.append({k: v for k, v in vars(spec).items()})
    left = [v.name for v in chosen.variants if v.name not in wanted]
    if left:
        say(f"left out the variants {', '.join(left)}: give --variant NAME=DIR for each")
    click.echo(json.dumps(out, indent=1))
