"""The peer at the same budget: Joey NMT 2.3 trained on our split to our token budget, and decoded on our test pairs.

    .venv/bin/python bench/peer_joey.py [--models rnn transformer] [--budget-tokens 40000000] [--threads 1]
        [--out build/peer] [--venv build/peer/venv] [--smoke]

The quality report's 25-minute Joey NMT row is unfair in our favour: our shipped models trained to 40 M target
tokens, Joey for 25 minutes. This script gives Joey the same budget, on the same data, and writes the figures the
quality report puts beside that row (``scripts/quality_render.py``).

What it does, every step skipped when its output is already there (rerun the same command as often as you like):

1. **Its own environment** (``--venv``, default ``build/peer/venv``; never the project's): ``python3 -m venv``,
   then ``pip install torch==2.13.0`` first (the CPU build lies on local disk for pip; an unpinned torch would
   pull a multi-GB CUDA build), then ``pip install --no-deps joeynmt==2.3.0`` and the packages Joey imports at
   run time, pinned (``PEER_REQUIREMENTS``) and resolved under the constraint ``torch==2.13.0`` — Joey's own
   requirement list also names ``datasets``, ``pylint``, ``pytest``, ``plotly``, ``pandas`` and a ``protobuf<3.21``
   that the training and decoding of plain-text files never import. SentencePiece is pinned to 0.2.0, the
   release of Joey 2.3's time: 0.2.3, the newest, no longer has the CamelCase methods Joey's tokenizer calls
   (``SetVocabulary``: ``AttributeError`` when the data loads), so a version pin, not a patch, keeps it working.
2. **The one source patch** Joey 2.3.0 needs under torch 2.13, applied to the installed package as a recorded,
   idempotent text replacement (``PATCHES``; each application is logged to ``build/peer/venv/joey-patches.json``):

   ``joeynmt/builders.py``, ``build_scheduler``: the line ``"verbose": False,`` is removed from the keyword
   arguments of ``torch.optim.lr_scheduler.ReduceLROnPlateau``. PyTorch deprecated that argument in 2.2 and has
   since removed it, so under torch 2.13 every run with ``scheduling: "plateau"`` stopped at once with
   ``TypeError: ReduceLROnPlateau.__init__() got an unexpected keyword argument 'verbose'``. ``verbose=False``
   only silenced a message, so removing it changes no computation.

   Joey's ``torch.load`` calls keep torch's newer default ``weights_only=True``: its checkpoints hold only tensors,
   numbers, strings and lists, which that loader accepts (a smoke run killed and rerun loads one back to resume, and
   every run to decode), so they need no patch.
3. **Our split, exported** (``data/``): the engine's own strict split (``engine.training.jobs.load_corpus``, the rule of
   ``engine.corpus.data.split_pairs``: test = the pairs whose English sha256 digest starts with ``0``, valid = ``1``, and
   no training pair shares a source sentence with them) of the Tatoeba corpus, zh→en, as Joey's plain-text
   files ``{train,dev,test}.{zh,en}``, the sentences as the engine normalized them; ``split.json`` records the
   counts. Then Joey's own SentencePiece vocabularies, 4000 pieces per side, trained on the training sentences
   as Joey's ``scripts/build_vocab.py`` trains them (``bench/peer_joey_side.py spm``; character coverage 1.0
   unless the Chinese side has more distinct characters than that leaves room for: then the engine's
   ``coverage_that_fits``).
4. **Two Joey configs** (``rnn/``, ``transformer/``): Joey's GRU encoder–decoder with Bahdanau (additive)
   attention (bidirectional GRU encoder, input feeding, bridge), and Joey's Transformer (2 layers, as our shipped one, 4 heads,
   model size 256, feed-forward 1024, pre-norm), each at our sizes: embeddings 256, RNN hidden 256, dropout 0.3,
   output layer tied to the target embeddings. Batches of 64 sentences, Adam, label smoothing 0.1, the loss per
   target token, gradients clipped at norm 1.0, Joey's plateau scheduler on valid BLEU (greedy, validated once
   per epoch of Joey's: the validation interval is the steps of an epoch, rounded to the logging interval),
   the rate halved after 3 validations in a row without a better score (``patience: 2``, as our recipe), from
   0.002 (RNN, our rate) or 0.0005 (Transformer: a plateau schedule has no warm-up, and 0.002 is past what a
   post-warm-up Transformer of this size trains at).
5. **The budget.** Joey counts no token budget, so it is turned into steps before training: Joey's own data
   pipeline (``bench/peer_joey_side.py count``: its tokenizer and length filter) gives the target tokens of one
   epoch (each sentence's pieces plus its ``</s>``, what Joey's ``Batch.ntokens`` adds up) and the steps of one
   epoch (batches of 64, the last one kept), and Joey's ``updates`` is set to ``ceil(budget × steps / tokens)``:
   every epoch holds every training sentence once, so that many steps see the budget, give or take a batch. The
   tokens actually seen are read back from Joey's checkpoint (``stats_state.total_tokens``). **Early stopping**
   is Joey's own: training ends when the plateau schedule has taken the rate below ``learning_rate_min``, set
   between the 7th and the 8th halving (our runs' rate went as low before their early stopping); whichever
   comes first ends the run, and the results say which did.
6. **Resumable after a kill.** Each sitting trains in a new folder ``MODEL/part-N`` (Joey refuses to write
   into an existing model folder); from the second on, its config's ``load_model`` is the previous part's latest
   checkpoint, with the optimizer, scheduler, best-score tracking and sampler state kept (Joey's
   ``reset_*: false``). Every validation writes a checkpoint (``keep_best_ckpts: -1``), and this script deletes
   a part's older ones as newer ones appear (never ``latest`` or ``best``), so a kill loses at most one epoch.
   SIGTERM and Ctrl-C reach Joey as SIGINT, which it answers by saving a checkpoint. A model whose training
   ended on its own (early stopping, the budget) has ``finished.json`` and is not trained again. (Joey's own
   resume goes on at the step and token count it saved, and restarts the interrupted epoch's pass over the data
   with its sampler's saved random state: not bit-exact, as our build's resume is.) The exit status is 0 when
   every model asked for has finished, 3 when the sitting stopped before.
7. **Decoding and scoring**: the best checkpoint (by valid BLEU) decodes the test split greedily and with beam 5
   and Joey's own length penalty (``beam_alpha`` 1.0, the value Joey's published configs use; Joey's code
   default, -1, turns the penalty off), by ``python -m joeynmt test``. The hypotheses are scored here with the
   quality report's own function (``engine.evaluation.evaluate.corpus_scores``: sacrebleu, detokenized, the same
   signature). ``OUT/results.json`` gets one row per model: BLEU and chrF greedy / beam 5, training hours (the
   wall clock of Joey's logs, from each sitting's first line to its last: loading and validations included),
   target tokens seen (in all, and at the best checkpoint), steps, epochs, parameters, and how the run ended.
   A full run (not ``--smoke``) also merges its finished rows into ``docs/quality-peer.json``, which
   ``scripts/quality_render.py`` puts beside the 25-minute row.

``--smoke`` proves the whole path in a few minutes: the same install, split, vocabularies and configs, a budget
of 30,000 target tokens (validated twice), and the first 100 valid and test pairs only; into ``OUT/smoke``, never
into the docs. The full runs take hours per model on one core.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.settings.scorer_table import SCORER_TABLE  # noqa: E402
from scripts.build_shipped_models import TRANSFORMER_SHAPE  # noqa: E402

SIDE = Path(__file__).resolve().parent / "peer_joey_side.py"
JOEY_VERSION = "2.3.0"
TORCH_VERSION = "2.13.0"
# What Joey imports when it trains on and decodes plain-text files, pinned as first installed under torch 2.13.
PEER_REQUIREMENTS = ("numpy==2.4.6", "pyyaml==6.0.4", "sacrebleu==2.6.0", "sentencepiece==0.2.0",
                     "subword-nmt==0.3.8", "tqdm==4.70.1", "importlib_metadata==10.2.0", "tensorboard==2.21.0",
                     "matplotlib==3.11.2", "packaging==26.4")
MODELS = ("rnn", "transformer")
MODEL_LABELS = {"rnn": "Joey NMT 2.3 GRU + Bahdanau (peer, same budget)",
                "transformer": "Joey NMT 2.3 Transformer (peer, same budget)"}
DEFAULT_BUDGET = 40_000_000
SMOKE_BUDGET = 30_000
SMOKE_HELD_OUT = 100  # valid and test pairs a smoke run keeps
SOURCE, TARGET = "zh", "en"
VOCABULARY = 4000
BATCH_SENTENCES = 64
EMBEDDINGS, HIDDEN, DROPOUT = 256, 256, 0.3
# Joey's Transformer at the sizes our shipped Transformer was built with (its recipe, scripts/build_shipped_models.py),
# with our registry's number of heads.
TRANSFORMER = {"layers": int(TRANSFORMER_SHAPE["--transformer-layers"]), "heads": SCORER_TABLE["transformer"].heads,
               "size": int(TRANSFORMER_SHAPE["--embedding-size"]),
               "feed_forward": int(TRANSFORMER_SHAPE["--feedforward-size"])}
LEARNING_RATE = {"rnn": 0.002, "transformer": 0.0005}
PATIENCE, DECREASE = 2, 0.5
HALVINGS = 7.5  # learning_rate_min: between the 7th and the 8th halving, so the 8th ends the run
BEAM_ALPHA = 1.0
MAX_PIECES = 256  # Joey's length filter on training sentences: none of ours is longer
REPORT = ROOT / "docs" / "quality-peer.json"


@dataclass(frozen=True)
class Patch:
    """One text replacement in an installed file of Joey's, and why."""

    path: str  # relative to site-packages
    old: str
    new: str
    why: str


