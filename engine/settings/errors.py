"""Typed errors raised by the engine.

Every error carries a one-line, human-readable reason; the command line prints it and exits
with status 2, the app shows it in a message.
"""


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class ConfigError(EngineError):
    """A configuration value is invalid; the message names the valid choices."""


class DataError(EngineError):
    """A corpus cannot be used (missing, unreadable, no valid pairs, too small)."""


class TokenizerError(EngineError):
    """A SentencePiece model cannot be trained or loaded."""


class ModelFileError(EngineError):
    """A model folder is missing, corrupt, tampered with or does not match its config."""


class NonFiniteError(ModelFileError):
    """A model whose weights, finite as stored, give NaN or an infinity on an input (engine/decoding/finite_output.py)."""


class DivergedError(EngineError):
    """Training produced non-finite losses or gradients several steps in a row."""


class StoredFileError(ModelFileError):
    """A file the engine stored (checkpoint, metrics log line, length study, token cache, snapshot) is
    missing, damaged or edited; the message names the file and what is wrong with it."""
