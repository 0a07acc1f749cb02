"""`perfatlas token create | list | revoke`: API tokens for machines and scripts; a token is
printed once and only its hash is stored."""

from __future__ import annotations

from typing import Annotated

import typer

from perfatlas.core.config import get_settings

token_app = typer.Typer(help="API tokens for machines and scripts.", no_args_is_help=True)


@token_app.command("create")
def token_create(
    scope: Annotated[
        str, typer.Option(help="read, upload, admin, or agent (uploads only as --agent)")
    ] = "upload",
    name: Annotated[str, typer.Option(help="who or what will use it")] = "default",
    agent: Annotated[
        str | None, typer.Option(help="the agent an agent-scope token belongs to")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="print only the token")] = False,
    replace: Annotated[
        bool, typer.Option("--replace", help="revoke the active tokens with the same name")
    ] = False,
) -> None:
    """Create a token; it is printed once and only its hash is stored."""
    from perfatlas.auth.service import SCOPES, create_token, revoke_by_name
    from perfatlas.core.db import get_engine, session_factory

    if scope not in SCOPES:  # typer has no Literal choices; checked here
        raise typer.BadParameter(f"scope must be one of {', '.join(SCOPES)}", param_hint="--scope")
    if (scope == "agent") != (agent is not None):
        raise typer.BadParameter("--agent goes with --scope agent, and it needs one")
    engine = get_engine(get_settings().effective_database_url)
    with session_factory(engine)() as session:
        if replace:
            revoke_by_name(session, name=name)
        row, token = create_token(session, name=name, scope=scope, agent=agent)
    if quiet:
        typer.echo(token)
        return
    typer.echo(f"created token {row.id} ({row.name}, scope {row.scope}); it is shown only now:")
    typer.echo(token)


@token_app.command("list")
def token_list() -> None:
    """List tokens (never the tokens themselves)."""
    from perfatlas.auth.service import list_tokens
    from perfatlas.core.db import get_engine, session_factory

    engine = get_engine(get_settings().effective_database_url)
    with session_factory(engine)() as session:
        for row in list_tokens(session):
            state = f"revoked {row.revoked_at:%Y-%m-%d}" if row.revoked_at else "active"
            used = f"{row.last_used_at:%Y-%m-%d %H:%M}" if row.last_used_at else "never"
            scope = f"agent {row.agent_name}" if row.agent_name else row.scope
            typer.echo(f"{row.id}\t{row.prefix}…\t{scope}\t{row.name}\t{state}\tused {used}")


@token_app.command("revoke")
def token_revoke(token_id: int) -> None:
    """Revoke a token by its id (see token list)."""
    from perfatlas.auth.service import revoke_token
    from perfatlas.core.db import get_engine, session_factory

    engine = get_engine(get_settings().effective_database_url)
    with session_factory(engine)() as session:
        row = revoke_token(session, token_id=token_id)
    typer.echo(f"revoked token {row.id} ({row.name})")
