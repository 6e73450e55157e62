"""Preparing a training run: read the corpus (or generate a task), split it, train the
tokenizers, build the model, and gather the metadata that goes into the model's config.json.

Used by the command line and by the app alike, so both produce identical model folders.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from engine.corpus.corpus_stream import DEFAULT_TOKENIZER_SAMPLE, HELD_OUT_CAPS
from engine.corpus.data import SPLIT_RULE_TEXT, CorpusReport, Split, check_split_rule, read_tsv, split_pairs
from engine.corpus.tasks import TASKS as TASK_BUILDERS
from engine.corpus.tasks import dates
from engine.corpus.token_cache import TokenPairs, corpus_digest, prepare_cached, token_cache_folder
from engine.files.atomic import write_bytes_atomic
from engine.files.stored import file_sha256
from engine.models.bundle import read_config
from engine.networks.device import describe_device, resolve_device
from engine.networks.model import build_model
from engine.settings.config import ModelConfig, ModelShape, TrainConfig
from engine.settings.errors import ConfigError, DataError, ModelFileError, StoredFileError
from engine.text.tokenizer import Tokenizer, TokenizerSettings, train_tokenizer
from engine.training.checkpoint import CHECKPOINT_FOLDER, checkpoint_progress, checkpoint_tokenizers, has_checkpoint
from engine.training.distributed import SINGLE, Distributed, broadcast
from engine.training.trainer import TrainingJob

TATOEBA_ATTRIBUTION = (
    "Sentence pairs from the Tatoeba Project (tatoeba.org), licensed CC-BY 2.0 FR, "
    "as packaged by manythings.org/anki; each pair's contributor is credited in the corpus file."
)
TASKS = tuple(TASK_BUILDERS)  # the built-in tasks' names, from their one registry (engine.corpus.tasks)
DEFAULT_VOCAB = {"zh": 4000, "en": 4000, dates.SOURCE_LANGUAGE: 500, dates.TARGET_LANGUAGE: 300}


@dataclass(frozen=True)
class CorpusChoice:
    """Either a TSV corpus with a direction, or a built-in task."""

    corpus: Path | None = None
    task: str | None = None
    source_language: str = "zh"
    target_language: str = "en"
    split_rule: str = "strict"  # one of engine.corpus.data.SPLIT_RULES (corpus files only)
    token_cache: bool = False  # big corpora: stream the file and train from its on-disk token cache (engine.corpus.token_cache)
    tokenizer_sample: int = DEFAULT_TOKENIZER_SAMPLE  # with token_cache: training pairs the tokenizers learn from

    def __post_init__(self) -> None:
        check_split_rule(self.split_rule)
        if self.token_cache and self.corpus is None:
            raise ConfigError("the token cache is for corpus files; a built-in task is generated, not read")
        if not 1_000 <= self.tokenizer_sample <= 100_000_000:
            raise ConfigError(f"tokenizer_sample must be between 1000 and 100000000; got {self.tokenizer_sample!r}")
        if (self.corpus is None) == (self.task is None):
            raise ConfigError("choose exactly one of a corpus file or a built-in task")
        if self.task is not None and self.task not in TASKS:
            raise ConfigError(f"unknown task {self.task!r}; valid: {', '.join(TASKS)}")

    @staticmethod
    def dates_task() -> CorpusChoice:
        return CorpusChoice(task="dates", source_language=dates.SOURCE_LANGUAGE,
                            target_language=dates.TARGET_LANGUAGE)


@dataclass(frozen=True)
class VocabularySizes:
    """SentencePiece vocabulary sizes asked for; 0 takes the engine's size for the language
    (``DEFAULT_VOCAB``). A small corpus may still shrink them (engine.text.tokenizer)."""

    source: int = 0
    target: int = 0

    def __post_init__(self) -> None:
        for side in ("source", "target"):
            value = getattr(self, side)
            if not (value == 0 or 8 <= value <= 1_000_000):
                raise ConfigError(f"{side} vocabulary must be 0 (the language's default) or between 8 and "
                                  f"1000000; got {value!r}")

    def resolved(self, choice: CorpusChoice) -> tuple[int, int]:
        """The source and target sizes actually asked of SentencePiece."""
        return (self.source or DEFAULT_VOCAB.get(choice.source_language, 4000),
                self.target or DEFAULT_VOCAB.get(choice.target_language, 4000))


@dataclass(frozen=True)
class LoadedCorpus:
    split: Split
    report: CorpusReport | None  # None for generated tasks
    summary: dict[str, Any]  # what config.json records about the data


def load_corpus(choice: CorpusChoice, seed: int = 1, for_training: bool = True) -> LoadedCorpus:
    """Read and split the corpus (or generate the task). Training needs at least 50 training pairs
    and one validation pair; evaluating a file (``for_training=False``) needs only one pair."""
    if choice.task == "dates":
        split = dates.dates_split(seed=seed)
        summary = {"task": "dates", "seed": seed, "split": split.sizes(),
                   "attribution": "generated by Attention Studio's dates task"}
        return LoadedCorpus(split, None, summary)
    pairs, report = read_tsv(choice.corpus, choice.source_language, choice.target_language)
    if report.suggestion:
        raise DataError(report.suggestion)
    split = split_pairs(pairs, choice.split_rule)
    if not for_training:
        if not pairs:
            raise DataError(f"{choice.corpus}: no usable sentence pairs to evaluate on")
    elif len(split.train) < 50 or not split.valid:
        raise DataError(
            f"{choice.corpus}: too little data to train ({len(split.train)} training and {len(split.valid)} "
            "validation pairs; at least 50 and 1 needed)"
        )
    summary = {**_corpus_summary(choice, report), "split": split.sizes(),
               "split_rule": SPLIT_RULE_TEXT[choice.split_rule], "attribution": _attribution(choice)}
    return LoadedCorpus(split, report, summary)


def _corpus_summary(choice: CorpusChoice, report: CorpusReport) -> dict[str, Any]:
    """What config.json records of a corpus file as it was read."""
    return {"corpus": Path(choice.corpus).name, "lines_read": report.lines_read, "pairs": report.pairs_kept,
            "duplicates_removed": report.duplicates_removed, "lines_skipped": report.skipped_count}


def _attribution(choice: CorpusChoice) -> str:
    return (TATOEBA_ATTRIBUTION if "cmn-eng" in Path(choice.corpus).name else
            "see the corpus file's attribution column")


def run_request(model_config: ModelConfig, choice: CorpusChoice,
                identity: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a run was asked for that a resumed run must not change: the architecture and the data
    (with ``identity``, the corpus file's content: :func:`corpus_identity`)."""
    return {"model": model_config.to_dict(), "source_language": choice.source_language,
            "target_language": choice.target_language, "task": choice.task,
            "corpus": Path(choice.corpus).name if choice.corpus else None, **(identity or {})}