PATCHES = (
    Patch("joeynmt/builders.py", '            "mode": scheduler_mode,\n            "verbose": False,\n',
          '            "mode": scheduler_mode,\n',
          "torch.optim.lr_scheduler.ReduceLROnPlateau has no 'verbose' argument in torch 2.13 (deprecated in 2.2, "
          "then removed): the plateau scheduler raised TypeError at its construction"),
)


def apply_patch(text: str, patch: Patch) -> tuple[str, str]:
    """(the patched text, 'applied' | 'already applied'); raises ValueError when the text is neither."""
    if patch.old in text:
        return text.replace(patch.old, patch.new, 1), "applied"
    if patch.new in text:
        return text, "already applied"
    raise ValueError(f"{patch.path}: neither the text to replace nor its replacement found")


# ---------------------------------------------------------------------------------------------- the environment


def venv_python(venv: Path) -> Path:
    """The Python interpreter of the virtual environment ``venv``."""
    return venv / "bin" / "python"


def installed_versions(venv: Path) -> dict[str, str]:
    """name → version of the packages the environment holds (empty when there is none)."""
    if not venv_python(venv).is_file():
        return {}
    result = subprocess.run([str(venv_python(venv)), "-m", "pip", "list", "--format", "json"],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return {}
    return {row["name"].lower().replace("_", "-"): row["version"] for row in json.loads(result.stdout)}


def install_needed(versions: dict[str, str]) -> list[str]:
    """What is missing or of another version: torch (its CPU build counts), joeynmt, PEER_REQUIREMENTS."""
    wanted = {"torch": TORCH_VERSION, "joeynmt": JOEY_VERSION}
    wanted |= {name.split("==")[0].lower().replace("_", "-"): name.split("==")[1] for name in PEER_REQUIREMENTS}
    return sorted(name for name, version in wanted.items() if versions.get(name, "").split("+")[0] != version)


def ensure_environment(venv: Path) -> None:
    """Create and fill Joey's environment where anything is missing, then apply the patches."""
    missing = install_needed(installed_versions(venv))
    if missing:
        print(f"peer environment {venv}: installing {', '.join(missing)}", flush=True)
        if not venv_python(venv).is_file():
            subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
        pip = [str(venv_python(venv)), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, f"torch=={TORCH_VERSION}"], check=True)  # first: the CPU build on local disk
        subprocess.run([*pip, "--no-deps", f"joeynmt=={JOEY_VERSION}"], check=True)
        constraints = venv / "torch-constraint.txt"
        constraints.write_text(f"torch=={TORCH_VERSION}\n", encoding="utf-8")
        subprocess.run([*pip, "-c", str(constraints), *PEER_REQUIREMENTS], check=True)
        still = install_needed(installed_versions(venv))
        if still:
            raise SystemExit(f"peer environment: still missing or of another version after installing: {still}")
    patch_joey(venv)


