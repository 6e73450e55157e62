"""Where Attention Studio keeps things. Imports nothing heavy, so the app can ask early.

What ships with the app — the models, the corpus with its licence note, the segmenter's word list,
the example sentences, the alignment, the icon and the desktop entry — lies in one folder,
:data:`RESOURCES`: the package ``attention_studio_resources`` of an installed wheel, found through
``importlib.resources``. Code that runs from a checkout reads the checkout's ``resources/`` (the folder
that package is made of; an editable install maps the package there too), installed or not, so that
the code and the files it reads always come from the same place.

The user's data folder comes from platformdirs; the ``ATTENTION_STUDIO_DATA`` environment variable
overrides it (tests and portable installs use that).
"""

from __future__ import annotations

import argparse
import os
from importlib import resources
from pathlib import Path

import platformdirs

APP_NAME = "attention-studio"
RESOURCES_PACKAGE = "attention_studio_resources"
PROJECT_ROOT = Path(__file__).resolve().parents[2]  # a checkout (an installed wheel: site-packages)


def _resources_folder() -> Path:
    """The shipped files' folder: a checkout's own ``resources/``, else the installed package's."""
    checkout = PROJECT_ROOT / "resources"
    if (PROJECT_ROOT / "pyproject.toml").is_file() and (checkout / "__init__.py").is_file():
        return checkout
    try:
        folder = resources.files(RESOURCES_PACKAGE)
    except ModuleNotFoundError:  # neither a checkout nor an install: the readers say what is missing
        return checkout
    if isinstance(folder, Path):
        return folder
    # An install that is not plain files on disk (a zip): the readers need paths, so say so plainly.
    raise RuntimeError(f"the package {RESOURCES_PACKAGE} is not a folder on disk ({folder}); "
                       "install Attention Studio as plain files")


RESOURCES = _resources_folder()
SHIPPED_MODELS = RESOURCES / "models"
# The Tatoeba Chinese–English corpus, shipped with its licence note (CC-BY 2.0 FR, README.md beside it).
TATOEBA_CORPUS = RESOURCES / "corpora" / "tatoeba-cmn-eng" / "cmn-eng.tsv"
SEGMENTER_WORDS = RESOURCES / "segmenter" / "zh-words.txt"
EXAMPLES_FILE = RESOURCES / "examples.json"
SHIPPED_ALIGNMENT = RESOURCES / "alignments" / "cmn-eng.zh-en.json.gz"
APP_ICON = RESOURCES / "attention-studio.svg"
DESKTOP_ENTRY = RESOURCES / "attention-studio.desktop"
I18N_FOLDER = RESOURCES / "i18n"  # the interface's compiled translations, <package>_zh_CN.qm (gui/i18n.py)


def shipped_model_names(root: Path | None = None) -> list[str]:
    """The shipped model folders' names (``zh-en-additive``, …), sorted."""
    root = SHIPPED_MODELS if root is None else root
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if not p.name.startswith(".") and (p / "config.json").is_file())


def model_argument(text: str) -> Path:
    """``--model``'s value: a model folder, or the name of a shipped model (``zh-en-additive``).

    A path that exists is taken as given, and so is one that names a folder (a separator in it);
    a bare word is a shipped model's name, and an unknown one is refused with the shipped names
    (argparse prints that as a one-line error)."""
    path = Path(text)
    if path.exists() or path.is_symlink() or os.sep in text or "/" in text or text in (".", "..", ""):
        return path
    shipped = SHIPPED_MODELS / text
    if (shipped / "config.json").is_file():
        return shipped
    names = shipped_model_names()
    known = ", ".join(names) if names else "none are installed"
    raise argparse.ArgumentTypeError(f"{text!r} is neither a model folder nor a shipped model's name "
                                     f"(shipped: {known})")


def user_data_folder() -> Path:
    """The user's data folder (platformdirs'), or ``ATTENTION_STUDIO_DATA`` when set."""
    override = os.environ.get("ATTENTION_STUDIO_DATA")
    return Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def user_models_folder() -> Path:
    """Where the app saves the models it trains, one folder per run."""
    return user_data_folder() / "models"
