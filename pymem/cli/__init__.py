"""The `pymem` command: long-term memory for AI assistants, in PostgreSQL.

One module per command group (database, memories, models, people, lab), each adding
its commands to the parser; what they share is in common.py."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pymem import server
from pymem.cli import database, lab, memories, models, people

# psql_path: the embedded server's psql, which tests and scripts run too
from pymem.cli.database import psql_path  # noqa: F401
from pymem.errors import PymemError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pymem", description=__doc__)
    parser.add_argument("--dsn", help="PostgreSQL DSN (default: PYMEM_DSN, else embedded)")
    sub = parser.add_subparsers(dest="command", required=True)
    # one module per command group, each adding its commands
    for group in (lab, database, memories, models, people):
        group.add_parsers(sub)
    for choice in sub._choices_actions:
        # `pymem X --help` says what X is for, as `pymem --help` does
        command = sub.choices[choice.dest]
        command.description = command.description or f"{choice.help[0].upper()}{choice.help[1:]}."
    _dsn_anywhere(sub)
    return parser


def _dsn_anywhere(sub: argparse._SubParsersAction) -> None:
    """``--dsn`` after the command too (``pymem recall --user ann "x" --dsn ...``), as
    ``--user`` goes anywhere: given there, it wins over one before the command."""
    for command in sub.choices.values():
        if "--dsn" not in command._option_string_actions:
            command.add_argument(
                "--dsn", default=argparse.SUPPRESS, help="PostgreSQL DSN, as before the command"
            )
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                _dsn_anywhere(action)


def _database_error(exc: Exception) -> str:
    """A driver error as one line: its first line, code, DETAIL and HINT."""
    import psycopg

    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    if isinstance(exc, psycopg.OperationalError) and getattr(exc, "sqlstate", None) is None:
        # no server answered: the first line names the host and what failed
        return (
            f"cannot connect to PostgreSQL: {text.removeprefix('connection failed: ')}"
            "; check --dsn or PYMEM_DSN (without either, pymem starts its embedded server)"
        )
    diag = getattr(exc, "diag", None)
    if getattr(exc, "sqlstate", None):
        text += f" [{exc.sqlstate}]"
    if diag is not None and diag.message_detail:
        text += f"; {diag.message_detail}"
    if diag is not None and diag.message_hint:
        text += f"; hint: {diag.message_hint}"
    return " ".join(text.split())


# Control characters a stored text may hold (BEL, ESC[31m, a carriage return that
# overwrites the line) are printed as escapes, never sent to the terminal raw; stderr
# keeps \r for the progress bar, which pymem writes itself.
_ESCAPED = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
for _kept in ("\n", "\t"):
    del _ESCAPED[ord(_kept)]
_ESCAPED_ON_STDERR = {c: e for c, e in _ESCAPED.items() if c != ord("\r")}


class _Escaping:
    """A text stream that writes control characters as ``\\xNN``."""

    def __init__(self, stream, table: dict[int, str]) -> None:
        self._stream, self._table = stream, table

    def write(self, text: str) -> int:
        return self._stream.write(text.translate(self._table))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _connection_lost(args: argparse.Namespace) -> str:
    """What to do when the connection broke: the embedded server may have been stopped."""
    if not server.uses_embedded(args.dsn) or server.embedded_status()["running"]:
        return ""
    return "; the embedded server is not running (pymem db stop?): `pymem db start` starts it"


_PARSER: argparse.ArgumentParser | None = None


def _parser() -> argparse.ArgumentParser:
    """build_parser(), once a process: adding its commands and options takes 10 ms, and a
    process may run many commands (the tests and the README's walkthrough run them in
    process, 230 a run of the suite)."""
    global _PARSER
    if _PARSER is None:
        _PARSER = build_parser()
    return _PARSER


def main(argv: Sequence[str] | None = None) -> int:
    import psycopg

    from pymem.errors import ConnectionLost

    args = _parser().parse_args(argv)
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Escaping(stdout, _ESCAPED), _Escaping(stderr, _ESCAPED_ON_STDERR)
    try:
        return args.func(args)
    except ConnectionLost as exc:
        print(f"pymem: {exc.one_line()}{_connection_lost(args)}", file=sys.stderr)
        return 2
    except PymemError as exc:
        print(f"pymem: {exc.one_line()}", file=sys.stderr)
        return 2
    except psycopg.Error as exc:
        print(f"pymem: {_database_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # what a command did before Ctrl-C was committed or rolled back by its own
        # transactions; a command with more to say (import, review) catches it itself
        print(f"\npymem {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        sys.stdout, sys.stderr = stdout, stderr
