"""`perfatlas reference import FILE.json`: a reference table into the database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

reference_app = typer.Typer(help="Reference runs: published figures with their source.")


@reference_app.command("import")
def reference_import(
    path: Annotated[Path, typer.Argument(help="a reference table as JSON (POST /references)")],
) -> None:
    """Store a reference table (see backend/perfatlas/references/tables/ for the seeds'); the
    same file again is a retry."""
    from pydantic import ValidationError

    from perfatlas.core.config import get_settings
    from perfatlas.core.db import commit_with_retry, get_engine, session_factory
    from perfatlas.core.errors import DomainError
    from perfatlas.references.schemas import ReferenceCreate
    from perfatlas.references.service import store_reference

    try:
        table = ReferenceCreate.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        typer.echo(f"error: cannot read {path}: {exc}", err=True)
        raise SystemExit(2) from None
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(p) for p in error["loc"]) or "table"
            typer.echo(f"error: {path}: {where}: {error['msg']}", err=True)
        raise SystemExit(2) from None
    settings = get_settings()
    with session_factory(get_engine(settings.effective_database_url))() as session:
        try:
            outcomes = commit_with_retry(
                session,
                lambda: store_reference(
                    session, table, ignore_labels=settings.series_ignore_labels
                ),
            )
        except DomainError as exc:
            typer.echo(f"error: {path}: {exc}", err=True)
            raise SystemExit(2) from None
    for outcome in outcomes:
        state = "stored" if outcome.created else "already stored"
        typer.echo(f"{outcome.uuid}\t{state}")
