"""pymem as a PostgreSQL extension: its files, generated from migrations/ and sql/.

``CREATE EXTENSION pymem`` runs the same migrations and the same sql/ files as
``pymem migrate``, with what an extension script cannot or must not hold left
out: creating the extensions it requires and its schema (the control file does
both), the role pymem_app, its policies and its grants (roles are cluster-wide;
``pymem.setup()`` makes them after the install), and the configuration rows
(``pymem.setup()`` seeds them: pg_dump keeps the tables' rows, and rows an
install made would clash with the restored ones on a restore).

An extension version is a schema level: the package version and the last
migration (``0.1.0+0024``). The files are the control file, the install script
of the newest level and an update script from each earlier level to the next:
the last step also loads sql/, as ``pymem migrate`` does after its migrations.
docs/operations.md ("Install") says how to install them.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import sqlparse

from pymem.migrate import (
    DEFAULT_FUNCTION_PATH,
    migration_function_names,
    migrations_dir,
    sql_dir,
)

NAME = "pymem"
PACKAGE_VERSION = "0.1.0"
REQUIRES = ("vector", "pg_trgm")
# the names sql/ qualifies with ``public.``, by the extension that defines them
_QUALIFIED = {"similarity": "pg_trgm", "word_similarity": "pg_trgm", "show_trgm": "pg_trgm"}
# calls that set up the role, its policies and grants: pymem.setup()'s work
_SETUP_CALLS = (
    "_create_app_role",
    "_secure_user_tables",
    "_grant_app_role",
    "_sync_partition_security",
)
# the tables an install leaves empty, for pymem.setup() to seed
_SEEDED = ("settings", "kinds", "goal_metrics", "history_key")


def version(level: int) -> str:
    """The extension version of schema level ``level`` (the last migration's number)."""
    return f"{PACKAGE_VERSION}+{level:04d}"


def level_of(extension_version: str) -> int:
    """The schema level an extension version names (``0.1.0+0024`` -> 24)."""
    match = re.fullmatch(r"\d+\.\d+\.\d+\+(\d{4})", extension_version)
    if match is None:
        raise ValueError(f"not a pymem extension version: {extension_version!r}")
    return int(match.group(1))


@dataclass(frozen=True)
class Sources:
    """The migrations/ and sql/ directories of one release (this one by default)."""

    migrations: Path
    sql: Path

    @classmethod
    def shipped(cls) -> Sources:
        return cls(migrations_dir(), sql_dir())

    def migration_files(self) -> dict[int, Path]:
        return {
            int(p.name.split(".", 1)[0]): p
            for p in self.migrations.glob("[0-9]*.sql")
            if not p.name.endswith(".rollback.sql")
        }

    def level(self) -> int:
        return max(self.migration_files())


def _kept(statement: str) -> bool:
    """Whether a top-level statement of a migration or a sql/ file belongs in an
    extension script."""
    text = " ".join(sqlparse.format(statement, strip_comments=True).split())
    if not text:
        return False
    upper = text.upper()
    if upper.startswith(("CREATE EXTENSION", "CREATE SCHEMA", "CREATE POLICY", "CREATE ROLE")):
        return False
    if upper.startswith(("GRANT ", "REVOKE ", "DO ")) and "PYMEM_APP" in upper:
        return False
    called = re.fullmatch(r"SELECT pymem\.(\w+)\(\);?", text)
    return not (called and called.group(1) in _SETUP_CALLS)


def _statements(path: Path) -> list[str]:
    stat = path.stat()
    return _kept_statements(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _kept_statements(path: str, mtime_ns: int, size: int) -> list[str]:
    """A file's kept statements, parsed once while it stays as it was: sqlparse takes
    about 0.1 s a file, and every update script reads the migrations again."""
    text = Path(path).read_text(encoding="utf-8")
    return [s for s in sqlparse.split(text) if _kept(s)]


def _functions_text(path: Path) -> str:
    """A sql/ file's kept statements, with its functions' pinned search_path taken from
    the install's (the extensions' schemas, found when the script runs)."""
    text = "\n\n".join(_qualified(path, s) for s in _statements(path))
    return text.replace(DEFAULT_FUNCTION_PATH, "SET search_path FROM CURRENT")


_STATEMENT_QUOTE = "$pymem_statement$"


def _qualified(path: Path, statement: str) -> str:
    """A statement naming an extension's function as ``public.name``, run by a DO block
    that names the schema the extension was installed in instead, as pymem migrate's
    loader does (pymem.migrate.sql_text): the same body either way. (PostgreSQL's
    ``@extschema:name@`` would do it for a script in a file, but pg_tle leaves it as
    it is.)"""
    names = sorted(set(re.findall(r"\bpublic\.([a-z_][a-z0-9_]*)", statement)))
    if not names:
        return statement
    unknown = [n for n in names if n not in _QUALIFIED]
    if unknown:
        raise ValueError(f"{path.name}: public.{unknown[0]} names no known extension")
    if _STATEMENT_QUOTE in statement:
        raise ValueError(f"{path.name}: a statement holds {_STATEMENT_QUOTE}")
    text = f"{_STATEMENT_QUOTE}{statement.rstrip().rstrip(';')}{_STATEMENT_QUOTE}"
    for name in names:
        schema = (
            "(SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension AS e"
            " JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace"
            f" WHERE e.extname = '{_QUALIFIED[name]}')"
        )
        text = f"pg_catalog.replace({text}, 'public.{name}(', {schema} || '.{name}(')"
    return f"DO $pymem_load$\nBEGIN\n    EXECUTE {text};\nEND;\n$pymem_load$;"


_GUARD = f'\\echo Use "CREATE EXTENSION {NAME}" to load this file. \\quit\n'

# what pymem migrate's load of sql/ sets (pymem.migrate.function_search_path), here
# from the schemas the required extensions were installed in (a NULL
# search_path would fail loudly, not pin public)
_SEARCH_PATH = """
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pymem, ' || (
    SELECT pg_catalog.string_agg(pg_catalog.quote_ident(s.nspname), ', ' ORDER BY s.first)
    FROM (
        SELECT n.nspname, min(array_position(ARRAY['vector', 'pg_trgm'], e.extname)) AS first
        FROM pg_catalog.pg_extension AS e
        JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace
        WHERE e.extname IN ('vector', 'pg_trgm')
        GROUP BY n.nspname
    ) AS s
) || ', pg_temp', true);
"""

_REFUSE_MIGRATED = """
DO $$
BEGIN
    IF pg_catalog.to_regclass('pymem.settings') IS NOT NULL THEN
        RAISE EXCEPTION 'schema pymem already holds a store made by pymem migrate'
            USING ERRCODE = 'PM053',
                HINT = 'Keep running pymem migrate on it, or dump its rows (pymem export), '
                    'install the extension in a new database and import them there.';
    END IF;
END;
$$;
"""

# The users' rows and the store's configuration: every table but the schema's
# version (the extension's own), and the identity sequences, kept by pg_dump, which
# otherwise dumps an extension's tables without their rows.
_CONFIG_DUMP = """
DO $$
DECLARE
    v_table regclass;
BEGIN
    -- one call a command: each call changes the extension's one catalog row
    FOR v_table IN
        SELECT c.oid::regclass FROM pg_catalog.pg_class AS c
        WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p', 'S')
            AND NOT c.relispartition AND c.relname <> 'schema_info'
        ORDER BY c.relname
    LOOP
        PERFORM pg_catalog.pg_extension_config_dump(v_table, '');
    END LOOP;
END;
$$;
"""

# the install's seeded rows go: pymem.setup() makes them (pymem._seed_configuration)
_UNSEED = "".join(f"DELETE FROM pymem.{t};\n" for t in _SEEDED)

# Functions an earlier level defined that sql/ no longer does, dropped as pymem
# migrate drops them (pymem.migrate._drop_stale_functions): every function this
# update made carries its transaction's id, as pymem.schema_version() does.
_DROP_STALE = """
DO $$
DECLARE
    v_function record;
BEGIN
    FOR v_function IN
        SELECT p.oid::regprocedure AS signature, p.prokind
        FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = 'pymem'::regnamespace
            AND p.xmin <> (SELECT q.xmin FROM pg_catalog.pg_proc AS q
                           WHERE q.oid = 'pymem.schema_version()'::regprocedure)
            AND NOT p.proname = ANY(%s)
    LOOP
        EXECUTE format('DROP %%s %%s',
            CASE WHEN v_function.prokind = 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
            v_function.signature);
    END LOOP;
END;
$$;
"""


def _migrations_text(sources: Sources, after: int, upto: int) -> str:
    parts = []
    for number, path in sorted(sources.migration_files().items()):
        if after < number <= upto:
            parts.append(f"-- migration {path.name}\n" + "\n\n".join(_statements(path)))
    return "\n\n".join(parts)


def _sql_text(sources: Sources) -> str:
    return "\n\n".join(
        f"-- sql/{p.name}\n{_functions_text(p)}" for p in sorted(sources.sql.glob("*.sql"))
    )


def install_script(sources: Sources | None = None) -> str:
    """``pymem--<version>.sql``: the store at ``sources``' level, as a fresh install."""
    sources = sources or Sources.shipped()
    return "\n".join(
        [
            f"-- pymem {version(sources.level())}: generated by pymem.extension from",
            "-- migrations/ and sql/; do not edit.",
            _GUARD,
            _REFUSE_MIGRATED,
            _migrations_text(sources, 0, sources.level()),
            _SEARCH_PATH,
            _sql_text(sources),
            _CONFIG_DUMP,
            _UNSEED,
        ]
    )


def update_script(sources: Sources, level: int) -> str:
    """``pymem--<level-1>--<level>.sql``: migration ``level``; the step to the newest
    level also loads sql/ and drops the functions it no longer defines."""
    parts = [
        f"-- pymem {version(level - 1)} to {version(level)}: generated by pymem.extension;",
        "-- do not edit.",
        _GUARD,
        _migrations_text(sources, level - 1, level),
    ]
    if level == sources.level():
        names = ", ".join(f"'{n}'" for n in sorted(migration_function_names(sources.migrations)))
        parts += [_SEARCH_PATH, _sql_text(sources), _DROP_STALE % f"ARRAY[{names}]::text[]"]
        parts.append(_CONFIG_DUMP)
    return "\n".join(parts)


def control_file(sources: Sources | None = None) -> str:
    sources = sources or Sources.shipped()
    return (
        "# pymem: generated by pymem.extension; do not edit\n"
        "comment = 'long-term memory for AI assistants'\n"
        f"default_version = '{version(sources.level())}'\n"
        f"requires = '{', '.join(REQUIRES)}'\n"
        "schema = pymem\n"
        "relocatable = false\n"
        "superuser = true\n"
    )


def pgxn_meta(sources: Sources | None = None) -> dict:
    sources = sources or Sources.shipped()
    return {
        "name": NAME,
        "abstract": "Long-term memory for AI assistants, built into PostgreSQL",
        "version": PACKAGE_VERSION,
        "maintainer": "pymem developers",
        "license": "apache_2_0",
        "provides": {
            NAME: {
                "abstract": "Long-term memory for AI assistants",
                "file": f"{NAME}--{version(sources.level())}.sql",
                "version": PACKAGE_VERSION,
            }
        },
        "prereqs": {
            "runtime": {"requires": {"PostgreSQL": "14.0.0", "vector": "0.7.0", "pg_trgm": 0}}
        },
        "meta-spec": {"version": "1.0.0", "url": "https://pgxn.org/meta/spec.txt"},
        "tags": ["memory", "ai", "llm", "pgvector"],
    }


def files(sources: Sources | None = None, first: int = 1) -> dict[str, str]:
    """Every file of the extension, by name: the control file, ``META.json``, the
    install script and the update scripts from level ``first`` on."""
    sources = sources or Sources.shipped()
    newest = sources.level()
    out = {
        f"{NAME}.control": control_file(sources),
        "META.json": json.dumps(pgxn_meta(sources), indent=2) + "\n",
        f"{NAME}--{version(newest)}.sql": install_script(sources),
    }
    for level in range(first + 1, newest + 1):
        out[f"{NAME}--{version(level - 1)}--{version(level)}.sql"] = update_script(sources, level)
    return out


def files_replaced(out: Path, sources: Sources | None = None) -> list[Path]:
    """The files in ``out`` that :func:`write_files` would overwrite with other text."""
    return [
        out / name
        for name, text in files(sources).items()
        if (out / name).is_file() and (out / name).read_text(encoding="utf-8") != text
    ]


def write_files(out: Path, sources: Sources | None = None) -> list[Path]:
    """Write :func:`files` into ``out`` (made if missing); returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files(sources).items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _dollar_quoted(text: str) -> str:
    tag = "$_pgtle_$"
    if tag in text:
        raise ValueError("a script holds pg_tle's quote $_pgtle_$")
    return f"{tag}{text}{tag}"


def tle_script(sources: Sources | None = None) -> str:
    """The pg_tle calls that install this release where only SQL reaches (a managed
    service): the install script of the newest level, the update path from each earlier
    level, and the default version. Run as a member of pgtle_admin; then ``CREATE
    EXTENSION pymem CASCADE`` and ``pymem.setup()`` as with the files."""
    sources = sources or Sources.shipped()
    newest = sources.level()
    requires = ", ".join(f"'{r}'" for r in REQUIRES)
    out = [
        f"-- pymem {version(newest)} for pg_tle: generated by pymem.extension; do not edit.",
        "CREATE EXTENSION IF NOT EXISTS pg_tle;",
        f"SELECT pgtle.install_extension('{NAME}', '{version(newest)}',",
        "    'long-term memory for AI assistants',",
        f"    {_dollar_quoted(install_script(sources))},",
        f"    ARRAY[{requires}], 'pymem');",
    ]
    for level in range(2, newest + 1):
        out += [
            f"SELECT pgtle.install_update_path('{NAME}', '{version(level - 1)}', "
            f"'{version(level)}',",
            f"    {_dollar_quoted(update_script(sources, level))});",
        ]
    out.append(f"SELECT pgtle.set_default_version('{NAME}', '{version(newest)}');")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory to write into")
    args = parser.parse_args(argv)
    # a developer's regeneration of extension/ (the files a test holds current) overwrites
    for path in write_files(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
