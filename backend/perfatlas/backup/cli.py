"""`perfatlas export FILE` and `perfatlas import FILE` (backup/archive.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy import Engine

from perfatlas.core.config import get_settings


def _engine() -> Engine:
    from perfatlas.core.db import get_engine

    return get_engine(get_settings().effective_database_url)


def _say(table: str, rows: int) -> None:
    typer.echo(f"  {table}: {rows} rows", err=True)


def export_command(
    file: Annotated[Path, typer.Argument(help="the archive to write (a .zip)")],
) -> None:
    """Write the whole database to FILE: runs, results, attachments, reports, alerts, schedules,
    agents (without their secrets: API and enrollment tokens stay behind)."""
    from perfatlas.backup.archive import export_archive

    counts = export_archive(_engine(), file, _say)
    typer.echo(f"exported {sum(counts.values())} rows of {len(counts)} tables to {file}")


def import_command(
    file: Annotated[Path, typer.Argument(help="an archive written by `perfatlas export`")],
) -> None:
    """Load FILE into this (migrated, empty) database, in one transaction; agents enroll again
    and keep their history; make new tokens with `perfatlas token create`."""
    from perfatlas.backup.archive import import_archive
    from perfatlas.core.errors import DomainError

    try:
        counts = import_archive(_engine(), file, _say)
    except DomainError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise SystemExit(2) from None
    typer.echo(f"imported {sum(counts.values())} rows of {len(counts)} tables from {file}")
