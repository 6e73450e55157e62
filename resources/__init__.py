"""The files Attention Studio ships: models, corpus, word list, examples, alignment, icon, desktop entry.

Installed, this folder is the package ``attention_studio_resources`` (pyproject.toml); the engine finds
it in one place, ``engine/paths.py``. It holds no code.
"""
