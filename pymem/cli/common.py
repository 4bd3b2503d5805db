"""What the command groups share: the store and the embedder a command opens, --user
before or after a verb, the options of a model's server."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from pymem import server


def _dsn(args: argparse.Namespace) -> str:
    return server.resolve_dsn(args.dsn)


def _store(args: argparse.Namespace):
    """A store ready for use; the embedded server's is migrated when it is not what this
    release installs (its first use, an upgrade of pymem)."""
    from pymem.migrate import migrate_if_drifted
    from pymem.store import MemoryStore

    dsn = _dsn(args)
    if server.uses_embedded(args.dsn):
        migrate_if_drifted(dsn)  # a person trying pymem should not need a second command
    return MemoryStore(dsn)


def _embedded_store(
    args: argparse.Namespace, text: str, what: str, user_id: str | None = None, kind=None
):
    """A store and the bundled embedder, once the store has taken ``text`` as it would
    take a memory's content, and the user and kind when given (an empty or oversized
    text, an empty user or an unknown kind is refused before the embedder loads)."""
    from pymem.embedder import default_embedder

    store = _store(args)
    try:
        store.check_contents([text], [what], user_id=user_id, kind=kind)
        embed = default_embedder()
        embed.configure(store)
    except BaseException:
        store.close()
        raise
    return store, embed


# the names `pymem db` makes a database under: a typo or a pasted fragment of SQL is
# refused, not made into a database


def _user_option(command: argparse.ArgumentParser, verbs: list[argparse.ArgumentParser]) -> None:
    """``--user`` before or after a command's verb (``contacts --user mei card X`` and
    ``contacts card --user mei X``): one convention for every command with verbs."""
    command.add_argument("--user", help="whose data (required)")
    for verb in verbs:
        # SUPPRESS: not given after the verb, the value before it stays
        verb.add_argument("--user", default=argparse.SUPPRESS, help="whose data (required)")


def _needs_user(args: argparse.Namespace) -> bool:
    if args.user and args.user.strip():
        return True
    print(f"pymem {args.command}: --user is required", file=sys.stderr)
    return False


def _model_options(
    p: argparse.ArgumentParser, model_env: str, url_flag: str = "--base-url", url_help: str = ""
) -> None:
    """The options of a command that asks a model (an OpenAI-compatible endpoint)."""
    default_help = "the API root, e.g. http://localhost:11434/v1 (default: OPENAI_BASE_URL)"
    p.add_argument(url_flag, dest="base_url", metavar="URL", help=url_help or default_help)
    p.add_argument("--model", help=f"the model (or Azure deployment; default: {model_env})")
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        metavar="NAME",
        help="the environment variable holding the key (default OPENAI_API_KEY; unset: no key)",
    )
    p.add_argument(
        "--auth-header",
        default="Authorization",
        help="the key's header: Authorization (Bearer, default) or api-key (Azure)",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per model call (60)")
    p.add_argument(
        "--schema-in-prompt",
        action="store_true",
        help="for a server without structured output: the answer's schema in the prompt",
    )


def _model_client(args: argparse.Namespace, cls: type, model_env: str, command: str) -> Any:
    """The client of the model the options name, or None once the refusal is printed."""
    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL")
    model = args.model or os.environ.get(model_env)
    if not base_url or not model:
        print(
            f"pymem {command}: --base-url and --model are required (or OPENAI_BASE_URL and "
            f"{model_env})",
            file=sys.stderr,
        )
        return None
    try:
        return cls(
            base_url,
            model,
            api_key_env=args.api_key_env,
            timeout=args.timeout,
            auth_header=args.auth_header,
        )
    except (ValueError, ImportError) as exc:  # a bad URL; no httpx (pymem[llm])
        print(f"pymem {command}: {exc}", file=sys.stderr)
        return None
