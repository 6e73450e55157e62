"""The training form: corpus (with preview and report), direction, model and training settings.

A view: it renders choices and returns :class:`RunSettings`; the panel starts the runs. Every
field has a tooltip and a default suited to the kind of corpus (the built-in task trains a small
model in minutes; a real corpus needs a bigger one); switching between the two kinds restores
that kind's preset.

Each settings row is *bound* to the field of the engine's dataclass it sets (:meth:`_bind`): the
form reads and writes every bound row the same way, so a new setting is its dataclass field, one
row here and its command-line flag (docs/architecture.md, "What a change touches"). A disabled row
(a setting the chosen scorer or schedule does not use) asks for nothing: the field keeps the
engine's default.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.config import CELL_NAMES, SCORER_NAMES, ModelShape, TrainConfig
from engine.jobs import CorpusChoice, VocabularySizes
from engine.scorer_table import SCORER_TABLE
from engine.tasks import dates
from gui.training.corpus import CorpusEntry, builtin_entries
from gui.training.corpus_view import CorpusPreview
from gui.training.settings import CORPUS_PRESET, TASK_PRESET, Preset, RunSettings

ALL_SCORERS = "*"  # the scorer combo's "one run per scorer" choice
CELL_LABELS = {"gru": "GRU", "lstm": "LSTM", "rnn": "Plain RNN (tanh)"}
FILE_DIRECTIONS = (("Chinese → English", ("zh", "en")), ("English → Chinese", ("en", "zh")))
LR_SCHEDULE_LABELS = (("Halve on a BLEU plateau", "plateau"), ("Hold, then decay over the budget", "budget"))
TASK_DIRECTIONS = (("Human date → ISO 8601", (dates.SOURCE_LANGUAGE, dates.TARGET_LANGUAGE)),)
RECENT_KEY = "training/recentCorpora"
MAX_RECENT = 5
SECTIONS = {"model": ModelShape, "train": TrainConfig, "vocabularies": VocabularySizes}  # RunSettings' parts


@dataclass(frozen=True)
class _Binding:
    """A form row and the dataclass fields it sets (one spin box may set several, e.g. the hidden sizes)."""

    widget: QWidget
    section: str  # a key of SECTIONS
    fields: tuple[str, ...]


def _read(widget: QWidget) -> Any:
    if isinstance(widget, QCheckBox):
        return widget.isChecked()
    if isinstance(widget, QComboBox):
        return widget.currentData()
    if isinstance(widget, QDoubleSpinBox):
        return round(widget.value(), widget.decimals())
    return widget.value()


def _write(widget: QWidget, value: Any) -> None:
    if isinstance(widget, QCheckBox):
        widget.setChecked(bool(value))
    elif isinstance(widget, QComboBox):
        widget.setCurrentIndex(max(widget.findData(value), 0))
    else:
        widget.setValue(value)


def _configured(box: QSpinBox | QDoubleSpinBox, low: float, high: float, value: float, step: float, tip: str,
                special: str) -> QSpinBox | QDoubleSpinBox:
    """Range, step, value and tooltip of a spin box; ``special`` names its lowest value."""
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setValue(value)
    box.setToolTip(tip)
    if special:
        box.setSpecialValueText(special)
    return box


def _spin(low: int, high: int, value: int, tip: str, step: int = 1, special: str = "") -> QSpinBox:
    return _configured(QSpinBox(), low, high, value, step, tip, special)


def _double(low: float, high: float, value: float, decimals: int, step: float, tip: str,
            special: str = "") -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setDecimals(decimals)  # before the value, which it rounds
    return _configured(box, low, high, value, step, tip, special)


class TrainingForm(QWidget):
    """Corpus, model and training choices."""

    corpusChanged = Signal(object)  # CorpusEntry

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._kind_is_task: bool | None = None
        self._bindings: list[_Binding] = []
        task_model, task_train = TASK_PRESET.model, TASK_PRESET.train
        # -- corpus --------------------------------------------------------------------------
        self.corpus_combo = QComboBox()
        self.corpus_combo.setObjectName("trainCorpusCombo")
        self.corpus_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.corpus_combo.setMinimumContentsLength(16)
        self.corpus_combo.setToolTip("What the model learns from: the built-in dates task, the Tatoeba "
                                     "Chinese–English corpus, or any TSV file (English<TAB>Chinese per line)")
        self.browse_button = QPushButton("Open TSV…")
        self.browse_button.setObjectName("trainBrowseButton")
        self.browse_button.setToolTip("Pick a corpus file: one English<TAB>Chinese[<TAB>attribution] pair a line")
        self.browse_button.clicked.connect(self._browse)
        corpus_row = QHBoxLayout()
        corpus_row.addWidget(self.corpus_combo, 1)
        corpus_row.addWidget(self.browse_button)
        self.preview = CorpusPreview()
        corpus_box = QGroupBox("Corpus")
        corpus_layout = QVBoxLayout(corpus_box)
        corpus_layout.addLayout(corpus_row)
        corpus_layout.addWidget(self.preview)
        self.token_cache = QCheckBox("Big corpus: stream it and train from a token cache")
        self.token_cache.setObjectName("trainTokenCacheCheck")
        self.token_cache.setToolTip("For corpora of hundreds of thousands of pairs or more: read the file once in a "
                                    "streaming pass, train the tokenizers on a sample, and keep the training pairs "
                                    "as sub-word ids on disk, reused by later runs on the same file (memory stays "
                                    "bounded). Long examples need the text each epoch and are off with it")
        corpus_layout.addWidget(self.token_cache)
        # -- model ---------------------------------------------------------------------------
        self.direction_combo = QComboBox()
        self.direction_combo.setObjectName("trainDirectionCombo")
        self.direction_combo.setToolTip("Which side is the source (read by the encoder) and which the target")
        self.scorer_combo = QComboBox()
        self.scorer_combo.setObjectName("trainScorerCombo")
        for name in SCORER_NAMES:
            self.scorer_combo.addItem(SCORER_TABLE[name].label, name)
            self.scorer_combo.setItemData(self.scorer_combo.count() - 1, SCORER_TABLE[name].formula,
                                          Qt.ItemDataRole.ToolTipRole)
        every = f"All {len(SCORER_NAMES)}"  # the registry's count
        self.scorer_combo.addItem(f"{every}, one run after another", ALL_SCORERS)
        self.scorer_combo.setToolTip("How the decoder scores each source position, e_ij = F(s_{i-1}, h_j) (each "
                                     f"choice shows its formula); '{every}' queues one run per scorer with the "
                                     "same settings, to compare their curves")
        self.cell_combo = QComboBox()
        self.cell_combo.setObjectName("trainCellCombo")
        for name in CELL_NAMES:
            self.cell_combo.addItem(CELL_LABELS.get(name, name), name)
        self.cell_combo.setToolTip("Recurrent cell of encoder and decoder; GRU trains fastest and most reliably")
        self.embedding = _spin(8, 1024, task_model.embedding_size, "Size of the token embeddings (both sides)", 16)
        self.hidden = _spin(8, 2048, task_model.decoder_hidden_size, "Hidden size of the encoder (per direction), the "
                            "decoder and the additive scorer's layer; larger learns more, slower", 32)
        self.dropout = _double(0.0, 0.9, task_model.dropout, 2, 0.05, "Dropout on embeddings and the output "
                               "layer during training (off when translating)")
        self.attention_dropout = _double(0.0, 0.9, task_model.attention_dropout, 2, 0.05, "Attention scorers "
                                         "only: during training, drop this share of the attention weights "
                                         "when forming each context, so that it cannot rest on one source "
                                         "token; off when translating, and the heatmap shows the weights as "
                                         "computed", "off")
        self.attention_dropout.setObjectName("trainAttentionDropoutSpin")
        self.source_vocab = _spin(0, 64000, 0, "Source SentencePiece vocabulary; 'default' uses the engine's size "
                                  "for the language (shrinks by itself on small corpora)", 500, "default")
        self.target_vocab = _spin(0, 64000, 0, "Target SentencePiece vocabulary; 'default' uses the engine's size "
                                  "for the language", 500, "default")
        self.tie_embeddings = QCheckBox("Tie output layer to the target embedding")
        self.tie_embeddings.setObjectName("trainTieCheck")
        self.tie_embeddings.setToolTip("The output layer reuses the target embedding matrix (Press & Wolf 2017): "
                                       "about a million fewer parameters and faster steps; the shipped models "
                                       "use it")
        self._bind(self.cell_combo, "model", "cell")
        self._bind(self.embedding, "model", "embedding_size")
        self._bind(self.hidden, "model", "encoder_hidden_size", "decoder_hidden_size", "attention_size")
        self._bind(self.dropout, "model", "dropout")
        self._bind(self.attention_dropout, "model", "attention_dropout")
        self._bind(self.tie_embeddings, "model", "tie_embeddings")
        self._bind(self.source_vocab, "vocabularies", "source")
        self._bind(self.target_vocab, "vocabularies", "target")
        model_box = QGroupBox("Model")
        model_form = QFormLayout(model_box)
        model_form.addRow("Direction", self.direction_combo)
        model_form.addRow("Attention", self.scorer_combo)
        model_form.addRow("Cell", self.cell_combo)
        sizes = QHBoxLayout()
        sizes.addWidget(self.embedding)
        sizes.addWidget(self.hidden)
        model_form.addRow("Embedding / hidden", sizes)
        model_form.addRow("Dropout", self.dropout)
        model_form.addRow("Attention dropout", self.attention_dropout)
        vocab = QHBoxLayout()
        vocab.addWidget(self.source_vocab)
        vocab.addWidget(self.target_vocab)
        model_form.addRow("Vocab src / tgt", vocab)
        model_form.addRow("", self.tie_embeddings)
        # -- training ------------------------------------------------------------------------
        self.epochs = _spin(1, 10000, task_train.epochs, "Maximum passes over the training pairs; early "
                            "stopping or the time budget may end sooner")
        self.minutes = _double(0.0, 100000.0, 0.0, 1, 1.0, "Wall-clock budget in minutes (pauses excluded); the run "
                               "ends cleanly with its best model saved. 'none' = no budget", "none")
        self.batch_size = _spin(1, 4096, TrainConfig.batch_size, "Sentence pairs per optimizer step", 16)
        self.learning_rate = _double(0.00001, 1.0, TrainConfig.learning_rate, 5, 0.0005, "Adam's learning rate, "
                                     "changed during the run by the schedule below")
        self.lr_schedule = QComboBox()
        self.lr_schedule.setObjectName("trainScheduleCombo")
        for label, name in LR_SCHEDULE_LABELS:
            self.lr_schedule.addItem(label, name)
        self.lr_schedule.setToolTip("Plateau: halve the rate whenever validation BLEU stops improving. Budget "
                                    "(needs a time budget): keep the rate for the first half of the budget, then "
                                    "lower it steadily to the minimum, so the run ends well annealed")
        self.minutes.valueChanged.connect(self._budget_changed)
        self.temperature_warmup = _double(0.0, 1.0, task_train.temperature_warmup, 2, 0.05, "Dot and bilinear "
                                          "only: for this fraction of the run their scores start divided by √d "
                                          "(as scaled dot) and warm up to the plain formula, which keeps their "
                                          "attention from locking onto one source token; 'off' trains the "
                                          "plain formula throughout", "off")
        self.temperature_warmup.setObjectName("trainWarmupSpin")
        self.concat_max = _spin(1, 16, task_train.concat_max_group, "Long examples: each epoch, join 2 to K "
                                "consecutive training pairs (after a seeded shuffle) into one example, so that the "
                                "model learns inputs of several sentences; valid and test pairs are never joined. "
                                "'off' trains on single pairs only", 1, "off")
        self.concat_max.setObjectName("trainConcatMaxSpin")
        self.concat_share = _double(0.0, 0.9, task_train.concat_share, 2, 0.05, "Share of each epoch's examples "
                                    "that are joined pairs, next to every single pair", "none")
        self.concat_share.setObjectName("trainConcatShareSpin")
        self.concat_start = _double(0.0, 0.95, task_train.concat_start, 2, 0.05, "A length curriculum: the "
                                    "fraction of the run trained on single pairs only before the joined examples "
                                    "join in; 'at once' mixes them in from the start", "at once")
        self.concat_start.setObjectName("trainConcatStartSpin")
        self.concat_max.valueChanged.connect(self._concat_changed)
        self.token_cache.toggled.connect(self._concat_changed)
        self.scorer_combo.currentIndexChanged.connect(self._scorer_changed)
        self.validate_every = _spin(0, 1000000, 0, "Validate (and snapshot the attention) every N steps as well as "
                                    "after each epoch; 'each epoch' = only after each epoch", 100, "each epoch")
        self.patience = _spin(0, 1000, TrainConfig.early_stopping_patience, "Stop after this many epochs without "
                              "a better validation BLEU; 'off' never stops early", 1, "off")
        self.seed = _spin(0, 2**31 - 1, TrainConfig.seed, "Random seed: same seed and settings, same run")
        self.run_name = QLineEdit()
        self.run_name.setObjectName("trainRunNameEdit")
        self.run_name.setPlaceholderText("automatic, e.g. dates-additive-20261129-1830")
        self.run_name.setToolTip("Name of the model folder in your data folder; made from corpus, scorer and time "
                                 "when empty")
        for widget, name in ((self.epochs, "epochs"), (self.minutes, "max_minutes"), (self.batch_size, "batch_size"),
                             (self.learning_rate, "learning_rate"), (self.lr_schedule, "lr_schedule"),
                             (self.temperature_warmup, "temperature_warmup"), (self.concat_max, "concat_max_group"),
                             (self.concat_share, "concat_share"), (self.concat_start, "concat_start"),
                             (self.validate_every, "validate_every_steps"),
                             (self.patience, "early_stopping_patience"), (self.seed, "seed")):
            self._bind(widget, "train", name)
        train_box = QGroupBox("Training")
        train_form = QFormLayout(train_box)
        train_form.addRow("Epochs", self.epochs)
        train_form.addRow("Time budget (min)", self.minutes)
        train_form.addRow("Batch size", self.batch_size)
        train_form.addRow("Learning rate", self.learning_rate)
        train_form.addRow("Schedule", self.lr_schedule)
        train_form.addRow("Score warm-up", self.temperature_warmup)
        long_examples = QHBoxLayout()
        long_examples.addWidget(self.concat_max)
        long_examples.addWidget(self.concat_share)
        long_examples.addWidget(self.concat_start)
        train_form.addRow("Long examples (K / share / from)", long_examples)
        train_form.addRow("Validate", self.validate_every)
        train_form.addRow("Early stopping", self.patience)
        train_form.addRow("Seed", self.seed)
        train_form.addRow("Run name", self.run_name)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(corpus_box)
        layout.addWidget(model_box)
        layout.addWidget(train_box)
        for entry in builtin_entries():
            self.corpus_combo.addItem(entry.label, entry)
        for path in self._recent_files():
            if path.is_file() and self._find(path) < 0:
                self.corpus_combo.addItem(CorpusEntry.file(path).label, CorpusEntry.file(path))
        self.corpus_combo.currentIndexChanged.connect(self._corpus_selected)
        self._corpus_selected()
        self._budget_changed()
        self._scorer_changed()
        self._concat_changed()

    # -- corpus --------------------------------------------------------------------------------
    def current_entry(self) -> CorpusEntry:
        return self.corpus_combo.currentData()

    def add_corpus_file(self, path: Path) -> None:
        """Add (or re-select) a TSV file in the corpus list and remember it."""
        path = Path(path)
        index = self._find(path)
        if index < 0:
            self.corpus_combo.addItem(CorpusEntry.file(path).label, CorpusEntry.file(path))
            index = self.corpus_combo.count() - 1
        self.corpus_combo.setCurrentIndex(index)
        recent = [str(path)] + [str(p) for p in self._recent_files() if p != path]
        QSettings().setValue(RECENT_KEY, recent[:MAX_RECENT])

    def _find(self, path: Path) -> int:
        for index in range(self.corpus_combo.count()):
            entry = self.corpus_combo.itemData(index)
            if entry.path is not None and Path(entry.path) == path:
                return index
        return -1

    def _recent_files(self) -> list[Path]:
        value = QSettings().value(RECENT_KEY, [])
        values = [value] if isinstance(value, str) else list(value or [])
        return [Path(v) for v in values if isinstance(v, str) and v]

    def _browse(self) -> None:
        start = str(self.current_entry().path.parent) if self.current_entry().path else str(Path.home())
        name, _ = QFileDialog.getOpenFileName(self, "Open a corpus", start, "Tab-separated text (*.tsv *.txt);;All "
                                              "files (*)")
        if name:
            self.add_corpus_file(Path(name))

    def _corpus_selected(self) -> None:
        entry = self.current_entry()
        if entry is None:
            return
        is_task = entry.is_task
        if is_task != self._kind_is_task:
            self._kind_is_task = is_task
            self.direction_combo.clear()
            for label, languages in TASK_DIRECTIONS if is_task else FILE_DIRECTIONS:
                self.direction_combo.addItem(label, languages)
            self.direction_combo.setEnabled(not is_task)
            self.token_cache.setEnabled(not is_task)
            self._concat_changed()
            self.apply_preset(TASK_PRESET if is_task else CORPUS_PRESET)
        self.corpusChanged.emit(entry)

    def apply_preset(self, preset: Preset) -> None:
        """Set every model and training row to ``preset``'s value."""
        for binding in self._bindings:
            part = getattr(preset, binding.section, None)
            if part is not None:
                _write(binding.widget, getattr(part, binding.fields[0]))

    def _budget_changed(self) -> None:
        """The budget schedule decays over the time budget: offered only when there is one."""
        has_budget = self.minutes.value() > 0
        budget_index = self.lr_schedule.findData("budget")
        self.lr_schedule.model().item(budget_index).setEnabled(has_budget)
        if not has_budget and self.lr_schedule.currentData() == "budget":
            self.lr_schedule.setCurrentIndex(self.lr_schedule.findData("plateau"))

    def _concat_changed(self) -> None:
        """The share and start of joined examples mean something only when pairs are joined (K ≥ 2),
        and long examples are joined from the text, which a token-cached run does not read."""
        cached = self.token_cache.isChecked() and self.token_cache.isEnabled()
        self.concat_max.setEnabled(not cached)
        self.concat_share.setEnabled(self.concat_max.value() > 1 and not cached)
        self.concat_start.setEnabled(self.concat_max.value() > 1 and not cached)

    def _scorer_changed(self) -> None:
        """The score warm-up only changes the unscaled scorers, attention dropout only the attention
        scorers: each is offered only when a run it changes may be trained."""
        chosen = self.scorer_combo.currentData()
        self.temperature_warmup.setEnabled(chosen == ALL_SCORERS or SCORER_TABLE[chosen].unscaled)
        self.attention_dropout.setEnabled(chosen == ALL_SCORERS or SCORER_TABLE[chosen].uses_attention)

    # -- settings ------------------------------------------------------------------------------
    def _bind(self, widget: QWidget, section: str, *names: str) -> None:
        """Make ``widget`` the form row of the ``section`` dataclass's fields ``names``."""
        self._bindings.append(_Binding(widget, section, names))

    def _section(self, section: str, **chosen: Any):
        """The ``section`` dataclass from its enabled rows (the others keep the engine's defaults);
        raises ConfigError naming a bad combination."""
        values = dict(chosen)
        for binding in self._bindings:
            if binding.section == section and binding.widget.isEnabledTo(self):
                values.update(dict.fromkeys(binding.fields, _read(binding.widget)))
        return SECTIONS[section](**values)

    def settings(self) -> list[RunSettings]:
        """The runs the form asks for: one, or one per scorer for "All N" (raises ConfigError)."""
        entry = self.current_entry()
        source, target = self.direction_combo.currentData()
        corpus = CorpusChoice(task=entry.task, corpus=None if entry.is_task else Path(entry.path),
                              source_language=source, target_language=target,
                              token_cache=self.token_cache.isEnabled() and self.token_cache.isChecked())
        base = RunSettings(corpus=corpus, model=self._section("model"), train=self._section("train"),
                           vocabularies=self._section("vocabularies"), name=self.run_name.text().strip())
        chosen = self.scorer_combo.currentData()
        scorers = SCORER_NAMES if chosen == ALL_SCORERS else (chosen,)
        suffix = len(scorers) > 1 and bool(base.name)
        return [replace(base, model=replace(base.model, scorer=s), name=f"{base.name}-{s}" if suffix else base.name)
                for s in scorers]

    def set_scorer(self, name: str) -> None:
        self.scorer_combo.setCurrentIndex(max(self.scorer_combo.findData(name), 0))
