"""Where Attention Studio keeps things. Imports nothing heavy, so the app can ask early.

The user's data folder comes from platformdirs; the ``ATTENTION_STUDIO_DATA`` environment variable
overrides it (tests and portable installs use that).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "attention-studio"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHIPPED_MODELS = PROJECT_ROOT / "resources" / "models"
# The Tatoeba Chinese–English corpus, shipped with its licence note (CC-BY 2.0 FR, README.md beside it).
TATOEBA_CORPUS = PROJECT_ROOT / "resources" / "corpora" / "tatoeba-cmn-eng" / "cmn-eng.tsv"


def user_data_folder() -> Path:
    override = os.environ.get("ATTENTION_STUDIO_DATA")
    return Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def user_models_folder() -> Path:
    """Where the app saves the models it trains, one folder per run."""
    return user_data_folder() / "models"
