"""For plain `yoyo apply`: re-create pymem's functions from sql/ after migrating.

`pymem migrate` loads sql/ itself on every run; yoyo runs this hook only when
a migration was applied, which is why a release that changes only sql/ also
ships a marker migration. Like `pymem migrate`, it pins the schemas pgvector
and pg_trgm live in (pymem.migrate.sql_text) and drops the functions sql/ no
longer defines.
"""

import sys
from pathlib import Path

from yoyo import step

_here = Path(__file__).resolve().parent
_sql = next(p for p in (_here.parent / "sql", _here.parent / "_sql") if p.is_dir())
if (_here.parent / "pymem").is_dir():
    sys.path.insert(0, str(_here.parent))  # a source tree: its own pymem


def _load_functions(conn):
    from pymem.migrate import load_sql

    load_sql(conn.cursor(), _sql)


steps = [step(_load_functions)]