def corpus_identity(choice: CorpusChoice) -> dict[str, Any]:
    """The corpus file's sha256 and size: a resume compares them, since another file may come under
    the same name. A token-cached corpus's digest is the one the cache remembers (engine.corpus.token_cache:
    a big file is not read again while its size and time are unchanged)."""
    if choice.corpus is None:
        return {}
    path = Path(choice.corpus)
    try:
        size = path.stat().st_size
        digest = corpus_digest(path, token_cache_folder()) if choice.token_cache else file_sha256(path)
    except (OSError, StoredFileError) as error:
        raise DataError(f"cannot read the corpus {path}: {error}") from None
    return {"corpus_sha256": digest, "corpus_bytes": size}


CONTENT_KEYS = ("corpus_sha256", "corpus_bytes")  # the corpus file's content, compared as one difference


def check_resume_request(run_folder: Path, request: dict[str, Any]) -> None:
    """Refuse a --resume whose options contradict the run it continues, naming each difference.

    The run's own request is kept in its checkpoint; a run from before that is compared with the
    architecture and languages of the model it has saved (its config.json), when there is one."""
    stored = stored_run_request(run_folder)
    if stored is None:
        return
    differences = [*_setting_differences(stored, request), *_corpus_content_difference(stored, request)]
    if differences:
        raise ConfigError(f"--resume continues the run in {run_folder}, which was started with "
                          f"{'; '.join(differences)}: give the run's own options, or start a new run elsewhere")


def _setting_differences(stored: dict[str, Any], request: dict[str, Any]) -> list[str]:
    """The architecture's and the data's settings that differ, as 'name had (asked: wanted)'."""
    differences = []
    for key, value in request.items():
        if key == "model":
            had_model = stored.get("model") or {}
            differences += [f"{name} {had_model[name]} (asked: {wanted})" for name, wanted in value.items()
                            if had_model.get(name, wanted) != wanted]
        elif key not in CONTENT_KEYS and key in stored and stored[key] != value:
            differences.append(f"{key} {stored[key]} (asked: {value})")
    return differences


def _corpus_content_difference(stored: dict[str, Any], request: dict[str, Any]) -> list[str]:
    """Another file under the corpus's name: its content differs (when both runs recorded it)."""
    content = [(stored.get(key), request.get(key)) for key in CONTENT_KEYS]
    if any(had is None or asked is None for had, asked in content) or all(had == asked for had, asked in content):
        return []
    (had_sha, asked_sha), (had_size, asked_size) = content
    return [f"another corpus under the name {request.get('corpus')} ({had_size:,} bytes, sha256 "
            f"{had_sha[:12]}…; asked: {asked_size:,} bytes, sha256 {asked_sha[:12]}…)"]


