"""The first run of `make up`: the quick studies on this machine, through jobs and the daemon."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command("first-run")
@click.option("--server", required=True, help="the PerfAtlas server's URL")
@click.option("--token", envvar="PERFATLAS_FIRST_RUN_TOKEN", required=True,
              help="an admin token ($PERFATLAS_FIRST_RUN_TOKEN)")  # fmt: skip
@click.option("--dir", "root", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="its folder: the agent's config, spool, images, logs")  # fmt: skip
@click.option("--studies", envvar="PERFATLAS_FIRST_RUN_STUDIES", default="", show_default="all",
              help="comma-separated study names ($PERFATLAS_FIRST_RUN_STUDIES)")  # fmt: skip
@click.option("--filesystems", envvar="PERFATLAS_FIRST_RUN_FILESYSTEMS",
              default="tmpfs,ext4,xfs,btrfs", show_default=True,
              help="where to measure, as this machine allows ($PERFATLAS_FIRST_RUN_FILESYSTEMS)")  # fmt: skip
def first_run_command(server: str, token: str, root: Path, studies: str, filesystems: str) -> None:
    """Once per database: the quick studies on this machine as jobs for a local agent, run by
    its daemon until they are done (what `make up` starts; PERFATLAS_FIRST_RUN=0 turns it off)."""
    from perfatlas_agent.firstrun.main import first_run

    try:
        sys.exit(first_run(server, token, root.absolute(), studies, filesystems))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
