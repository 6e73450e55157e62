"""Extract and compile the interface's translations: one catalog per gui package.

    python scripts/i18n_update.py            # every package: lupdate, then lrelease
    python scripts/i18n_update.py translate  # one package

Each package's user-visible strings (``tr()`` / ``QCoreApplication.translate`` / ``QT_TRANSLATE_NOOP``)
go to ``resources/i18n/<package>_zh_CN.ts`` (pyside6-lupdate, without source locations, so that a
moved line changes nothing; a message no longer used is dropped), to be translated there (Qt
Linguist or any editor: no ``type="unfinished"`` may stay), then compiled to the ``.qm`` beside it
(pyside6-lrelease), which the app loads and the repository keeps. ``tests/gui/test_i18n_catalogs.py``
fails when a catalog is not complete or not current.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
I18N = ROOT / "resources" / "i18n"
LANGUAGE = "zh_CN"
# "app" is gui/'s top level (gui/*.py); every other package is a folder of gui/ with its subfolders.
PACKAGES = ("app", "translate", "attention", "training", "compare", "common", "lesson")


def tool(name: str) -> str:
    """A Qt tool of the environment that runs this script (pyside6-lupdate, pyside6-lrelease)."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else name


def package_sources(package: str, root: Path = ROOT) -> list[Path]:
    """The Python files whose messages make up ``package``'s catalog, sorted."""
    gui = root / "gui"
    files = gui.glob("*.py") if package == "app" else (gui / package).rglob("*.py")
    return sorted(path for path in files if "__pycache__" not in path.parts)


def catalog_path(package: str, suffix: str = ".ts", folder: Path = I18N) -> Path:
    """The catalog file of ``package`` (``.ts``, or ``.qm`` with that suffix) in ``folder``."""
    return folder / f"{package}_{LANGUAGE}{suffix}"


def lupdate(package: str, ts_file: Path, root: Path = ROOT) -> None:
    """Extract ``package``'s messages into ``ts_file`` (kept translations stay; unused ones go)."""
    sources = [str(path.relative_to(root)) for path in package_sources(package, root)]
    subprocess.run([tool("pyside6-lupdate"), *sources, "-no-obsolete", "-locations", "none",
                    "-source-language", "en", "-target-language", LANGUAGE, "-ts", str(ts_file)],
                   cwd=root, check=True, capture_output=True, text=True)


def lrelease(ts_file: Path, qm_file: Path) -> None:
    """Compile the catalog ``ts_file`` into ``qm_file`` (pyside6-lrelease)."""
    subprocess.run([tool("pyside6-lrelease"), "-silent", str(ts_file), "-qm", str(qm_file)],
                   check=True, capture_output=True, text=True)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run (what it does: the module docstring); the exit status."""
    parser = argparse.ArgumentParser(description="Extract (lupdate) and compile (lrelease) the catalogs.")
    parser.add_argument("packages", nargs="*", help=f"any of {', '.join(PACKAGES)} (default: every one)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.packages if name not in PACKAGES]
    if unknown:
        parser.error(f"unknown package {unknown[0]!r}; choose among {', '.join(PACKAGES)}")
    I18N.mkdir(parents=True, exist_ok=True)
    for package in args.packages or PACKAGES:
        if not package_sources(package):
            continue
        ts_file = catalog_path(package)
        lupdate(package, ts_file)
        lrelease(ts_file, catalog_path(package, ".qm"))
        unfinished = ts_file.read_text(encoding="utf-8").count('type="unfinished"')
        print(f"{ts_file.relative_to(ROOT)}: {unfinished} unfinished")
    return 0


if __name__ == "__main__":
    sys.exit(main())
