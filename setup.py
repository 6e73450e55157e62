"""Packaging's one computed part: the code packages as found, plus the shipped files' package.

Everything else, the mapping of ``attention_studio_resources`` to ``resources/`` and its files
included, is declared in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["engine", "engine.*", "gui", "gui.*"]), "attention_studio_resources"])
