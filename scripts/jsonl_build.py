"""What the scripts that build a bundled JSONL file share: write it, or check it is current."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def write_or_check(out: Path, text: str, description: str) -> bool:
    """With --check, False when ``out`` is not ``text``; else ``out`` is written. True when
    the file is (now) what the script builds."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true", help="fail if the file is not up to date")
    if ap.parse_args().check:
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            print(f"{out} is not what this script builds", file=sys.stderr)
            return False
        return True
    out.write_text(text, encoding="utf-8")
    return True
