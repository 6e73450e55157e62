"""Files of one concept each: no Python file in engine/ or gui/ over MAX_LINES lines (docs/architecture.md).
A file that would cross it is split first: no file is excused."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400


def _lengths() -> dict[str, int]:
    files = [*(ROOT / "engine").rglob("*.py"), *(ROOT / "gui").rglob("*.py")]
    return {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines()) for path in files}


def test_no_engine_or_gui_file_is_over_the_limit():
    over = {name: lines for name, lines in _lengths().items() if lines > MAX_LINES}
    assert not over, f"split these files (at most {MAX_LINES} lines each): {over}"
