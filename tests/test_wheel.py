"""What the wheel holds: the product (the Python package, sql/, migrations/, the prompts,
the bundled eval stream, the calibration pairs and the schema snapshot), never the lab
(bench/, the development data, the scripts, the tests)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_holds_the_product_and_no_benchmark_or_development_data(tmp_path):
    # the backend is a dev dependency: no isolated environment to make for each build
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
         "-q", "-w", str(tmp_path)],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("pymem-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    folders = {n.rsplit("/", 1)[0] for n in names if not n.startswith("pymem-")}
    assert folders == {"pymem", "pymem/cli", "pymem/prompts", "pymem/data", "pymem/datasets",
                       "pymem/_sql", "pymem/_migrations"}, folders  # fmt: skip
    assert sorted(n for n in names if n.startswith(("pymem/data/", "pymem/datasets/"))) == [
        "pymem/data/calibration_pairs.jsonl",
        "pymem/data/schema_snapshot.txt",
        "pymem/datasets/eval_stream.jsonl",
    ]
    for lab in ("bench", "memory_dev", "scripts/", "tests/"):
        assert not [n for n in names if lab in n], lab
    # every file of sql/ and migrations/ ships
    assert {n.rsplit("/", 1)[1] for n in names if n.startswith("pymem/_sql/")} == {
        p.name for p in (ROOT / "sql").glob("*.sql")
    }
    assert {n.rsplit("/", 1)[1] for n in names if n.startswith("pymem/_migrations/")} == {
        p.name for p in (ROOT / "migrations").iterdir() if p.is_file()
    }
