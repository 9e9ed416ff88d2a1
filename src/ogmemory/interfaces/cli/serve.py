"""``ogmem serve`` (the REST server) and ``ogmem keys`` (its API keys).

Each API key is bound to one tenant ``(account, space)``; the server stores only its SHA-256,
so the token is printed once, at creation. While no key exists the server serves the local
default tenant and refuses to listen anywhere but on loopback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ...config import Settings
from ...errors import InvalidInput
from ...tenancy import validate_id
from .common import (
    UNWRAPPED,
    AccountOption,
    HomeOption,
    JsonOption,
    SpaceOption,
    emit_json,
    fmt_time,
    notice,
    show_records,
)

if TYPE_CHECKING:  # the REST package imports FastAPI: only ``ogmem serve``/``keys`` load it
    from ..rest.keys import KeyInfo, KeyStore

__all__ = ["keys_app", "serve"]


def _key_store(home: HomeOption) -> KeyStore:
    from ..rest.keys import KeyStore

    return KeyStore(Settings.from_env(home=home).home)


def serve(
    host: Annotated[
        str,
        typer.Option(
            "--host",
            metavar="HOST",
            help="Address to listen on. Anything but loopback needs an API key to exist "
            "('ogmem keys create').",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", metavar="PORT", min=0, max=65535, help="TCP port.")
    ] = 8765,
    log_level: Annotated[
        str,
        typer.Option(
            "--log-level",
            metavar="LEVEL",
            help="Server log level: critical, error, warning, info, debug.",
        ),
    ] = "info",
    home: HomeOption = None,
    account: AccountOption = None,
    space: SpaceOption = None,
) -> None:
    """Run the REST API and the web UI (at /; API docs at /docs) until Ctrl-C.

    Each request's API key selects its tenant; with no key, --account/--space on loopback only.
    """
    import uvicorn

    from ..rest import check_bind, create_app

    settings = Settings.from_env(home=home, account=account, space=space)
    validate_id(settings.account, "account")
    validate_id(settings.space, "space")
    keys = _key_store(settings.home)
    check_bind(host, keys)
    mode = (
        "API keys required"
        if keys.has_keys()
        else (f"no API keys: serving tenant {settings.account}/{settings.space} on loopback only")
    )
    shown = f"[{host}]" if ":" in host else host
    notice(
        f"ogmem serve: http://{shown}:{port} (web UI at /, API docs at /docs); {mode}; "
        f"home {settings.home}"
    )
    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level.lower())


keys_app = typer.Typer(
    name="keys",
    help="API keys of the REST server, each bound to one tenant (account, space).",
    no_args_is_help=True,
)


@keys_app.command("create")
def create_key(
    account: Annotated[
        str, typer.Option("--account", metavar="ACCOUNT", help="Tenant account the key acts in.")
    ],
    space: Annotated[
        str, typer.Option("--space", metavar="SPACE", help="Space within the account.")
    ],
    label: Annotated[
        str, typer.Option("--label", metavar="TEXT", help="A note on who or what uses the key.")
    ] = "",
    admin: Annotated[
        bool, typer.Option("--admin", help="The key may also manage keys (/v1/admin/keys).")
    ] = False,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a key and print its token; the token is shown only this once."""
    info, token = _key_store(home).create(account, space, label=label, admin=admin)
    if as_json:
        emit_json({**info.to_dict(), "token": token})
        return
    typer.echo(token)
    notice(
        f"Created {'admin ' if admin else ''}key {info.key_id} for {account}/{space}. "
        "Store the token above now: it cannot be shown again."
    )


@keys_app.command("list")
def list_keys(
    home: HomeOption = None,
    account: Annotated[
        str | None,
        typer.Option(
            "--account",
            metavar="ACCOUNT",
            show_default=False,
            help="Only keys of this account. \\[default: every account]",
        ),
    ] = None,
    space: Annotated[
        str | None,
        typer.Option(
            "--space",
            metavar="SPACE",
            show_default=False,
            help="Only keys of this space. \\[default: every space]",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List the keys (never their tokens), revoked ones included."""
    keys = [
        k
        for k in _key_store(home).list()
        if account in (None, k.account) and space in (None, k.space)
    ]
    show_records(
        as_json,
        keys,
        f"API keys ({len(keys)})",
        ("ID", "Account", "Space", "Label", "Admin", "State", "Created"),
        _row,
        no_wrap=(*UNWRAPPED, "Created"),
    )


def _row(key: KeyInfo) -> tuple[str, ...]:
    state = f"revoked {fmt_time(key.revoked_at)}" if key.revoked else "active"
    return (
        key.key_id,
        key.account,
        key.space,
        key.label,
        "yes" if key.admin else "",
        state,
        fmt_time(key.created_at),
    )


@keys_app.command("revoke")
def revoke_key(
    key_id: Annotated[
        str, typer.Argument(metavar="KEY_ID", help="The key id, as shown by 'ogmem keys list'.")
    ],
    home: HomeOption = None,
    account: Annotated[
        str | None,
        typer.Option(
            "--account",
            metavar="ACCOUNT",
            show_default=False,
            help="Refuse unless the key belongs to this account (a safety check).",
        ),
    ] = None,
    space: Annotated[
        str | None,
        typer.Option(
            "--space",
            metavar="SPACE",
            show_default=False,
            help="Refuse unless the key belongs to this space (a safety check).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Revoke a key for good: requests with it get 401 from now on (running servers too)."""
    store = _key_store(home)
    key = store.get(key_id)
    if account not in (None, key.account) or space not in (None, key.space):
        raise InvalidInput(
            f"key {key_id} belongs to {key.account}/{key.space}, not "
            f"{account or key.account}/{space or key.space}; nothing revoked"
        )
    info = store.revoke(key_id)
    if as_json:
        emit_json(info.to_dict())
        return
    typer.echo(f"Revoked {info.key_id} ({info.account}/{info.space}).")