def site_packages(venv: Path) -> Path:
    """The joeynmt package folder installed in ``venv`` (exits when there is none)."""
    found = sorted(venv.glob("lib/python3*/site-packages/joeynmt"))
    if not found:
        raise SystemExit(f"joeynmt is not installed in {venv}")
    return found[0].parent


def patch_joey(venv: Path) -> list[dict]:
    """Apply PATCHES to the installed Joey (idempotent); record what was done in the environment."""
    records = []
    for patch in PATCHES:
        path = site_packages(venv) / patch.path
        patched, state = apply_patch(path.read_text(encoding="utf-8"), patch)
        if state == "applied":
            path.write_text(patched, encoding="utf-8")
            for cached in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
                cached.unlink()
        records.append({"file": patch.path, "removed": patch.old, "inserted": patch.new, "why": patch.why,
                        "state": state})
    (venv / "joey-patches.json").write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    return records


def side(venv: Path, *arguments: str, threads: int = 1) -> dict:
    """Run bench/peer_joey_side.py in Joey's environment; its last line of output, as JSON."""
    result = subprocess.run([str(venv_python(venv)), str(SIDE), *arguments], capture_output=True, text=True,
                            env=thread_environment(threads), check=False)
    if result.returncode != 0:
        raise SystemExit(f"peer_joey_side.py {arguments[0]} failed:\n{result.stderr[-4000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def thread_environment(threads: int) -> dict[str, str]:
    """The environment of a child process limited to ``threads`` CPU threads."""
    return {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
            "PYTHONUNBUFFERED": "1"}


# ------------------------------------------------------------------------------------------------- the split


def split_of_corpus(corpus: Path | None = None):
    """The engine's strict zh→en split of the corpus (engine.training.jobs.load_corpus: the rule of engine.corpus.data.split_pairs)."""
    from engine.corpus.choice import CorpusChoice
    from engine.files.paths import TATOEBA_CORPUS
    from engine.training.jobs import load_corpus

    choice = CorpusChoice(corpus=corpus or TATOEBA_CORPUS, source_language=SOURCE, target_language=TARGET,
                          split_rule="strict")
    return load_corpus(choice).split


def _write_if_changed(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _one_line(sentence: str) -> str:
    if "\n" in sentence or "\r" in sentence:
        raise ValueError(f"a sentence holds a line break: {sentence!r}")
    return sentence


def export_split(split, folder: Path, held_out_limit: int = 0) -> dict[str, int]:
    """Joey's plain-text files of ``split`` in ``folder`` ({train,dev,test}.{zh,en}); valid and test cut to their
    first ``held_out_limit`` pairs when it is not 0. Returns the counts written (also in split.json)."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = {"train": split.train, "dev": split.valid, "test": split.test}
    counts = {}
    for name, pairs in parts.items():
        if held_out_limit and name != "train":
            pairs = pairs[:held_out_limit]
        counts[name] = len(pairs)
        _write_if_changed(folder / f"{name}.{SOURCE}", "".join(_one_line(p.source) + "\n" for p in pairs))
        _write_if_changed(folder / f"{name}.{TARGET}", "".join(_one_line(p.target) + "\n" for p in pairs))
    summary = {**counts, "train_removed_overlap": split.train_removed_overlap, "split_rule": "strict",
               "held_out_limit": held_out_limit}
    _write_if_changed(folder / "split.json", json.dumps(summary, indent=1) + "\n")
    return counts


def _digest(*paths: Path) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def ensure_vocabularies(venv: Path, data: Path, threads: int) -> dict[str, dict]:
    """Joey's SentencePiece models and vocabulary files, one per side, from the training sentences; kept while the
    training text is the same."""
    from engine.text.tokenizer import TokenizerSettings, coverage_that_fits

    made = {}
    for lang in (SOURCE, TARGET):
        text = data / f"train.{lang}"
        stamp_path = data / f"spm.{lang}.json"
        stamp = json.loads(stamp_path.read_text(encoding="utf-8")) if stamp_path.is_file() else {}
        model, vocab = data / f"spm.{lang}.model", data / f"vocab.{lang}.txt"
        if stamp.get("train_sha256") == _digest(text) and model.is_file() and vocab.is_file():
            made[lang] = stamp
            continue
        settings = TokenizerSettings(vocab_size=VOCABULARY, character_coverage=1.0, byte_fallback=False)
        coverage = coverage_that_fits(text.read_text(encoding="utf-8").splitlines(), settings)
        result = side(venv, "spm", str(text), str(model), str(vocab), lang, str(VOCABULARY), str(coverage),
                      threads=threads)
        made[lang] = {**result, "train_sha256": _digest(text)}
        stamp_path.write_text(json.dumps(made[lang], indent=1) + "\n", encoding="utf-8")
    return made


# ----------------------------------------------------------------------------------------------- the configs


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        if "." not in mantissa:
            mantissa += ".0"  # YAML 1.1 (PyYAML) reads a float only with a dot: "1e-05" would be a string
        if exponent and exponent[0] not in "+-":
            exponent = "+" + exponent
        return mantissa + (f"e{exponent}" if exponent else "")
    return json.dumps(str(value), ensure_ascii=False)  # a double-quoted YAML string


def to_yaml(mapping: dict, indent: int = 0) -> str:
    """Block-style YAML of nested dicts whose leaves are scalars or lists of scalars (what a Joey config holds)."""
    lines = []
    pad = "  " * indent
    for key, value in mapping.items():
        if isinstance(value, dict):
            lines.append(f"{pad}{key}:")
            lines.append(to_yaml(value, indent + 1).rstrip("\n"))
        elif isinstance(value, list | tuple):
            lines.append(f"{pad}{key}: [{', '.join(_yaml_scalar(item) for item in value)}]")
        else:
            lines.append(f"{pad}{key}: {_yaml_scalar(value)}")
    return "\n".join(lines) + "\n"


def data_section(data: Path, with_train: bool = True, with_dev: bool = True) -> dict:
    """Joey NMT's ``data`` configuration section for the prepared files in ``data``."""
    def side_cfg(lang: str) -> dict:
        return {"lang": lang, "level": "bpe", "lowercase": False, "normalize": False, "max_length": MAX_PIECES,
                "min_length": 1, "voc_file": str(data / f"vocab.{lang}.txt"), "tokenizer_type": "sentencepiece",
                "tokenizer_cfg": {"model_file": str(data / f"spm.{lang}.model")}}

    section: dict[str, Any] = {}
    if with_train:
        section["train"] = str(data / "train")
    if with_dev:
        section["dev"] = str(data / "dev")
    section["test"] = str(data / "test")
    section |= {"dataset_type": "plain", "src": side_cfg(SOURCE), "trg": side_cfg(TARGET)}
    return section


def model_section(model: str) -> dict:
    """Joey's GRU + Bahdanau encoder–decoder or its Transformer, at our sizes."""
    if model == "rnn":
        embeddings = {"embedding_dim": EMBEDDINGS, "scale": False, "dropout": DROPOUT}
        encoder = {"type": "recurrent", "rnn_type": "gru", "embeddings": embeddings, "hidden_size": HIDDEN,
                   "bidirectional": True, "num_layers": 1, "dropout": DROPOUT}
        decoder = {"type": "recurrent", "rnn_type": "gru", "embeddings": embeddings, "hidden_size": HIDDEN,
                   "attention": "bahdanau", "num_layers": 1, "dropout": DROPOUT, "hidden_dropout": DROPOUT,
                   "input_feeding": True, "init_hidden": "bridge"}
    elif model == "transformer":
        size = TRANSFORMER["size"]
        embeddings = {"embedding_dim": size, "scale": True, "dropout": DROPOUT}
        layers = {"type": "transformer", "num_layers": TRANSFORMER["layers"], "num_heads": TRANSFORMER["heads"],
                  "embeddings": embeddings, "hidden_size": size, "ff_size": TRANSFORMER["feed_forward"],
                  "dropout": DROPOUT, "layer_norm": "pre"}
        encoder, decoder = dict(layers), dict(layers)
    else:
        raise ValueError(f"model must be one of {', '.join(MODELS)}; got {model!r}")
    return {"initializer": "xavier_uniform", "bias_initializer": "zeros", "init_gain": 1.0,
            "embed_initializer": "xavier_uniform", "embed_init_gain": 1.0, "tied_embeddings": False,
            "tied_softmax": True, "encoder": encoder, "decoder": decoder}


@dataclass(frozen=True)
class Schedule:
    """The steps that see the token budget, and the logging and validation intervals."""

    updates: int
    epochs: int
    logging_freq: int
    validation_freq: int


def schedule(budget_tokens: int, tokens_per_epoch: int, steps_per_epoch: int) -> Schedule:
    """Joey's ``updates`` from the budget (ceil(budget × steps per epoch / tokens per epoch)), an epoch cap one past
    it, and a validation once per epoch — or twice in all when the budget is shorter than an epoch."""
    updates = max(1, math.ceil(budget_tokens * steps_per_epoch / tokens_per_epoch))
    epochs = math.ceil(budget_tokens / tokens_per_epoch) + 1
    logging_freq = 50 if min(updates, steps_per_epoch) >= 500 else 10 if updates >= 20 else 1
    every = steps_per_epoch if updates >= steps_per_epoch else max(updates // 2, 1)
    validation_freq = max(logging_freq, round(every / logging_freq) * logging_freq)
    return Schedule(updates, epochs, logging_freq, validation_freq)


def train_config(model: str, part: Path, data: Path, plan: Schedule, load_model: Path | None = None) -> dict:
    """A Joey 2.3 config: train ``model`` into ``part`` (continuing from ``load_model``, everything kept)."""
    rate = LEARNING_RATE[model]
    training: dict[str, Any] = {
        "random_seed": 42, "optimizer": "adam", "adam_betas": [0.9, 0.999], "learning_rate": rate,
        "learning_rate_min": rate * 2 ** -HALVINGS, "scheduling": "plateau", "patience": PATIENCE,
        "decrease_factor": DECREASE, "weight_decay": 0.0, "clip_grad_norm": 1.0, "loss": "crossentropy",
        "label_smoothing": 0.1, "normalization": "tokens", "batch_size": BATCH_SENTENCES, "batch_type": "sentence",
        "batch_multiplier": 1, "epochs": plan.epochs, "updates": plan.updates, "validation_freq": plan.validation_freq,
        "logging_freq": plan.logging_freq, "early_stopping_metric": "bleu", "keep_best_ckpts": -1, "shuffle": True,
        "overwrite": False, "print_valid_sents": []}
    if load_model is not None:
        training |= {"load_model": str(load_model), "reset_best_ckpt": False, "reset_scheduler": False,
                     "reset_optimizer": False, "reset_iter_state": False}
    return {"name": f"peer-{model}", "joeynmt_version": JOEY_VERSION, "model_dir": str(part), "use_cuda": False,
            "fp16": False, "random_seed": 42, "num_workers": 0,
            "data": data_section(data),
            "testing": {"n_best": 1, "beam_size": 1, "beam_alpha": BEAM_ALPHA, "batch_size": BATCH_SENTENCES,
                        "batch_type": "sentence", "max_output_length": 100, "eval_metrics": ["bleu"],
                        "sacrebleu_cfg": {"tokenize": "13a"}},
            "training": training, "model": model_section(model)}


def decode_config(base: dict, checkpoint: Path, beam_size: int) -> dict:
    """``base`` (a training config) made to decode the test split only with ``checkpoint``."""
    config = json.loads(json.dumps(base))
    data = Path(config["data"]["test"]).parent
    config["data"] = data_section(data, with_train=False, with_dev=False)
    config["testing"] |= {"load_model": str(checkpoint), "beam_size": beam_size}
    config["training"].pop("load_model", None)
    return config


# --------------------------------------------------------------------------------------- Joey's files, parsed

_TIMESTAMP = r"(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d+ - \w+ - [\w.]+ - "
_EPOCH_LINE = re.compile(_TIMESTAMP + r"Epoch\s+(?P<epoch>\d+), total training loss: (?P<loss>[\d.]+), "
                         r"num\. of seqs: (?P<seqs>\d+), num\. of tokens: (?P<tokens>\d+), (?P<seconds>[\d.]+)\[sec\]")
_STEP_LINE = re.compile(_TIMESTAMP + r"Epoch\s+(?P<epoch>\d+), Step:\s+(?P<step>\d+), Batch Loss:\s+(?P<loss>[\d.]+), "
                        r"Batch Acc: (?P<acc>[\d.]+), Tokens per Sec:\s+(?P<tps>\d+), Lr: (?P<lr>[\d.]+)")
_ANY_LINE = re.compile(_TIMESTAMP)
_PARAMS = re.compile(r"Total params: (\d+)")
_ENDED_MIN_LR = re.compile(r"Training ended since minimum lr (\S+) was reached\.")
_ENDED_UPDATES = re.compile(r"Training ended since maximum num\. of updates (\S+) was reached\.")
_ENDED_EPOCHS = re.compile(r"Training ended after\s+(\d+) epochs\.")
_BEST = re.compile(r"Best validation result \(greedy\) at step\s+(\d+):\s+(\S+) (\w+)\.")
_INTERRUPT = re.compile(r"Interrupt at epoch (\d+), step (\d+)\.")
_EVALUATION = re.compile(r"Evaluation result \((greedy|beam search)\): (.*), [\d.]+\[sec\]")


def _seconds(stamp: str) -> float:
    return time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S"))


def parse_train_log(text: str) -> dict:
    """What one part's ``train.log`` says: its epochs (Joey's per-epoch line: loss, sentences, target tokens,
    training seconds without validation), its last step line, the parameter count, how the training ended
    (``min_lr`` | ``updates`` | ``epochs``, or None while it runs or after a kill), an interrupt, the best
    validation, and the wall-clock seconds between its first and last timestamped lines."""
    epochs = [{"epoch": int(m["epoch"]), "loss": float(m["loss"]), "seqs": int(m["seqs"]), "tokens": int(m["tokens"]),
               "seconds": float(m["seconds"])} for m in _EPOCH_LINE.finditer(text)]
    steps = list(_STEP_LINE.finditer(text))
    stamps = [m["time"] for m in _ANY_LINE.finditer(text)]
    params = _PARAMS.search(text)
    ended = None
    if _ENDED_MIN_LR.search(text):
        ended = "min_lr"
    elif _ENDED_UPDATES.search(text):
        ended = "updates"
    elif _ENDED_EPOCHS.search(text):
        ended = "epochs"
    best = _BEST.search(text)
    interrupt = _INTERRUPT.search(text)
    last = steps[-1] if steps else None
    return {
        "epochs": epochs, "parameters": int(params[1]) if params else None, "ended": ended,
        "interrupted": interrupt is not None and best is None,
        "best": {"step": int(best[1]), "score": float(best[2]), "metric": best[3]} if best else None,
        "last_step": {"epoch": int(last["epoch"]), "step": int(last["step"]), "lr": float(last["lr"]),
                      "tokens_per_second": int(last["tps"])} if last else None,
        "wall_seconds": _seconds(stamps[-1]) - _seconds(stamps[0]) if len(stamps) > 1 else 0.0,
    }


def parse_evaluation(text: str) -> list[dict]:
    """Joey's own scores of a decode (``Evaluation result (greedy): bleu:  23.10, …``), in log order."""
    results = []
    for m in _EVALUATION.finditer(text):
        scores = {}
        for item in m[2].split(", "):
            name, _, value = item.partition(":")
            scores[name.strip()] = float(value)
        results.append({"search": m[1], **scores})
    return results


def parse_validations(text: str) -> list[dict]:
    """``validations.txt``: one line per validation — ``Steps: N<TAB>metric: value…<TAB>LR: x<TAB>*`` (the star
    marks a new best)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("Steps:"):
            continue
        row: dict[str, Any] = {"best": line.rstrip().endswith("*")}
        for field in line.split("\t"):
            name, _, value = field.partition(":")
            if value.strip():
                key = name.strip().lower()
                row["steps" if key == "steps" else key] = int(value) if key == "steps" else float(value)
        rows.append(row)
    return rows


def read_hypotheses(path: Path, expected: int) -> list[str]:
    """Joey's hypotheses file (one detokenized output per line, n_best 1); refused unless it has ``expected``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != expected:
        raise ValueError(f"{path}: {len(lines)} hypotheses for {expected} test pairs")
    return lines


# ------------------------------------------------------------------------------------ a model's run folder


def parts(model_folder: Path) -> list[Path]:
    """The sittings' folders ``part-N``, in order."""
    found = [p for p in model_folder.glob("part-*") if p.is_dir() and p.name[5:].isdigit()]
    return sorted(found, key=lambda p: int(p.name[5:]))


def _resolved(link: Path) -> Path | None:
    if not link.is_symlink() and not link.is_file():
        return None
    target = link.resolve()
    return target if target.is_file() else None


def latest_checkpoint(model_folder: Path) -> Path | None:
    """The newest part's latest checkpoint (a part killed before its first one is passed over)."""
    for part in reversed(parts(model_folder)):
        found = _resolved(part / "latest.ckpt")
        if found is not None:
            return found
    return None


def best_checkpoint(model_folder: Path) -> Path | None:
    """The best checkpoint: a part marks a new best only above the score it inherited, so the newest ``best.ckpt``
    is the best of all."""
    for part in reversed(parts(model_folder)):
        found = _resolved(part / "best.ckpt")
        if found is not None:
            return found
    return None


def resume_decision(model_folder: Path) -> str:
    """``finished`` (its training ended on its own: ``finished.json``), ``resumable`` (a checkpoint to go on
    from) or ``new``."""
    if (model_folder / "finished.json").is_file():
        return "finished"
    return "resumable" if latest_checkpoint(model_folder) is not None else "new"


def next_part(model_folder: Path) -> Path:
    """The folder of the next training part of ``model_folder`` (part-1, part-2, …)."""
    existing = parts(model_folder)
    return model_folder / f"part-{int(existing[-1].name[5:]) + 1 if existing else 1}"


def prune_checkpoints(part: Path) -> list[Path]:
    """Delete a part's checkpoints older than its latest, keeping the best; the removed ones."""
    latest, best = _resolved(part / "latest.ckpt"), _resolved(part / "best.ckpt")
    if latest is None:
        return []
    removed = []
    for checkpoint in part.glob("*.ckpt"):
        if checkpoint.is_symlink() or not checkpoint.stem.isdigit() or checkpoint in (latest, best):
            continue
        if int(checkpoint.stem) < int(latest.stem):
            checkpoint.unlink()
            removed.append(checkpoint)
    return removed


# ---------------------------------------------------------------------------------------------- training


STOP = {"requested": False}  # set by SIGTERM / Ctrl-C: the sitting ends once Joey has checkpointed


def _default_sigint() -> None:
    """In Joey's process before it starts: SIGINT back to its default. A command started in the background by a
    non-interactive shell (``nohup … &``) has SIGINT ignored, and a Python started with it ignored never raises
    KeyboardInterrupt, the one stop Joey answers with a checkpoint."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_joey(venv: Path, arguments: list[str], threads: int, part: Path | None = None) -> int:
    """``python -m joeynmt …`` in Joey's environment, in a process group of its own (not the terminal's): SIGTERM
    or Ctrl-C here reaches it once, as SIGINT (it saves a checkpoint and exits). With ``part``, its older
    checkpoints are pruned as it trains."""
    child = subprocess.Popen([str(venv_python(venv)), "-m", "joeynmt", *arguments], env=thread_environment(threads),
                             start_new_session=True, preexec_fn=_default_sigint)

    def stop(*_) -> None:
        if not STOP["requested"]:
            STOP["requested"] = True
            child.send_signal(signal.SIGINT)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        while True:
            try:
                code = child.wait(timeout=30)
                break
            except subprocess.TimeoutExpired:
                if part is not None:
                    prune_checkpoints(part)
            except KeyboardInterrupt:
                stop()
    finally:
        signal.signal(signal.SIGTERM, previous)
    if part is not None:
        prune_checkpoints(part)
    return code


def train_model(model: str, folder: Path, data: Path, plan: Schedule, venv: Path, threads: int) -> str:
    """Train ``model`` in ``folder`` for one sitting (new, or on from its latest checkpoint); its state after."""
    decision = resume_decision(folder)
    if decision == "finished":
        print(f"{model}: finished earlier ({json.loads((folder / 'finished.json').read_text())['ended']}): "
              "not trained again", flush=True)
        return decision
    load = latest_checkpoint(folder) if decision == "resumable" else None
    part = next_part(folder)
    folder.mkdir(parents=True, exist_ok=True)
    config_path = folder / f"{part.name}.yaml"
    config_path.write_text(to_yaml(train_config(model, part, data, plan, load)), encoding="utf-8")
    print(f"{model}: {'resuming from ' + str(load) if load else 'new run'} → {part}", flush=True)
    code = run_joey(venv, ["train", str(config_path), "--skip-test"], threads, part)
    log = parse_train_log((part / "train.log").read_text(encoding="utf-8")) if (part / "train.log").is_file() else {}
    if code == 0 and log.get("ended") and not log.get("interrupted") and not STOP["requested"]:
        (folder / "finished.json").write_text(json.dumps({"ended": log["ended"], "best": log["best"],
                                                          "updates": plan.updates}, indent=1) + "\n",
                                              encoding="utf-8")
        return "finished"
    if code != 0 and not log.get("interrupted") and not STOP["requested"]:
        raise SystemExit(f"{model}: Joey NMT exited with {code}; see {part / 'train.log'}")
    return "stopped"


# ------------------------------------------------------------------------------------------- decoding, results


def decode_model(model: str, folder: Path, venv: Path, threads: int, references: Sequence[str]) -> dict[str, list[str]]:
    """The best checkpoint's test hypotheses, greedy and beam 5 (decoded once; kept in the model's folder)."""
    best = best_checkpoint(folder)
    if best is None:
        raise SystemExit(f"{model}: no best checkpoint (no validation ran) in {folder}")
    base_config = folder / f"{parts(folder)[-1].name}.yaml"
    base = train_config_from(base_config)
    outputs = {}
    for search, beam in (("greedy", 1), ("beam5", 5)):
        prefix = folder / f"test-{search}"
        hypotheses = Path(f"{prefix}.test")
        stamp = folder / f"test-{search}.json"
        done = json.loads(stamp.read_text(encoding="utf-8")) if stamp.is_file() else {}
        if done.get("checkpoint") != str(best) or not hypotheses.is_file():
            config = decode_config(base, best, beam)
            config["model_dir"] = str(best.parent)
            config_path = folder / f"decode-{search}.yaml"
            config_path.write_text(to_yaml(config), encoding="utf-8")
            code = run_joey(venv, ["test", str(config_path), "-o", str(prefix)], threads)
            if code != 0:
                raise SystemExit(f"{model}: decoding ({search}) failed with {code}")
            stamp.write_text(json.dumps({"checkpoint": str(best), "beam_size": beam, "beam_alpha": BEAM_ALPHA}) + "\n",
                             encoding="utf-8")
        outputs[search] = read_hypotheses(hypotheses, len(references))
    return outputs


def train_config_from(path: Path) -> dict:
    """A config this script wrote, read back (the project's environment has no YAML library)."""
    return _read_simple_yaml(path.read_text(encoding="utf-8"))


def _read_simple_yaml(text: str) -> dict:
    """The reader of ``to_yaml``'s output (nested block mappings, scalars, flow lists of scalars)."""
    root: dict = {}
    stack: list[tuple[int, dict]] = [(-1, root)]
    for line in text.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, _, value = line.strip().partition(":")
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        value = value.strip()
        if not value:
            parent[key] = {}
            stack.append((indent, parent[key]))
        elif value.startswith("["):
            inner = value[1:-1].strip()
            parent[key] = [_scalar(item.strip()) for item in inner.split(",")] if inner else []
        else:
            parent[key] = _scalar(value)
    return root


def _scalar(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    if text.startswith('"'):
        return json.loads(text)
    try:
        return int(text)
    except ValueError:
        return float(text)


def model_result(model: str, folder: Path, venv: Path, outputs: dict[str, list[str]], references: Sequence[str],
                 budget: int, threads: int) -> dict:
    """One row of results.json: the scores, the training it took, the parameters."""
    from engine.evaluation.evaluate import corpus_scores

    logs = [parse_train_log((p / "train.log").read_text(encoding="utf-8")) for p in parts(folder)
            if (p / "train.log").is_file()]
    latest, best = latest_checkpoint(folder), best_checkpoint(folder)
    at_end = side(venv, "stats", str(latest))
    at_best = side(venv, "stats", str(best))
    finished = json.loads((folder / "finished.json").read_text(encoding="utf-8")) \
        if (folder / "finished.json").is_file() else {}
    scores = {search: corpus_scores(hypotheses, list(references), TARGET) for search, hypotheses in outputs.items()}
    ended = {"min_lr": "early stopping (the plateau schedule's minimum learning rate)",
             "updates": "the token budget (its steps)", "epochs": "the epoch cap"}.get(finished.get("ended"),
                                                                                     "not finished")
    parameters = next((log["parameters"] for log in logs if log["parameters"]), None) or at_end["parameters"]
    sizes = {"embedding_size": EMBEDDINGS, "dropout": DROPOUT}
    sizes |= {"hidden_size": HIDDEN} if model == "rnn" else {
        "layers": TRANSFORMER["layers"], "heads": TRANSFORMER["heads"], "model_size": TRANSFORMER["size"],
        "feed_forward": TRANSFORMER["feed_forward"]}
    return {
        "model": model, "name": MODEL_LABELS[model], "direction": f"{SOURCE}-{TARGET}", "joeynmt": JOEY_VERSION,
        "n": len(references), "signature": scores["greedy"].signature, "split_rule": "strict",
        "greedy": {"bleu": round(scores["greedy"].bleu, 2), "chrf": round(scores["greedy"].chrf, 2)},
        "beam5": {"bleu": round(scores["beam5"].bleu, 2), "chrf": round(scores["beam5"].chrf, 2),
                  "length_penalty": BEAM_ALPHA},
        "training": {
            "hours": round(sum(log["wall_seconds"] for log in logs) / 3600, 3),
            "target_tokens": int(at_end["total_tokens"]), "target_tokens_at_best": int(at_best["total_tokens"]),
            "steps": int(at_end["steps"]), "best_step": int(at_end["best_ckpt_iter"]),
            "best_valid_bleu": round(float(at_end["best_ckpt_score"]), 2), "epochs": int(at_end["epochs"]),
            "sittings": len(logs), "budget_tokens": budget, "ended": ended, "threads": threads},
        "parameters": parameters, "sizes": sizes, "learning_rate": LEARNING_RATE[model],
    }


def publish(rows: list[dict], report: Path) -> None:
    """Merge finished rows into the report's peer JSON (by model), keeping the others."""
    kept = {row["model"]: row for row in json.loads(report.read_text(encoding="utf-8"))} if report.is_file() else {}
    kept |= {row["model"]: row for row in rows}
    report.write_text(json.dumps([kept[m] for m in MODELS if m in kept], ensure_ascii=False, indent=1) + "\n",
                      encoding="utf-8")


# ------------------------------------------------------------------------------------------------ the command


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--budget-tokens", type=int, default=None,
                        help=f"target tokens per model (default {DEFAULT_BUDGET:,}; {SMOKE_BUDGET:,} with --smoke)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of each Joey process")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "peer")
    parser.add_argument("--venv", type=Path, default=ROOT / "build" / "peer" / "venv")
    parser.add_argument("--corpus", type=Path, default=None, help="the Tatoeba cmn-eng.tsv (default: the shipped one)")
    parser.add_argument("--smoke", action="store_true",
                        help="the whole path in minutes: a tiny budget, 100 valid and test pairs, into OUT/smoke")
    parser.add_argument("--report", type=Path, default=REPORT,
                        help="the quality report's peer JSON a full run merges its finished rows into")
    args = parser.parse_args(argv)
    budget = args.budget_tokens or (SMOKE_BUDGET if args.smoke else DEFAULT_BUDGET)
    out = (args.out / "smoke" if args.smoke else args.out).resolve()
    venv = args.venv.resolve()
    started = time.monotonic()

    ensure_environment(venv)
    print(f"peer environment ready: joeynmt {JOEY_VERSION}, torch {TORCH_VERSION}; patches: "
          + "; ".join(f"{r['file']} {r['state']}" for r in json.loads((venv / "joey-patches.json").read_text())),
          flush=True)
    split = split_of_corpus(args.corpus)
    data = out / "data"
    counts = export_split(split, data, SMOKE_HELD_OUT if args.smoke else 0)
    print(f"split exported to {data}: {counts} (strict rule; {split.train_removed_overlap} training pairs removed "
          "for sharing a source with valid or test)", flush=True)
    vocabularies = ensure_vocabularies(venv, data, args.threads)
    print("vocabularies: " + ", ".join(f"{lang} {v['pieces']} pieces (coverage {v['coverage']})"
                                       for lang, v in vocabularies.items()), flush=True)
    count_path = data / "joey-count.json"
    count = json.loads(count_path.read_text(encoding="utf-8")) if count_path.is_file() else {}
    digest = _digest(data / f"train.{SOURCE}", data / f"train.{TARGET}", data / f"spm.{TARGET}.model")
    if count.get("digest") != digest:
        probe = out / "count.yaml"
        probe.write_text(to_yaml({"data": data_section(data, with_dev=False),
                                  "training": {"batch_size": BATCH_SENTENCES}}), encoding="utf-8")
        count = {**side(venv, "count", str(probe), threads=args.threads), "digest": digest}
        count_path.write_text(json.dumps(count, indent=1) + "\n", encoding="utf-8")
    plan = schedule(budget, count["target_tokens_per_epoch"], count["steps_per_epoch"])
    print(f"Joey's epoch: {count['sentences']:,} sentences, {count['target_tokens_per_epoch']:,} target tokens, "
          f"{count['steps_per_epoch']} steps; budget {budget:,} target tokens → {plan.updates} steps "
          f"(epoch cap {plan.epochs}), validation every {plan.validation_freq} steps", flush=True)

    references = [pair.target for pair in split.test[:counts["test"]]]
    rows, states = [], {}
    for model in args.models:
        folder = out / model
        states[model] = train_model(model, folder, data, plan, venv, args.threads)
        if STOP["requested"]:
            print(f"{model}: stopped on request, its checkpoint saved; rerun the same command to go on", flush=True)
            break
        if states[model] != "finished":
            print(f"{model}: stopped before its end; rerun the same command to go on", flush=True)
            continue
        outputs = decode_model(model, folder, venv, args.threads, references)
        row = model_result(model, folder, venv, outputs, references, budget, args.threads)
        rows.append(row)
        t = row["training"]
        print(f"{model}: test BLEU greedy {row['greedy']['bleu']} / beam 5 {row['beam5']['bleu']} "
              f"(chrF {row['greedy']['chrf']} / {row['beam5']['chrf']}), {t['target_tokens']:,} target tokens "
              f"(best at {t['target_tokens_at_best']:,}), {t['steps']} steps, {t['hours']} h, "
              f"{row['parameters']:,} parameters; ended by {t['ended']}", flush=True)
    results_path = out / "results.json"
    previous = {r["model"]: r for r in json.loads(results_path.read_text(encoding="utf-8"))} \
        if results_path.is_file() else {}
    previous |= {row["model"]: row for row in rows}
    results_path.write_text(json.dumps([previous[m] for m in MODELS if m in previous], ensure_ascii=False, indent=1)
                            + "\n", encoding="utf-8")
    if rows and not args.smoke:
        publish(rows, args.report)
        print(f"peer rows merged into {args.report}", flush=True)
    print(f"wrote {results_path} ({time.monotonic() - started:.0f} s)", flush=True)
    return 0 if all(state == "finished" for state in states.values()) else 3


if __name__ == "__main__":
    sys.exit(main())
