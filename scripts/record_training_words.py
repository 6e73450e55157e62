"""Add the record of their training words (words.json, engine.text.training_words) to model folders saved before
models recorded it — the shipped models by default.

    python scripts/record_training_words.py [--models resources/models] [--corpus FILE.tsv] [--only NAME ...]

Each model's training sources are read again as its training read them: the corpus its config.json
names (``data.corpus``; the shipped corpus by default), in the model's direction, split by the rule
it recorded (``data.split_rule``) — and the split must come out as the sizes it recorded
(``data.split``), else the folder is left alone. A model of the dates task regenerates its split
from its recorded seed. A model trained on the token cache is refused (its training set was capped
and streamed; it is not read again here).

The weights and the tokenizers are not touched: the folder's files are written again as they are,
with words.json and config.json's ``training_words`` entry added, as one commit (engine.models.model_files),
under the run lock when the folder is a run's; their sha256 is checked before and after. A folder whose
record is already the one the corpus gives is left as it is. Every engine error ends in one line on
stderr, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.corpus.choice import CorpusChoice  # noqa: E402
from engine.corpus.data import SPLIT_RULE_TEXT  # noqa: E402
from engine.files.paths import SHIPPED_MODELS, TATOEBA_CORPUS  # noqa: E402
from engine.files.safe_open import read_capped  # noqa: E402
from engine.files.stored import bytes_sha256  # noqa: E402
from engine.models.bundle import load_model_folder  # noqa: E402
from engine.models.config_file import read_config  # noqa: E402
from engine.models.model_files import CONFIG_FILE, model_file_names, replace_model_files  # noqa: E402
from engine.settings.errors import EngineError  # noqa: E402
from engine.text.training_words import (  # noqa: E402
    CONFIG_KEY,
    WORDS_FILE,  # noqa: E402
    TrainingWords,
    collect_training_words,
)
from engine.training.jobs import load_corpus  # noqa: E402
from engine.training.run_lock import unless_training  # noqa: E402

MAX_FILE_BYTES = 2 * 1024**3  # a model file read back whole (the weights: at most ~850 MB)


class RecordError(EngineError):
    """A model folder's training words cannot be recorded; the message says which and why."""


def corpus_choice(info: dict, corpus: Path) -> CorpusChoice:
    """How the model recorded in ``info`` (its config.json) read its training data, with ``corpus``
    standing for the corpus file it names."""
    data = info.get("data") or {}
    source, target = info["source_language"], info["target_language"]
    if data.get("task") is not None or info.get("task") is not None:
        return CorpusChoice(task=data.get("task") or info.get("task"), source_language=source,
                            target_language=target)
    if "token_cache" in data:
        raise RecordError("it was trained through the token cache: its training set is not read again here")
    if data.get("corpus") != corpus.name:
        raise RecordError(f"it was trained on {data.get('corpus')!r}, not {corpus.name!r} (give its corpus with "
                          "--corpus)")
    rules = [rule for rule, text in SPLIT_RULE_TEXT.items() if text == data.get("split_rule")]
    if not rules:
        raise RecordError(f"its split rule {str(data.get('split_rule'))[:60]!r} is none of the engine's "
                          f"({', '.join(SPLIT_RULE_TEXT)})")
    return CorpusChoice(corpus=corpus, source_language=source, target_language=target, split_rule=rules[0])


def training_record(info: dict, corpus: Path, cache: dict) -> TrainingWords:
    """The record of the training sources of the model whose config.json is ``info``; its split must
    have the sizes the model recorded. ``cache`` keeps records by how they were read."""
    choice = corpus_choice(info, corpus)
    seed = (info.get("data") or {}).get("seed", 1)
    key = (choice, seed)
    if key not in cache:
        loaded = load_corpus(choice, seed=seed)
        recorded = {part: size for part, size in ((info.get("data") or {}).get("split") or {}).items()
                    if part in ("train", "valid", "test")}
        found = {part: size for part, size in loaded.split.sizes().items() if part in recorded}
        if recorded != found or "train" not in recorded:
            raise RecordError(f"its split does not come out as recorded (recorded {recorded}, read {found}): "
                              "not the corpus it was trained on")
        record = collect_training_words((pair.source for pair in loaded.split.train), choice.source_language)
        if record is None:
            raise RecordError("its training sources hold too many words to record")
        cache[key] = record
    return cache[key]


def record_folder(folder: Path, corpus: Path, cache: dict) -> str:
    """Add the record to ``folder`` (see the module docstring); returns what was done, in words."""
    try:
        info = read_config(folder)
        record = training_record(info, corpus, cache)
    except EngineError as error:
        raise RecordError(f"{folder.name}: {error}") from None
    data = record.to_bytes()
    entry = record.config_entry(data)
    if info.get(CONFIG_KEY) == entry and (folder / WORDS_FILE).is_file() and \
            bytes_sha256(read_capped(folder / WORDS_FILE, len(data) + 1, RecordError)) == entry["sha256"]:
        return f"{folder.name}: already recorded ({entry['words']:,} words, {entry['characters']:,} characters)"
    with unless_training(folder):
        kept = {name: read_capped(folder / name, MAX_FILE_BYTES, RecordError)
                for name in model_file_names(folder) if name not in (CONFIG_FILE, WORDS_FILE)}
        config = {**info, CONFIG_KEY: entry}
        config_bytes = (json.dumps(config, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
        replace_model_files(folder, {**kept, WORDS_FILE: data, CONFIG_FILE: config_bytes})
    after = {name: bytes_sha256(read_capped(folder / name, MAX_FILE_BYTES, RecordError)) for name in kept}
    changed = sorted(name for name in kept if after[name] != bytes_sha256(kept[name]))
    if changed:
        raise RecordError(f"{folder.name}: {', '.join(changed)} changed while the record was added")
    if load_model_folder(folder).translator.training_words != record:
        raise RecordError(f"{folder.name}: the record written does not read back")
    return f"{folder.name}: recorded {entry['words']:,} words, {entry['characters']:,} characters " \
           f"from {record.sentences:,} training sources"


def main() -> int:
    """Parse the command line and run (what it does: the module docstring); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=SHIPPED_MODELS, help="folder of model folders "
                        "(default: the shipped models)")
    parser.add_argument("--corpus", type=Path, default=TATOEBA_CORPUS, help="the corpus file the models name "
                        "(default: the shipped Tatoeba corpus)")
    parser.add_argument("--only", nargs="+", default=None, help="model folder names (default: every one)")
    args = parser.parse_args()
    folders = sorted(f for f in args.models.iterdir() if (f / CONFIG_FILE).is_file()) if args.models.is_dir() else []
    if args.only:
        missing = sorted(set(args.only) - {f.name for f in folders})
        if missing:
            print(f"record_training_words: error: no model folder {', '.join(missing)} in {args.models}",
                  file=sys.stderr)
            return 2
        folders = [f for f in folders if f.name in args.only]
    cache: dict = {}
    try:
        for folder in folders:
            print(record_folder(folder, args.corpus, cache), flush=True)
    except EngineError as error:
        print(f"record_training_words: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
