"""``translate --explain METHOD [--contrast STEP=PIECE …] [--ig-steps N]``: attribution beside the translation.

With ``--json`` each object gains ``attribution`` (docs/command-line.md): per output step, the contribution of
each source piece and of each earlier output piece to log p(y_i | y_<i, x) (engine.explain), or — at a step
given a contrast — to log p(y_i) - log p(y'). Without ``--json`` each step is one line after the translation:
its piece, the share on the source and the three source pieces that contributed most.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from engine.explain.attribution import ATTRIBUTION_METHODS, DEFAULT_IG_STEPS, METHOD_LABELS, explain_steps
from engine.settings.errors import ConfigError, EngineError

TOP_PIECES = 3  # source pieces named per step in the text output


def add_explain_flags(parser: argparse.ArgumentParser) -> None:
    """``translate``'s attribution flags."""
    parser.add_argument("--explain", choices=ATTRIBUTION_METHODS, default=None,
                        help="attribute each output step to the source and the output prefix: ig (integrated "
                        "gradients), grad (input x gradient) or occlusion (each piece replaced by <unk>)")
    parser.add_argument("--contrast", action="append", default=[], metavar="STEP=PIECE",
                        help="with --explain: at output step STEP (0-based) attribute log p(output) - log p(PIECE) "
                        "instead: why this piece and not PIECE (a target piece, or a word that is one); repeatable")
    parser.add_argument("--ig-steps", type=int, default=DEFAULT_IG_STEPS, metavar="N",
                        help=f"with --explain ig: interpolation points (default {DEFAULT_IG_STEPS})")


def check_explain_flags(args: argparse.Namespace) -> dict[int, str]:
    """The ``--contrast`` flags as {step: text}; EngineError for a flag that does not fit the others."""
    if args.explain is None:
        if args.contrast:
            raise EngineError("--contrast makes an attribution contrastive: use it with --explain")
        return {}
    if args.force_target is not None:
        raise EngineError("--explain explains a decode: it takes no --force-target")
    if args.ig_steps < 2:
        raise EngineError(f"--ig-steps must be at least 2, not {args.ig_steps}")
    return dict(parse_contrast(spec) for spec in args.contrast)


def parse_contrast(text: str) -> tuple[int, str]:
    """``STEP=PIECE`` → (step, piece text)."""
    step, separator, piece = text.partition("=")
    if not separator or not step.strip().isdigit() or not piece:
        raise EngineError(f"--contrast {text!r}: write STEP=PIECE (a 0-based output step and a target piece or "
                          "word, e.g. 3=watching)")
    return int(step), piece


def contrast_piece(tokenizer, text: str) -> str:
    """The target piece ``text`` names: itself when it is one, else the word-initial piece '▁' + text; ConfigError
    (naming the pieces it splits into) when it is neither."""
    for piece in (text, "▁" + text.lstrip("▁")):
        if tokenizer.piece_id(piece) is not None:
            return piece
    pieces = tokenizer.pieces(tokenizer.encode(text))
    raise ConfigError(f"--contrast {text!r} is not one piece of the target vocabulary (it splits into "
                      f"{' '.join(pieces)}); give one piece")


def explanation(translator, translation, method: str, contrast: dict[int, str], ig_steps: int) -> dict[str, Any] | None:
    """The ``attribution`` object of ``translate --json`` for ``translation`` (None for an empty input)."""
    if translation.empty:
        return None
    pieces = {step: contrast_piece(translator.target_tokenizer, text) for step, text in contrast.items()}
    steps = list(explain_steps(translator, translation, method, ig_steps=ig_steps, contrast=pieces))
    return {"method": method, "label": METHOD_LABELS[method], "ig_steps": ig_steps if method == "ig" else None,
            "source": [_rounded(step.source) for step in steps], "prefix": [_rounded(step.prefix) for step in steps],
            "source_share": [round(step.source_share, 6) for step in steps],
            "log_prob": [round(step.target_log_prob, 6) for step in steps],
            "contrast": {str(step.index): step.contrast_token for step in steps if step.contrast_token is not None}}


def print_explanation(translation, attribution: dict[str, Any] | None) -> None:
    """The text form: one line per output step (its piece, the source share, the top source pieces)."""
    if attribution is None:
        return
    print(f"[{attribution['label']}] step, piece, share on the source, source pieces that contributed most")
    for index, token in enumerate(translation.tokens):
        row = np.asarray(attribution["source"][index])
        top = np.argsort(-row)[:TOP_PIECES]
        named = ", ".join(f"{translation.source_tokens[j]} {row[j]:+.3f}" for j in top)
        versus = attribution["contrast"].get(str(index))
        print(f"{index}\t{token}{'' if versus is None else ' (not ' + versus + ')'}\t"
              f"{attribution['source_share'][index]:.0%}\t{named}", file=sys.stdout)


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(v), 6) for v in values]
