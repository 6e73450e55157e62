"""The shipped files' folder is found in one place (engine/files/paths.py), and ``--model`` takes a shipped
model's name as well as a folder (tests/test_wheel_install.py checks both from an installed wheel)."""

from __future__ import annotations

import argparse
import configparser
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import pytest

from engine.__main__ import build_parser
from engine.files import paths

ROOT = Path(__file__).resolve().parents[2]


def test_the_checkout_reads_its_own_resources_folder():
    assert paths.RESOURCES.resolve() == (ROOT / "resources").resolve()
    assert paths.SHIPPED_MODELS == paths.RESOURCES / "models"
    for path in (paths.TATOEBA_CORPUS, paths.TATOEBA_CORPUS.with_name("README.md"), paths.SEGMENTER_WORDS,
                 paths.EXAMPLES_FILE, paths.SHIPPED_ALIGNMENT, paths.APP_ICON, paths.DESKTOP_ENTRY):
        assert path.is_file(), path


def test_installed_files_are_found_through_importlib_resources(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "PROJECT_ROOT", tmp_path)  # code that does not run from a checkout
    assert paths._resources_folder() == resources.files(paths.RESOURCES_PACKAGE)

    def not_installed(name):
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(resources, "files", not_installed)
    assert paths._resources_folder() == tmp_path / "resources"  # nothing found: the readers say what is missing


def test_model_argument_takes_a_shipped_name_a_folder_or_names_the_choices(tmp_path, monkeypatch):
    names = paths.shipped_model_names()
    assert "zh-en-additive" in names
    assert paths.model_argument("zh-en-additive") == paths.SHIPPED_MODELS / "zh-en-additive"
    assert paths.model_argument("some/folder") == Path("some/folder")  # a path, as given (its loader says why not)
    (tmp_path / "zh-en-additive").mkdir()
    monkeypatch.chdir(tmp_path)
    assert paths.model_argument("zh-en-additive") == Path("zh-en-additive")  # a folder here comes first
    with pytest.raises(argparse.ArgumentTypeError, match="zh-en-multihead") as refused:
        paths.model_argument("zh-en-nothing")
    assert all(name in str(refused.value) for name in names)


def test_translate_and_evaluate_refuse_an_unknown_name_in_one_line(capsys):
    parser = build_parser()
    assert parser.parse_args(["translate", "--model", "zh-en-additive", "x"]).model == \
        paths.SHIPPED_MODELS / "zh-en-additive"
    for command in (["translate", "--model", "nope", "x"], ["evaluate", "--model", "nope", "--task", "dates"]):
        with pytest.raises(SystemExit) as stopped:
            parser.parse_args(command)
        assert stopped.value.code == 2
        error = capsys.readouterr().err
        assert len(error.strip().splitlines()) == 1 and "zh-en-additive" in error


def test_desktop_entry_and_icon():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(paths.DESKTOP_ENTRY, encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert desktop["Type"] == "Application" and desktop["Exec"].split()[0] == "attention-studio"
    assert desktop["Icon"] == paths.APP_ICON.stem
    root = ET.parse(paths.APP_ICON).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
