"""The peer's side of ``bench/peer_joey.py``: run by the Joey NMT environment's own Python, never the project's.

    build/peer/venv/bin/python bench/peer_joey_side.py spm TEXT_FILE MODEL_FILE VOCAB_FILE LANG SIZE COVERAGE
    build/peer/venv/bin/python bench/peer_joey_side.py count CONFIG.yaml
    build/peer/venv/bin/python bench/peer_joey_side.py stats CHECKPOINT

Each prints one JSON object on its last line of standard output. It imports Joey NMT, SentencePiece and PyTorch
of that environment and nothing of the project's (the two environments share no package).

- ``spm``: a SentencePiece model as Joey NMT's own ``scripts/build_vocab.py`` trains one (unigram, Joey's
  special pieces at its ids: <unk> 0, <pad> 1, <s> 2, </s> 3; the vocabulary file one piece a line).
- ``count``: the training set as Joey's own data pipeline reads it (its tokenizer, its length filter): the
  sentences, the target tokens of one epoch (each sentence's pieces plus its </s>, as Joey's ``Batch.ntokens``
  counts them) and the steps of one epoch (sentence batches, the last one kept: ``drop_last=False``).
- ``stats``: a checkpoint's training statistics (Joey's ``stats_state``: steps, epochs, target tokens seen,
  best score and its step) and the model's parameter count.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def train_spm(text_file: str, model_file: str, vocab_file: str, lang: str, size: int, coverage: float) -> dict:
    """Train a SentencePiece model on ``text_file`` and write Joey's vocabulary file; its figures."""
    import sentencepiece as sp

    prefix = Path(model_file).with_suffix("")
    sp.SentencePieceTrainer.Train(" ".join([
        f"--input={text_file}", f"--model_prefix={prefix.as_posix()}", "--model_type=unigram",
        f"--vocab_size={size}", f"--character_coverage={coverage}", f"--accept_language={lang}",
        "--unk_piece=<unk>", "--bos_piece=<s>", "--eos_piece=</s>", "--pad_piece=<pad>",
        "--unk_id=0", "--bos_id=2", "--eos_id=3", "--pad_id=1", "--vocabulary_output_piece_score=false",
        "--minloglevel=2",
    ]))
    Path(f"{prefix}.vocab").replace(vocab_file)
    pieces = Path(vocab_file).read_text(encoding="utf-8").splitlines()
    return {"model_file": model_file, "vocab_file": vocab_file, "pieces": len(pieces), "coverage": coverage}


def count(config_path: str) -> dict:
    """What the Joey NMT configuration ``config_path`` trains on: sentences, target tokens and steps per epoch, vocabulary."""
    from types import SimpleNamespace

    import yaml
    from joeynmt.config import _check_special_symbols
    from joeynmt.data import load_data

    cfg = yaml.safe_load(Path(config_path).read_text(encoding="utf-8"))
    cfg["data"]["special_symbols"] = SimpleNamespace(**_check_special_symbols(cfg["data"].get("special_symbols", {})))
    batch_size = int(cfg["training"]["batch_size"])
    _, trg_vocab, train_data, _, _ = load_data(cfg["data"], datasets=["train"])
    trg = train_data.get_list(lang=train_data.trg_lang, tokenized=True, subsampled=False)
    tokens = sum(len(pieces) + 1 for pieces in trg)  # + </s>
    return {"sentences": len(trg), "target_tokens_per_epoch": tokens,
            "steps_per_epoch": math.ceil(len(trg) / batch_size), "target_vocabulary": len(trg_vocab)}


def stats(checkpoint: str) -> dict:
    """A Joey NMT checkpoint's training statistics and parameter count (read with torch's restricted loader)."""
    import torch

    # Joey's own checkpoint: tensors, numbers and dicts only, so torch's restricted loader reads it (nothing unpickled).
    state = torch.load(checkpoint, map_location="cpu", weights_only=True)
    # A tied output layer is one tensor under two names: count each storage once, as model.parameters() does.
    parameters = sum({tensor.data_ptr(): int(tensor.numel()) for tensor in state["model_state"].values()}.values())
    return {**{key: float(value) if isinstance(value, float) else value
               for key, value in state["stats_state"].items()}, "parameters": parameters}


def main(argv: list[str]) -> int:
    """Run one command inside Joey NMT's environment (spm, count or stats) and print its result as JSON."""
    command, *rest = argv
    if command == "spm":
        text_file, model_file, vocab_file, lang, size, coverage = rest
        result = train_spm(text_file, model_file, vocab_file, lang, int(size), float(coverage))
    elif command == "count":
        result = count(*rest)
    elif command == "stats":
        result = stats(*rest)
    else:
        print(f"unknown command {command!r}: spm, count or stats", file=sys.stderr)
        return 2
    print(json.dumps(result, allow_nan=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
