"""Command line: ``python -m engine train | translate | evaluate | average`` (docs/command-line.md).

Exit status 0 on success; 2 with a one-line reason on stderr for bad arguments or bad files.
Training progress goes to stderr; results (``--json`` or text) to stdout. Each command's flags and
work are in its own module: ``train`` in engine/cli/cli_train.py, the others in engine/cli/cli_decode.py.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

# Before PyTorch loads: attribution (translate --explain) runs many small backward passes, between which
# OpenMP's spinning threads would hold both cores (about 10× slower on a shared machine); they sleep, as in
# the app. Training keeps OpenMP's default.
if "--explain" in sys.argv:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from engine.cli.cli_decode import (
    add_average_parser,
    add_evaluate_parser,
    add_translate_parser,
    command_average,
    command_evaluate,
    command_translate,
)
from engine.cli.cli_train import add_train_parser, command_train
from engine.records.runs import RunFolder
from engine.settings.errors import EngineError
from engine.training.resume_args import override, subparser


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m engine`` parser: its commands train, translate, evaluate and average."""
    parser = _Parser(prog="python -m engine", description="Attention Studio's translation engine.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    add_train_parser(commands)
    add_translate_parser(commands)
    add_evaluate_parser(commands)
    add_average_parser(commands)
    return parser


COMMANDS = {"train": command_train, "translate": command_translate, "evaluate": command_evaluate,
            "average": command_average}


def _with_stored_run(argv: list[str]) -> list[str]:
    """``train --resume --out DIR`` alone: the run's own arguments first (engine.records.runs: the command it
    was started with, or what a run started in the app was asked for), the ones given after them (a
    given flag overrides its stored value; contradictions are refused when the job is prepared)."""
    given = {argument.partition("=")[0] for argument in argv}  # --corpus=FILE names --corpus too
    if not argv or argv[0] != "train" or "--resume" not in argv or {"--corpus", "--task"} & given:
        return argv
    out = _out_folder(argv)
    if out is None:
        return argv
    stored = RunFolder(out).train_arguments()
    if stored is None:
        raise EngineError(f"--resume: {out} records no run to continue (neither the command it was started with "
                          "nor, in its metrics log, what it was asked for); give the run's options, or check the "
                          "folder")
    return ["train", *override(stored, argv[1:], subparser(build_parser(), "train"))]


def _out_folder(argv: list[str]) -> Path | None:
    """The folder ``--out DIR`` (or ``--out=DIR``) names, the last one given; None without one."""
    out = None
    for index, argument in enumerate(argv):
        if argument == "--out" and index + 1 < len(argv):
            out = argv[index + 1]
        elif argument.startswith("--out="):
            out = argument.removeprefix("--out=")
    return Path(out) if out else None


def main(argv: list[str] | None = None) -> int:
    """Run one ``python -m engine`` command; its exit status (an engine error: one line on stderr, 2)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        argv = _with_stored_run(argv)
    except EngineError as error:
        print(f"python -m engine train: error: {error}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    args.argv = argv
    try:
        return COMMANDS[args.command](args)
    except EngineError as error:
        print(f"python -m engine {args.command}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # disk full, read-only folder, …: what was saved before stays intact (atomic writes)
        where = f"{error.filename}: " if error.filename else ""
        print(f"python -m engine {args.command}: error: {where}{error.strerror or error}; files written before "
              "are intact", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
