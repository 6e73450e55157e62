"""The example sentences shipped with the app (``resources/examples.json``).

The Translate and Compare tabs offer them as a menu; ``scripts/examples_report.py`` translates them with
every shipped model. Each is an input in one source language with its group — ``short`` (aligns almost
word by word), ``long`` (where a fixed context C runs out of room) or ``paragraph`` (several sentences
in one input) — and, where the file gives one, a reference translation.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from engine.files.paths import EXAMPLES_FILE

EXAMPLE_LENGTHS = ("short", "long", "paragraph")  # the groups, in the order they are offered

log = logging.getLogger("attention_studio")


@dataclass(frozen=True)
class Example:
    text: str
    length: str  # one of EXAMPLE_LENGTHS
    reference: str = ""  # a reference translation, when the file gives one


def load_examples(path: Path = EXAMPLES_FILE) -> dict[str, list[Example]]:
    """Examples by source language; an unreadable file gives none (and a log line), never a crash."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {
            language: [Example(str(item["text"]), str(item.get("length", "short")), str(item.get("reference", "")))
                       for item in items]
            for language, items in data.items()
            if isinstance(items, list)
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        log.warning("cannot read the example sentences %s: %s", path, error)
        return {}
