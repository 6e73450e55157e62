"""A lesson chapter as data: one Markdown file per chapter and language (pure Python: no Qt).

``resources/lessons/<language>/<NN-name>.md`` begins with a TOML front matter between two ``+++``
lines — the title, the models the chapter needs, its Show me actions and its Try it checks
(gui/lesson/schema.py) — and goes on with the chapter's text in Markdown (inline HTML such as
``e<sub>ij</sub>`` is allowed, for formulas)::

    +++
    title = "Attention: e, α and c"
    models = ["zh-en-additive"]

    [[show]]
    do = "translate"
    text = "我爱你。"

    [[try]]
    check = "step_selected"
    token = "love"
    say = "Click the output word “love”."
    +++
    Each step i scores every source word j: e<sub>ij</sub> = F(s<sub>i−1</sub>, h<sub>j</sub>) …

Chapters are ordered by file name; a chapter missing in a language is read in English. A file that
cannot be read or does not fit the schema still gives a chapter — its ``problem`` says why in one line,
and the panel shows that line instead of its text — so one damaged file never hides the others.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui.lesson.schema import ACTIONS, CHECKS, SchemaError, check_entry

FENCE = "+++"
MAX_BYTES = 64 * 1024  # a chapter is a page of text: anything larger is not one
REFERENCE_LANGUAGE = "en"  # every chapter exists in it; the others may lag behind


@dataclass(frozen=True)
class Action:
    """One Show me step: an action of gui/lesson/schema.ACTIONS and its parameters."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    """One Try it task: a check of gui/lesson/schema.CHECKS, its parameters and the task in words."""

    name: str
    say: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Chapter:
    """One chapter in one language; ``problem`` is "" for a chapter that can be used."""

    key: str  # the file's stem, e.g. "03-attention": the same in every language, the progress's key
    language: str
    title: str
    body: str = ""
    models: tuple[str, ...] = ()  # "<direction>-<scorer>", e.g. "zh-en-none"
    show: tuple[Action, ...] = ()
    tries: tuple[Check, ...] = ()
    problem: str = ""


def needed_models(models: list[str], show: tuple[Action, ...]) -> tuple[str, ...]:
    """The models named in the front matter and those the Show me actions select, in order, once each."""
    named = list(models) + [f"{a.params['direction']}-{a.params['scorer']}" for a in show if a.name == "select_model"]
    return tuple(dict.fromkeys(named))


def parse_chapter(text: str, key: str, language: str) -> Chapter:
    """The chapter in ``text`` (a file's content); a chapter with ``problem`` set when it does not fit."""
    try:
        front, body = _split(text)
        title, models = _heading(front)
        show, tries = _entries(front)
    except SchemaError as error:
        return Chapter(key=key, language=language, title=key, problem=str(error))
    return Chapter(key=key, language=language, title=title, body=body, models=needed_models(models, show),
                   show=show, tries=tries)


def _split(text: str) -> tuple[dict[str, Any], str]:
    """The front matter (TOML between two ``+++`` lines) and the Markdown after it."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != FENCE:
        raise SchemaError(f"the file must begin with a {FENCE} line (the chapter's front matter)")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == FENCE), None)
    if end is None:
        raise SchemaError(f"the front matter has no closing {FENCE} line")
    try:
        front = tomllib.loads("\n".join(lines[1:end]))
    except tomllib.TOMLDecodeError as error:
        raise SchemaError(f"the front matter is not valid TOML ({error})") from None
    return front, "\n".join(lines[end + 1:]).strip()


def _heading(front: dict[str, Any]) -> tuple[str, list[str]]:
    """The title and the models named in the front matter."""
    unknown = sorted(set(front) - {"title", "models", "show", "try"})
    if unknown:
        raise SchemaError(f"unknown front matter key {unknown[0]!r}: choose title, models, show, try")
    title = front.get("title")
    if not isinstance(title, str) or not title.strip():
        raise SchemaError("the front matter needs a title = \"…\"")
    models = front.get("models", [])
    if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
        raise SchemaError("models must be a list of model names, e.g. [\"zh-en-additive\"]")
    return title.strip(), models


def _entries(front: dict[str, Any]) -> tuple[tuple[Action, ...], tuple[Check, ...]]:
    """The Show me actions and the Try it checks, each checked against gui/lesson/schema.py."""
    show = tuple(Action(*check_entry("action", ACTIONS, entry, "do")) for entry in front.get("show", []))
    tries = []
    for entry in front.get("try", []):
        name, params = check_entry("check", CHECKS, entry, "check", extra=("say",))
        say = entry.get("say")
        if not isinstance(say, str) or not say.strip():
            raise SchemaError(f"check {name!r} needs say = \"<the task in words>\"")
        tries.append(Check(name, say.strip(), params))
    return show, tuple(tries)


def read_chapter(path: Path, language: str) -> Chapter:
    """The chapter in ``path`` (a regular file of at most MAX_BYTES, UTF-8)."""
    key = path.stem
    try:
        if not path.is_file():
            return Chapter(key=key, language=language, title=key, problem=f"{path.name} is not a regular file")
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            return Chapter(key=key, language=language, title=key,
                           problem=f"{path.name} is larger than {MAX_BYTES // 1024} KiB")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return Chapter(key=key, language=language, title=key, problem=f"{path.name} cannot be read ({error})")
    return parse_chapter(text, key, language)


CHAPTER_FILE = re.compile(r"^\d\d[-\w]*\.md$")


def load_chapters(root: Path, language: str) -> list[Chapter]:
    """Every chapter under ``root`` (resources/lessons) in ``language``, by file name; a chapter that
    has no file in that language is read in English."""
    keys: dict[str, Path] = {}
    for lang in dict.fromkeys((REFERENCE_LANGUAGE, language)):
        folder = root / lang
        if folder.is_dir():
            for path in folder.iterdir():
                if CHAPTER_FILE.match(path.name):
                    keys[path.stem] = path
    chapters = []
    for key in sorted(keys):
        path = keys[key]
        chapters.append(read_chapter(path, path.parent.name))
    return chapters