def stored_run_request(run_folder: Path) -> dict[str, Any] | None:
    progress = checkpoint_progress(run_folder) or {}
    if isinstance(progress.get("request"), dict):
        return progress["request"]
    try:
        info = read_config(run_folder)
    except ModelFileError:
        return None
    return {"model": info.get("model") or {}, "source_language": info.get("source_language"),
            "target_language": info.get("target_language")}


def _samples(split: Split) -> tuple[tuple[str, str], ...]:
    """Three fixed validation pairs (short, medium, long) shown after every validation."""
    ordered = sorted(split.valid, key=lambda p: (len(p.source), p.source))
    if not ordered:
        return ()
    picks = [ordered[int(q * (len(ordered) - 1))] for q in (0.3, 0.6, 0.9)]
    return tuple((p.source, p.target) for p in picks)


def hardware_summary() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPU cores, torch {torch.__version__}"


def prepare_job(
    choice: CorpusChoice,
    run_folder: Path,
    model_shape: ModelShape,
    train_config: TrainConfig,
    vocabularies: VocabularySizes = VocabularySizes(),
    resume: bool = False,
    command: str = "",
    storage_dtype: str = "float32",
    on_status: Callable[[str], None] = lambda message: None,
    distributed: Distributed = SINGLE,
) -> tuple[TrainingJob, LoadedCorpus]:
    """Everything up to the first batch: the model is ``model_shape`` with the vocabularies its
    tokenizers come out with. With ``resume`` and a checkpoint in ``run_folder``,
    the run's own tokenizers are reused so that ids keep their meaning. Under torchrun
    (``distributed``), rank 0 alone trains (or reads) the tokenizers and writes them; the other
    ranks receive them, so every rank cuts the text into the same ids."""
    run_folder = Path(run_folder)
    source_size, target_size = vocabularies.resolved(choice)
    settings = (TokenizerSettings.for_language(choice.source_language, source_size),
                TokenizerSettings.for_language(choice.target_language, target_size))
    if choice.token_cache:
        loaded, train_pairs, tokenizers = _cached_corpus(choice, run_folder, settings, train_config, resume,
                                                         on_status, distributed)
    else:
        on_status("reading the corpus")
        loaded, train_pairs = load_corpus(choice, seed=train_config.seed), None
        tokenizers = _shared_tokenizers(loaded, run_folder, settings, resume, on_status, distributed)
    model_config = model_shape.with_vocabularies(tokenizers[0].vocab_size, tokenizers[1].vocab_size)
    request = run_request(model_config, choice, corpus_identity(choice) if distributed.is_main else None)
    if resume and distributed.is_main and has_checkpoint(run_folder):
        check_resume_request(run_folder, request)
    job = TrainingJob(
        model=build_model(model_config, seed=train_config.seed), source_tokenizer=tokenizers[0],
        target_tokenizer=tokenizers[1], split=loaded.split, source_language=choice.source_language,
        target_language=choice.target_language, train_config=train_config, run_folder=run_folder,
        metadata=_metadata(choice, command, loaded, settings, tokenizers, train_config, distributed),
        samples=_samples(loaded.split), storage_dtype=storage_dtype, request=request, distributed=distributed,
        corpus_path=Path(choice.corpus).resolve() if choice.corpus else None, train_pairs=train_pairs,
    )
    return job, loaded


def _metadata(choice: CorpusChoice, command: str, loaded: LoadedCorpus,
              settings: tuple[TokenizerSettings, TokenizerSettings], tokenizers: tuple[Tokenizer, Tokenizer],
              train_config: TrainConfig, distributed: Distributed) -> dict[str, Any]:
    """What the model folder's config.json records about the run besides the model."""
    return {
        "source_language": choice.source_language,
        "target_language": choice.target_language,
        "simplify_chinese": True,
        "task": choice.task,
        "command": command,
        "data": loaded.summary,
        "tokenizer_settings": {
            "source": {**settings[0].__dict__, "vocab_size_trained": tokenizers[0].vocab_size},
            "target": {**settings[1].__dict__, "vocab_size_trained": tokenizers[1].vocab_size},
        },
        "training": {"hardware": hardware_summary(), "device": describe_device(resolve_device(train_config.device)),
                     "processes": distributed.world_size,
                     "torch_threads": train_config.torch_threads or torch.get_num_threads()},
    }


