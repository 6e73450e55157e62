"""The Train form's words that come from the engine's setting descriptions (engine/settings/settings_meta.py:
each shown row's label, tooltip, choice words and special value), marked here for Qt's translation since the
engine stays free of Qt. :func:`setting_text` shows one in the interface's language; a text not listed here (a
setting added later) shows in English until it is, and tests/gui/test_interface_language.py names it."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

SETTING_TEXTS = (
    QT_TRANSLATE_NOOP("Settings", 'Cell'),
    QT_TRANSLATE_NOOP("Settings", 'Recurrent cell of encoder and decoder; GRU trains fastest and most reliably'),
    QT_TRANSLATE_NOOP("Settings", 'GRU'),
    QT_TRANSLATE_NOOP("Settings", 'LSTM'),
    QT_TRANSLATE_NOOP("Settings", 'Plain RNN (tanh)'),
    QT_TRANSLATE_NOOP("Settings", 'Size of the token embeddings (both sides)'),
    QT_TRANSLATE_NOOP("Settings", 'Embedding size'),
    QT_TRANSLATE_NOOP("Settings", "Hidden size of the encoder (per direction), the decoder and the additive scorer's layer; larger learns more, slower"),
    QT_TRANSLATE_NOOP("Settings", 'Encoder hidden size'),
    QT_TRANSLATE_NOOP("Settings", 'Decoder hidden size'),
    QT_TRANSLATE_NOOP("Settings", 'Attention size'),
    QT_TRANSLATE_NOOP("Settings", 'Dropout'),
    QT_TRANSLATE_NOOP("Settings", 'Dropout on embeddings and the output layer during training (off when translating)'),
    QT_TRANSLATE_NOOP("Settings", 'Attention dropout'),
    QT_TRANSLATE_NOOP("Settings", 'Attention scorers only: during training, drop this share of the attention weights when forming each context, so that it cannot rest on one source token; off when translating, and the heatmap shows the weights as computed'),
    QT_TRANSLATE_NOOP("Settings", 'off'),
    QT_TRANSLATE_NOOP("Settings", 'Tie output layer to the target embedding'),
    QT_TRANSLATE_NOOP("Settings", 'The output layer reuses the target embedding matrix (Press & Wolf 2017): about a million fewer parameters and faster steps; the shipped models use it'),
    QT_TRANSLATE_NOOP("Settings", 'Layers'),
    QT_TRANSLATE_NOOP("Settings", 'Transformer only: self-attention layers in the encoder and in the decoder'),
    QT_TRANSLATE_NOOP("Settings", 'Feed-forward size'),
    QT_TRANSLATE_NOOP("Settings", "Transformer only: the inner size of each layer's feed-forward block (its model size is the embedding size)"),
    QT_TRANSLATE_NOOP("Settings", 'Activation dropout'),
    QT_TRANSLATE_NOOP("Settings", 'Transformer only: dropout after the ReLU of each feed-forward block, in training'),
    QT_TRANSLATE_NOOP("Settings", 'Positions'),
    QT_TRANSLATE_NOOP("Settings", 'Transformer only: fixed sinusoids (any length) or a vector learned per position'),
    QT_TRANSLATE_NOOP("Settings", 'Sinusoidal'),
    QT_TRANSLATE_NOOP("Settings", 'Learned'),
    QT_TRANSLATE_NOOP("Settings", 'Epochs'),
    QT_TRANSLATE_NOOP("Settings", 'Maximum passes over the training pairs; early stopping or the time budget may end sooner'),
    QT_TRANSLATE_NOOP("Settings", 'Time budget (min)'),
    QT_TRANSLATE_NOOP("Settings", "Wall-clock budget in minutes (pauses excluded); the run ends cleanly with its best model saved. 'none' = no budget"),
    QT_TRANSLATE_NOOP("Settings", 'none'),
    QT_TRANSLATE_NOOP("Settings", 'Batch size'),
    QT_TRANSLATE_NOOP("Settings", 'Sentence pairs per optimizer step'),
    QT_TRANSLATE_NOOP("Settings", 'Learning rate'),
    QT_TRANSLATE_NOOP("Settings", "Adam's learning rate, changed during the run by the schedule below"),
    QT_TRANSLATE_NOOP("Settings", 'Warm-up steps'),
    QT_TRANSLATE_NOOP("Settings", 'Raise the learning rate from 0 over the first N optimizer steps; a Transformer trains badly without it (a few hundred)'),
    QT_TRANSLATE_NOOP("Settings", 'Schedule'),
    QT_TRANSLATE_NOOP("Settings", 'Plateau: halve the rate whenever validation BLEU stops improving. Budget (needs a time budget): keep the rate for the first half of the budget, then lower it steadily to the minimum, so the run ends well annealed'),
    QT_TRANSLATE_NOOP("Settings", 'Halve on a BLEU plateau'),
    QT_TRANSLATE_NOOP("Settings", 'Hold, then decay over the budget'),
    QT_TRANSLATE_NOOP("Settings", 'Score warm-up'),
    QT_TRANSLATE_NOOP("Settings", "Dot and bilinear only: for this fraction of the run their scores start divided by √d (as scaled dot) and warm up to the plain formula, which keeps their attention from locking onto one source token; 'off' trains the plain formula throughout"),
    QT_TRANSLATE_NOOP("Settings", "Long examples: each epoch, join 2 to K consecutive training pairs (after a seeded shuffle) into one example, so that the model learns inputs of several sentences; valid and test pairs are never joined. 'off' trains on single pairs only"),
    QT_TRANSLATE_NOOP("Settings", 'Concat max group'),
    QT_TRANSLATE_NOOP("Settings", "Share of each epoch's examples that are joined pairs, next to every single pair"),
    QT_TRANSLATE_NOOP("Settings", 'Concat share'),
    QT_TRANSLATE_NOOP("Settings", "A length curriculum: the fraction of the run trained on single pairs only before the joined examples join in; 'at once' mixes them in from the start"),
    QT_TRANSLATE_NOOP("Settings", 'at once'),
    QT_TRANSLATE_NOOP("Settings", 'Concat start'),
    QT_TRANSLATE_NOOP("Settings", 'Keep snapshots'),
    QT_TRANSLATE_NOOP("Settings", "Keep the weights of this many validations (float16, in the run's checkpoint folder): the last 5 in a row, older ones thinned evenly over the run, so that a click on a training curve translates with the model as it was near that step. 'none' keeps only the saved model"),
    QT_TRANSLATE_NOOP("Settings", 'Early stopping'),
    QT_TRANSLATE_NOOP("Settings", "Stop after this many epochs without a better validation BLEU; 'off' never stops early"),
    QT_TRANSLATE_NOOP("Settings", 'Validate'),
    QT_TRANSLATE_NOOP("Settings", "Validate (and snapshot the attention) every N steps as well as after each epoch; 'each epoch' = only after each epoch"),
    QT_TRANSLATE_NOOP("Settings", 'each epoch'),
    QT_TRANSLATE_NOOP("Settings", 'Seed'),
    QT_TRANSLATE_NOOP("Settings", 'Random seed: same seed and settings, same run'),
    QT_TRANSLATE_NOOP("Settings", 'Source'),
    QT_TRANSLATE_NOOP("Settings", "Source SentencePiece vocabulary; 'default' uses the engine's size for the language (shrinks by itself on small corpora)"),
    QT_TRANSLATE_NOOP("Settings", 'Target'),
    QT_TRANSLATE_NOOP("Settings", "Target SentencePiece vocabulary; 'default' uses the engine's size for the language"),
    QT_TRANSLATE_NOOP("Settings", 'default'),
)


def setting_text(text: str) -> str:
    """``text`` (a setting description's words) in the interface's language."""
    return QCoreApplication.translate("Settings", text)
