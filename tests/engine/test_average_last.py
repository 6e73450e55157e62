"""``average --last`` takes a whole number of at least 1: 0 or fewer is refused in one line naming the
flag (not "no weight snapshots"), before any folder is claimed or made."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.__main__ import main
from engine.files.paths import PROJECT_ROOT

SHIPPED = PROJECT_ROOT / "resources" / "models" / "en-zh-dot"


@pytest.mark.parametrize("last", ["0", "-3"])
def test_average_last_below_one_is_refused_in_one_line(tmp_path: Path, capsys, last: str) -> None:
    out = tmp_path / "averaged"
    assert main(["average", "--model", str(SHIPPED), "--last", last, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--last" in err and "at least 1" in err, err
    assert not out.exists()