def _shared_tokenizers(loaded: LoadedCorpus, run_folder: Path, settings: tuple[TokenizerSettings, TokenizerSettings],
                       resume: bool, on_status: Callable[[str], None],
                       distributed: Distributed) -> tuple[Tokenizer, Tokenizer]:
    """The run's tokenizers (:func:`_run_tokenizers`) on rank 0; under torchrun the other ranks
    receive them from it."""
    model_bytes = None
    if distributed.is_main:
        tokenizers = _run_tokenizers(loaded, run_folder, settings, resume, on_status)
        model_bytes = (tokenizers[0].model_bytes, tokenizers[1].model_bytes)
    if not distributed.active:
        return tokenizers
    model_bytes = broadcast(distributed, model_bytes)
    return tokenizers if distributed.is_main else (Tokenizer(model_bytes[0]), Tokenizer(model_bytes[1]))


def _cached_corpus(choice: CorpusChoice, run_folder: Path, settings: tuple[TokenizerSettings, TokenizerSettings],
                   train_config: TrainConfig, resume: bool, on_status: Callable[[str], None],
                   distributed: Distributed) -> tuple[LoadedCorpus, TokenPairs, tuple[Tokenizer, Tokenizer]]:
    """A corpus file through the token cache (engine.corpus.token_cache): the held-out pairs, the training
    pairs as memory-mapped ids and the tokenizers — a resumed run's own, so that ids keep their
    meaning. Under torchrun rank 0 builds the cache first; the other ranks then find it (or, on a
    node that does not share the folder, build the same one)."""
    if train_config.concat_share > 0 or train_config.subword_alpha > 0:
        raise ConfigError("long examples and subword regularization re-read the training text each epoch; with "
                          "the token cache set concat_share and subword_alpha to 0 (--concat-share 0 "
                          "--subword-alpha 0)")
    own = _own_tokenizers(run_folder) if resume else None

    def prepare(report: Callable[[str], None] = lambda message: None):
        return prepare_cached(Path(choice.corpus), choice.source_language, choice.target_language,
                              choice.split_rule, settings, choice.tokenizer_sample, own, on_status=report)

    cached = prepare(on_status) if distributed.is_main else None
    if distributed.active:
        broadcast(distributed, True)  # the others wait until rank 0's cache is complete
        if not distributed.is_main:
            cached = prepare()
    tokenizers = (cached.source_tokenizer, cached.target_tokenizer)
    if distributed.is_main and own is None:
        _write_tokenizers(run_folder, tokenizers)
    report, split = cached.report, cached.split
    summary = {
        **_corpus_summary(choice, report), "split": {**split.sizes(), "train": len(cached.train_pairs)},
        "split_rule": SPLIT_RULE_TEXT[choice.split_rule], "token_cache": cached.folder.name,
        "tokenizer_sample": choice.tokenizer_sample, "held_out_caps": HELD_OUT_CAPS,
        "attribution": _attribution(choice),
    }
    on_status(f"token cache {'reused' if cached.reused else 'built'}: {len(cached.train_pairs):,} training pairs")
    return LoadedCorpus(split, report, summary), cached.train_pairs, tokenizers


def _own_tokenizers(run_folder: Path) -> tuple[Tokenizer, Tokenizer] | None:
    """A resumed run's own tokenizers (checked against its checkpoint: engine.training.checkpoint), or None."""
    if not has_checkpoint(run_folder):
        return None
    stored = checkpoint_tokenizers(run_folder)
    return None if stored is None else (Tokenizer(stored[0]), Tokenizer(stored[1]))


def _run_tokenizers(loaded: LoadedCorpus, run_folder: Path, settings: tuple[TokenizerSettings, TokenizerSettings],
                    resume: bool, on_status: Callable[[str], None]) -> tuple[Tokenizer, Tokenizer]:
    """A resumed run's own tokenizers, or new ones trained on the training split and written to
    the run folder."""
    own = _own_tokenizers(run_folder) if resume else None
    if own is not None:
        return own
    on_status("training the tokenizers")
    tokenizers = (train_tokenizer((p.source for p in loaded.split.train), settings[0]),
                  train_tokenizer((p.target for p in loaded.split.train), settings[1]))
    _write_tokenizers(run_folder, tokenizers)
    return tokenizers


def _write_tokenizers(run_folder: Path, tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """The run's own tokenizers, kept beside its checkpoint (a resume reads them back)."""
    tokenizer_folder = run_folder / CHECKPOINT_FOLDER
    try:
        tokenizer_folder.mkdir(parents=True, exist_ok=True)
        for name, tokenizer in zip(("src.model", "tgt.model"), tokenizers, strict=True):
            write_bytes_atomic(tokenizer_folder / name, tokenizer.model_bytes)
    except OSError as error:
        raise DataError(f"cannot write to the run folder {run_folder}: {error.strerror or error}") from None
