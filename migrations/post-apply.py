"""For plain `yoyo apply`: re-create pymem's functions from sql/ after migrating.

`pymem migrate` loads sql/ itself on every run; yoyo runs this hook only when
a migration was applied, which is why a release that changes only sql/ also
ships a marker migration.
"""

from pathlib import Path

from yoyo import step

_here = Path(__file__).resolve().parent
_sql = next(p for p in (_here.parent / "sql", _here.parent / "_sql") if p.is_dir())


def _load_functions(conn):
    cursor = conn.cursor()
    for path in sorted(_sql.glob("*.sql")):
        cursor.execute(path.read_text(encoding="utf-8").encode())


steps = [step(_load_functions)]
