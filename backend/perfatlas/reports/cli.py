"""`perfatlas report import FILE.json`: a report from a JSON file (a study's default report),
created or replaced by its slug, so importing twice leaves one report. `perfatlas report
defaults`: the studies' default reports (and the reference tables they show), each only if its
slug is free."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

report_app = typer.Typer(help="Reports: pages of notes and plots.", no_args_is_help=True)


@report_app.command("import")
def report_import(
    path: Annotated[Path, typer.Argument(help="a JSON file: the body of POST /api/v1/reports")],
) -> None:
    """Create the report the file describes, or replace the one with its slug."""
    from pydantic import ValidationError

    from perfatlas.core.config import get_settings
    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.core.errors import DomainError
    from perfatlas.reports.schemas import ReportCreate
    from perfatlas.reports.service import import_report

    try:
        data = ReportCreate.model_validate_json(path.read_bytes())
    except OSError as exc:
        typer.echo(f"error: cannot read {path}: {exc}", err=True)
        raise SystemExit(2) from None
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(p) for p in error["loc"])
            typer.echo(f"error: {path}: {where}: {error['msg']}", err=True)
        raise SystemExit(2) from None
    engine = get_engine(get_settings().effective_database_url)
    with session_factory(engine)() as session:
        try:
            report, created = import_report(session, data=data)
        except DomainError as exc:
            typer.echo(f"error: {path}: {exc.message}", err=True)
            raise SystemExit(2) from None
        typer.echo(
            f"{'created' if created else 'replaced'} report {report.slug!r} "
            f"({len(report.blocks)} blocks): /reports/{report.slug}"
        )


@report_app.command("defaults")
def report_defaults(
    replace: Annotated[
        bool, typer.Option("--replace", help="overwrite the default reports of the same slugs")
    ] = False,
) -> None:
    """Store the seeds' reference tables and create each study's default report
    (study-smallfiles-000, study-bonnie-001, ...) whose slug is not taken yet."""
    from perfatlas.core.config import get_settings
    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.reports.defaults import install_defaults

    settings = get_settings()
    with session_factory(get_engine(settings.effective_database_url))() as session:
        outcomes = install_defaults(
            session, replace=replace, ignore_labels=settings.series_ignore_labels
        )
    for outcome in outcomes:
        where = f"\t/reports/{outcome.name}" if outcome.state in ("created", "replaced") else ""
        detail = f"\t{outcome.detail}" if outcome.detail else ""
        typer.echo(f"{outcome.state}\t{outcome.name}{where}{detail}")
    if any(o.state == "error" for o in outcomes):
        raise SystemExit(2)
