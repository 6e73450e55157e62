"""Copy rebuilt model folders from a build folder into resources/models (the shipped set).

    python scripts/ship_models.py build/models [--into resources/models] [--only NAME ...]

Models are built in an ignored folder (scripts/build_shipped_models.py --out build/models), tuned
there (scripts/tune_decoding.py) and compared; the final set is then copied into the repository once,
because every committed rebuild stays in its history. Only a model folder's four files travel —
config.json, model.safetensors, src.model, tgt.model — never the run's checkpoint, snapshots, lock
or metrics log. Each folder is checked (it loads, its files match their hashes) before anything is
replaced, and the recorded command names the shipped folder as its ``--out``, so that it rebuilds
the model where it is shipped.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.bundle import MODEL_FILES, load_model_folder, read_config, update_config  # noqa: E402
from engine.errors import EngineError  # noqa: E402

OUT_FLAG = re.compile(r"--out \S+")


def ship(build_folder: Path, into: Path, names: list[str] | None = None) -> list[str]:
    """Copy the model folders of ``build_folder`` (all, or ``names``) into ``into``; returns their names.
    Every folder is loaded first: a broken one stops the copy before anything is replaced."""
    folders = sorted(f for f in build_folder.iterdir() if (f / "config.json").is_file())
    if names:
        missing = sorted(set(names) - {f.name for f in folders})
        if missing:
            raise SystemExit(f"no model folder {', '.join(missing)} in {build_folder}")
        folders = [f for f in folders if f.name in names]
    for folder in folders:
        try:
            load_model_folder(folder)
        except EngineError as error:
            raise SystemExit(f"{folder} is not a loadable model: {error}") from None
    into.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        with tempfile.TemporaryDirectory(dir=into) as scratch:
            staged = Path(scratch) / folder.name
            staged.mkdir()
            for name in MODEL_FILES:
                shutil.copy2(folder / name, staged / name)
            info = read_config(staged)
            shipped_path = (into / folder.name).resolve()
            try:
                out = shipped_path.relative_to(ROOT)
            except ValueError:
                out = shipped_path
            if isinstance(info.get("command"), str):
                info["command"] = OUT_FLAG.sub(f"--out {out.as_posix()}", info["command"])
                update_config(staged, info)
            load_model_folder(staged)  # still whole
            target = into / folder.name
            if target.exists():
                shutil.rmtree(target)
            staged.rename(target)
    return [f.name for f in folders]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_folder", type=Path, help="folder holding the rebuilt model folders")
    parser.add_argument("--into", type=Path, default=ROOT / "resources" / "models")
    parser.add_argument("--only", nargs="+", default=None, help="model folder names (default: every one)")
    args = parser.parse_args()
    shipped = ship(args.build_folder, args.into, args.only)
    print(f"shipped {len(shipped)} model(s) into {args.into}: {', '.join(shipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
