"""The training form: corpus (with preview and report), direction, model and training settings.

A view: it renders choices and returns :class:`RunSettings`; the panel starts the runs. Every
field has a tooltip and a default suited to the kind of corpus (the built-in task trains a small
model in minutes; a real corpus needs a bigger one); switching between the two kinds restores
that kind's preset.

Each settings row is *bound* to the field of the engine's dataclass it sets (:meth:`_bind`): the
form reads and writes every bound row the same way. A row's widget, range, step, tooltip and label
come from its field's description (engine/settings/settings_meta.py; the widgets: gui/training/rows.py); a
described field the form shows but does not place by hand gets a row of its own at the end of its
box, so a new setting is its dataclass field (docs/architecture.md, "What a change touches"). A disabled row (a setting the
chosen scorer or schedule does not use) asks for nothing: the field keeps the engine's default.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.corpus import CorpusChoice, VocabularySizes
from engine.corpus.tasks import dates
from engine.settings import HIDDEN_SIZE_FIELDS, SCORER_TABLE, ModelShape, TrainConfig, described
from gui.scorer_labels import scorer_formula, scorer_label
from gui.training.corpus import CorpusEntry, builtin_entries
from gui.training.corpus_view import CorpusPreview
from gui.training.rows import read_value, row_widget, spin, write_value
from gui.training.setting_texts import setting_text
from gui.training.settings import CORPUS_PRESET, TASK_PRESET, Preset, RunSettings
from gui.training.snapshot_note import SnapshotCostNote

ALL_SCORERS = "*"  # the scorer combo's "one run per scorer" choice
FILE_DIRECTIONS = ((QT_TRANSLATE_NOOP("TrainingForm", "Chinese → English"), ("zh", "en")),
                   (QT_TRANSLATE_NOOP("TrainingForm", "English → Chinese"), ("en", "zh")))
TASK_DIRECTIONS = ((QT_TRANSLATE_NOOP("TrainingForm", "Human date → ISO 8601"), (dates.SOURCE_LANGUAGE, dates.TARGET_LANGUAGE)),)
RECENT_KEY = "training/recentCorpora"
MAX_RECENT = 5
SECTIONS = {"model": ModelShape, "train": TrainConfig, "vocabularies": VocabularySizes}  # RunSettings' parts


@dataclass(frozen=True)
class _Binding:
    """A form row and the dataclass fields it sets (one spin box may set several, e.g. the hidden sizes)."""

    widget: QWidget
    section: str  # a key of SECTIONS
    fields: tuple[str, ...]


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
        self.corpus_combo.setToolTip(self.tr("What the model learns from: the built-in dates task, the Tatoeba "
                                             "Chinese–English corpus, or any TSV file (English<TAB>Chinese per line)"))
        self.browse_button = QPushButton(self.tr("Open TSV…"))
        self.browse_button.setObjectName("trainBrowseButton")
        self.browse_button.setToolTip(self.tr("Pick a corpus file: one English<TAB>Chinese[<TAB>attribution] pair a line"))
        self.browse_button.clicked.connect(self._browse)
        corpus_row = QHBoxLayout()
        corpus_row.addWidget(self.corpus_combo, 1)
        corpus_row.addWidget(self.browse_button)
        self.preview = CorpusPreview()
        corpus_box = QGroupBox(self.tr("Corpus"))
        corpus_layout = QVBoxLayout(corpus_box)
        corpus_layout.addLayout(corpus_row)
        corpus_layout.addWidget(self.preview)
        self.token_cache = QCheckBox(self.tr("Big corpus: stream it and train from a token cache"))
        self.token_cache.setObjectName("trainTokenCacheCheck")
        self.token_cache.setToolTip(self.tr("For corpora of hundreds of thousands of pairs or more: read the file once "
                                            "in a streaming pass, train the tokenizers on a sample, and keep the training "
                                            "pairs as sub-word ids on disk, reused by later runs on the same file (memory "
                                            "stays bounded). Long examples need the text each epoch and are off with it"))
        corpus_layout.addWidget(self.token_cache)
        # -- model ---------------------------------------------------------------------------
        self.direction_combo = QComboBox()
        self.direction_combo.setObjectName("trainDirectionCombo")
        self.direction_combo.setToolTip(self.tr("Which side is the source (read by the encoder) and which the target"))
        self.scorer_combo = QComboBox()
        self.scorer_combo.setObjectName("trainScorerCombo")
        self._offer_scorers()
        self.cell_combo = row_widget(ModelShape, "cell", task_model.cell)
        self.cell_combo.setObjectName("trainCellCombo")
        self.embedding = row_widget(ModelShape, "embedding_size", task_model.embedding_size)
        self.hidden = row_widget(ModelShape, "decoder_hidden_size", task_model.decoder_hidden_size)
        self.dropout = row_widget(ModelShape, "dropout", task_model.dropout)
        self.attention_dropout = row_widget(ModelShape, "attention_dropout", task_model.attention_dropout)
        self.attention_dropout.setObjectName("trainAttentionDropoutSpin")
        self.source_vocab = spin(0, 64000, 0, self.tr("Source SentencePiece vocabulary; 'default' uses the engine's "
                                                      "size for the language (shrinks by itself on small corpora)"),
                                 500, self.tr("default"))
        self.target_vocab = spin(0, 64000, 0, self.tr("Target SentencePiece vocabulary; 'default' uses the engine's "
                                                      "size for the language"), 500, self.tr("default"))
        self.tie_embeddings = row_widget(ModelShape, "tie_embeddings", task_model.tie_embeddings)
        self.tie_embeddings.setObjectName("trainTieCheck")
        self._bind(self.cell_combo, "model", "cell")
        self._bind(self.embedding, "model", "embedding_size")
        self._bind(self.hidden, "model", *HIDDEN_SIZE_FIELDS)  # the one hidden size (engine.settings.config)
        self._bind(self.dropout, "model", "dropout")
        self._bind(self.attention_dropout, "model", "attention_dropout")
        self._bind(self.tie_embeddings, "model", "tie_embeddings")
        self._bind(self.source_vocab, "vocabularies", "source")
        self._bind(self.target_vocab, "vocabularies", "target")
        model_box = QGroupBox(self.tr("Model"))
        model_form = QFormLayout(model_box)
        model_form.addRow(self.tr("Direction"), self.direction_combo)
        model_form.addRow(self.tr("Attention"), self.scorer_combo)
        model_form.addRow(self._label("model", "cell"), self.cell_combo)
        sizes = QHBoxLayout()
        sizes.addWidget(self.embedding)
        sizes.addWidget(self.hidden)
        model_form.addRow(self.tr("Embedding / hidden"), sizes)
        model_form.addRow(self._label("model", "dropout"), self.dropout)
        model_form.addRow(self._label("model", "attention_dropout"), self.attention_dropout)
        vocab = QHBoxLayout()
        vocab.addWidget(self.source_vocab)
        vocab.addWidget(self.target_vocab)
        model_form.addRow(self.tr("Vocab src / tgt"), vocab)
        model_form.addRow("", self.tie_embeddings)
        self._add_remaining_rows(model_form, "model")
        # -- training ------------------------------------------------------------------------
        self.epochs = row_widget(TrainConfig, "epochs", task_train.epochs)
        self.minutes = row_widget(TrainConfig, "max_minutes", 0.0)
        self.batch_size = row_widget(TrainConfig, "batch_size", TrainConfig.batch_size)
        self.learning_rate = row_widget(TrainConfig, "learning_rate", TrainConfig.learning_rate)
        self.lr_schedule = row_widget(TrainConfig, "lr_schedule", TrainConfig.lr_schedule)
        self.lr_schedule.setObjectName("trainScheduleCombo")
        self.minutes.valueChanged.connect(self._budget_changed)
        self.temperature_warmup = row_widget(TrainConfig, "temperature_warmup", task_train.temperature_warmup)
        self.temperature_warmup.setObjectName("trainWarmupSpin")
        self.concat_max = row_widget(TrainConfig, "concat_max_group", task_train.concat_max_group)
        self.concat_max.setObjectName("trainConcatMaxSpin")
        self.concat_share = row_widget(TrainConfig, "concat_share", task_train.concat_share)
        self.concat_share.setObjectName("trainConcatShareSpin")
        self.concat_start = row_widget(TrainConfig, "concat_start", task_train.concat_start)
        self.concat_start.setObjectName("trainConcatStartSpin")
        self.concat_max.valueChanged.connect(self._concat_changed)
        self.token_cache.toggled.connect(self._concat_changed)
        self.scorer_combo.currentIndexChanged.connect(self._scorer_changed)
        self.validate_every = row_widget(TrainConfig, "validate_every_steps", 0)
        self.patience = row_widget(TrainConfig, "early_stopping_patience", TrainConfig.early_stopping_patience)
        self.seed = row_widget(TrainConfig, "seed", TrainConfig.seed)
        self.run_name = QLineEdit()
        self.run_name.setObjectName("trainRunNameEdit")
        self.run_name.setPlaceholderText(self.tr("automatic, e.g. dates-additive-20261129-1830"))
        self.run_name.setToolTip(self.tr("Name of the model folder in your data folder; made from corpus, scorer and "
                                         "time when empty"))
        for widget, name in ((self.epochs, "epochs"), (self.minutes, "max_minutes"), (self.batch_size, "batch_size"),
                             (self.learning_rate, "learning_rate"), (self.lr_schedule, "lr_schedule"),
                             (self.temperature_warmup, "temperature_warmup"), (self.concat_max, "concat_max_group"),
                             (self.concat_share, "concat_share"), (self.concat_start, "concat_start"),
                             (self.validate_every, "validate_every_steps"),
                             (self.patience, "early_stopping_patience"), (self.seed, "seed")):
            self._bind(widget, "train", name)
        train_box = QGroupBox(self.tr("Training"))
        train_form = QFormLayout(train_box)
        for widget, name in ((self.epochs, "epochs"), (self.minutes, "max_minutes"), (self.batch_size, "batch_size"),
                             (self.learning_rate, "learning_rate"), (self.lr_schedule, "lr_schedule"),
                             (self.temperature_warmup, "temperature_warmup")):
            train_form.addRow(self._label("train", name), widget)
        long_examples = QHBoxLayout()
        long_examples.addWidget(self.concat_max)
        long_examples.addWidget(self.concat_share)
        long_examples.addWidget(self.concat_start)
        train_form.addRow(self.tr("Long examples (K / share / from)"), long_examples)
        for widget, name in ((self.validate_every, "validate_every_steps"), (self.patience, "early_stopping_patience"),
                             (self.seed, "seed")):
            train_form.addRow(self._label("train", name), widget)
        self._add_remaining_rows(train_form, "train")
        train_form.addRow(self.tr("Run name"), self.run_name)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(corpus_box)
        layout.addWidget(model_box)
        layout.addWidget(train_box)
        self._offer_corpora()
        self.corpus_combo.currentIndexChanged.connect(self._corpus_selected)
        self._corpus_selected()
        self._budget_changed()
        self._scorer_changed()
        self._concat_changed()
        keep = next(b.widget for b in self._bindings if b.fields == ("keep_snapshots",))
        self.snapshot_note = SnapshotCostNote(self, keep, train_form)  # what the kept snapshots take on disk

    def _offer_scorers(self) -> None:
        """Each row of the scorer registry as it is now (its formula in the tooltip), then all of them one run
        after another."""
        for row in SCORER_TABLE.values():
            self.scorer_combo.addItem(scorer_label(row), row.name)
            self.scorer_combo.setItemData(self.scorer_combo.count() - 1, scorer_formula(row.formula), Qt.ItemDataRole.ToolTipRole)
        every = self.tr("All %1").replace("%1", str(len(SCORER_TABLE)))  # the registry's count
        self.scorer_combo.addItem(self.tr("%1, one run after another").replace("%1", every), ALL_SCORERS)
        self.scorer_combo.setToolTip(self.tr("How the decoder scores each source position, e_ij = F(s_{i-1}, h_j) (each "
                                             "choice shows its formula); '%1' queues one run per scorer with the "
                                             "same settings, to compare their curves").replace("%1", every))

    def _offer_corpora(self) -> None:
        """The built-in corpora, then the TSV files opened lately that are still there."""
        for entry in builtin_entries():
            self.corpus_combo.addItem(entry.label, entry)
        for path in self._recent_files():
            if path.is_file() and self._find(path) < 0:
                self.corpus_combo.addItem(CorpusEntry.file(path).label, CorpusEntry.file(path))

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
        name, _ = QFileDialog.getOpenFileName(self, self.tr("Open a corpus"), start,
                                              self.tr("Tab-separated text (*.tsv *.txt);;All files (*)"))
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
                self.direction_combo.addItem(self.tr(label), languages)
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
                write_value(binding.widget, getattr(part, binding.fields[0]))

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
        """A row of one model family (engine.settings.settings_meta's ``family``) is offered only for that family's
        mechanisms, the score warm-up only for the unscaled scorers, attention dropout only for the attention
        scorers: each only when a run it changes may be trained."""
        chosen = self.scorer_combo.currentData()
        family = None if chosen == ALL_SCORERS else SCORER_TABLE[chosen].family
        for binding in self._bindings:  # a row that shapes one family of models only (the RNN's cell, the layers…)
            descriptions = described(SECTIONS[binding.section])
            families = {descriptions[name].family for name in binding.fields if name in descriptions} - {""}
            if families:
                binding.widget.setEnabled(family is None or families == {family})
        self.temperature_warmup.setEnabled(chosen == ALL_SCORERS or SCORER_TABLE[chosen].unscaled)
        self.attention_dropout.setEnabled(chosen == ALL_SCORERS or SCORER_TABLE[chosen].uses_attention)

    # -- settings ------------------------------------------------------------------------------
    def _bind(self, widget: QWidget, section: str, *names: str) -> None:
        """Make ``widget`` the form row of the ``section`` dataclass's fields ``names``."""
        self._bindings.append(_Binding(widget, section, names))

    @staticmethod
    def _label(section: str, name: str) -> str:
        """The row's label, else the field's name and its unit."""
        described_field = described(SECTIONS[section])[name]
        if described_field.row is not None and described_field.row.label:
            return setting_text(described_field.row.label)
        unit = f" ({described_field.unit})" if described_field.unit else ""
        return setting_text(name.replace("_", " ").capitalize() + unit)

    def _add_remaining_rows(self, layout: QFormLayout, section: str) -> None:
        """A row of its own, at the end of the box, for every field the form shows but no row binds yet
        (a new setting appears without a line here)."""
        bound = {name for binding in self._bindings if binding.section == section for name in binding.fields}
        defaults = SECTIONS[section]()
        for name, described_field in described(SECTIONS[section]).items():
            if described_field.shown and name not in bound:
                widget = row_widget(SECTIONS[section], name, getattr(defaults, name))
                widget.setObjectName(f"train_{section}_{name}")
                self._bind(widget, section, name)
                layout.addRow("" if isinstance(widget, QCheckBox) else self._label(section, name), widget)

    def _section(self, section: str, **chosen: Any):
        """The ``section`` dataclass from its enabled rows (the others keep the engine's defaults);
        raises ConfigError naming a bad combination."""
        values = dict(chosen)
        for binding in self._bindings:
            if binding.section == section and binding.widget.isEnabledTo(self):
                values.update(dict.fromkeys(binding.fields, read_value(binding.widget)))
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
        scorers = tuple(SCORER_TABLE) if chosen == ALL_SCORERS else (chosen,)
        suffix = len(scorers) > 1 and bool(base.name)
        return [replace(base, model=replace(base.model, scorer=s), name=f"{base.name}-{s}" if suffix else base.name)
                for s in scorers]

    def set_scorer(self, name: str) -> None:
        self.scorer_combo.setCurrentIndex(max(self.scorer_combo.findData(name), 0))
