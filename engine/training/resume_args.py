"""The options of a resumed command-line run: the ones it was started (or last resumed) with, each
overridden by the same option given now — one value per option, so that the command recorded for
the next bare ``--resume`` keeps every flag given on an earlier one and never grows."""

from __future__ import annotations

import argparse


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {option: action for action in parser._actions for option in action.option_strings}


def _groups(arguments: list[str], options: dict[str, argparse.Action]) -> list[tuple[str | None, list[str]]]:
    """``arguments`` cut into (the option's dest, its tokens); a token that is no known option is a
    group of its own (dest None: kept as it is, for argparse to judge)."""
    groups: list[tuple[str | None, list[str]]] = []
    index = 0
    while index < len(arguments):
        token = arguments[index]
        name, equals, _ = token.partition("=")
        action = options.get(name) if token.startswith("-") else None
        if action is None:
            groups.append((None, [token]))
            index += 1
            continue
        takes = 0 if equals or action.nargs == 0 else 1
        if action.nargs in ("?", "*", "+") and not equals:  # as many values as follow, none for '?'/'*'
            takes = 0
            while index + 1 + takes < len(arguments) and not arguments[index + 1 + takes].startswith("-"):
                takes += 1
        groups.append((action.dest, arguments[index : index + 1 + takes]))
        index += 1 + takes
    return groups


def override(stored: list[str], given: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``stored`` without the options ``given`` sets again, followed by ``given``."""
    options = _options(parser)
    again = {dest for dest, _ in _groups(given, options) if dest is not None}
    kept = [token for dest, tokens in _groups(stored, options) if dest is None or dest not in again
            for token in tokens]
    return [*kept, *given]


def subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of one command of ``parser``'s sub-commands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command]
    raise KeyError(command)
