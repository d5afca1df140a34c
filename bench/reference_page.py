"""Regenerate docs/reference.md from the reference table (safemigrate/reference/).

    python bench/reference_page.py [--out docs/reference.md] [--check]

``--check`` writes nothing and exits 1 when the page on disk differs from the table's (what
tests/unit/test_reference_page.py asserts).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from safemigrate.reference.render import render  # noqa: E402

PAGE = REPO / "docs" / "reference.md"


def main() -> int:
    """Write the page (or, with --check, compare it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PAGE)
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on a drift")
    args = parser.parse_args()
    text = render()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date: run python bench/reference_page.py")
            return 1
        print(f"{args.out} is up to date")
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
