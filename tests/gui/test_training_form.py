"""The training form against the engine's settings: every row reaches its dataclass field, presets
fill the rows, and a new setting cannot be added to one layer and forgotten in another."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QSpinBox

from engine.__main__ import build_parser
from engine.corpus.choice import VocabularySizes
from engine.settings import SCORER_NAMES
from engine.settings.config import ModelShape, TrainConfig
from engine.settings.errors import ConfigError
from engine.settings.scorer_table import SCORER_TABLE
from engine.settings.settings_meta import Row, described, flag_name, setting
from gui.training import form as form_module
from gui.training.form import ALL_SCORERS, SECTIONS, TrainingForm
from gui.training.settings import CORPUS_PRESET, TASK_PRESET

# Fields that keep the engine's value in the app (a run in the app has no say over them): for the
# described dataclasses, the fields whose setting has no form row (engine/settings/settings_meta.py); the
# scorer has its own combo, which also offers "all" (handled by settings()).
NOT_IN_FORM = {section: {name for name, s in described(SECTIONS[section]).items() if not s.shown}
               for section in SECTIONS}
# Fields the command line does not offer as flags of their own (docs/command-line.md): the three
# hidden sizes share one --hidden-size.
NOT_ON_COMMAND_LINE = {name for settings_class in (ModelShape, TrainConfig)
                       for name, s in described(settings_class).items() if s.flag is None}


@pytest.fixture
def form(qtbot):
    widget = TrainingForm()
    qtbot.addWidget(widget)
    return widget


def _bound_fields(form: TrainingForm, section: str) -> set[str]:
    return {name for binding in form._bindings if binding.section == section for name in binding.fields}


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_every_setting_has_a_form_row_or_is_deliberately_left_to_the_engine(form, section):
    every = {f.name for f in fields(SECTIONS[section])}
    bound = _bound_fields(form, section)
    assert bound <= every
    assert every - bound == NOT_IN_FORM[section], "a settings field without a form row: bind one, or list it"


def test_every_setting_has_a_command_line_flag_that_stores_under_its_name():
    parser = build_parser()._subparsers._group_actions[0].choices["train"]
    destinations = {action.dest for action in parser._actions}
    for settings_class in (ModelShape, TrainConfig, VocabularySizes):
        missing = {f.name for f in fields(settings_class)} - destinations - NOT_ON_COMMAND_LINE
        assert not missing, f"{settings_class.__name__} fields without a train flag: {sorted(missing)}"
    assert NOT_ON_COMMAND_LINE.isdisjoint(destinations)  # a field said to have no flag has none
    flags = {action.dest: action for action in parser._actions}
    for settings_class in (ModelShape, TrainConfig):
        for name, described_field in described(settings_class).items():
            if described_field.flag is not None:
                assert flag_name(name, described_field) in flags[name].option_strings
                assert flags[name].required or flags[name].default == getattr(settings_class, name)


def test_rows_take_their_range_tooltip_and_label_from_the_fields_description(form):
    for binding in form._bindings:
        if binding.section == "vocabularies":
            continue  # not described (engine/training/jobs.py)
        described_field = described(SECTIONS[binding.section])[binding.fields[0]]
        assert described_field.shown, binding.fields
        assert binding.widget.toolTip() == (described_field.row.tip or described_field.help)
        if isinstance(binding.widget, (QSpinBox, QDoubleSpinBox)):
            low, high = described_field.form_range()
            assert (binding.widget.minimum(), binding.widget.maximum()) == pytest.approx((low, high))
            assert (described_field.low is None  # the form offers no value the engine refuses
                    or described_field.low <= binding.widget.minimum() <= binding.widget.maximum()
                    <= described_field.high)
    assert form.epochs.toolTip().startswith("Maximum passes") and form.dropout.maximum() == 0.9


@dataclass(frozen=True)
class _TrainWithANewSetting(TrainConfig):
    warmup_steps: int = setting(0, low=0, high=10_000, unit="steps", row=Row(step=100, special="off"),
                                help="linear learning-rate warm-up over N steps (0 = off)")


def test_a_new_described_setting_gets_a_form_row_of_its_own(qtbot, monkeypatch):
    monkeypatch.setitem(SECTIONS, "train", _TrainWithANewSetting)
    for name in ("TASK_PRESET", "CORPUS_PRESET"):
        preset = getattr(form_module, name)
        monkeypatch.setattr(form_module, name, replace(preset, train=_TrainWithANewSetting(**preset.train.to_dict())))
    widget = TrainingForm()
    qtbot.addWidget(widget)
    [binding] = [b for b in widget._bindings if b.fields == ("warmup_steps",)]
    assert (binding.widget.maximum(), binding.widget.specialValueText()) == (10_000, "off")
    assert binding.widget.toolTip().startswith("linear learning-rate warm-up")
    assert binding.widget.parentWidget().layout().labelForField(binding.widget).text() == "Warmup steps (steps)"
    binding.widget.setValue(300)
    [settings] = widget.settings()
    assert settings.train.warmup_steps == 300


def _changed(widget, value):
    """A valid value other than ``value`` for ``widget``."""
    if isinstance(widget, QCheckBox):
        return not value
    if isinstance(widget, QComboBox):
        return next(widget.itemData(i) for i in range(widget.count()) if widget.itemData(i) != value)
    step = widget.singleStep()
    return value + step if value + step <= widget.maximum() else value - step


def _family(binding) -> str:
    descriptions = described(SECTIONS[binding.section])
    return next((descriptions[name].family for name in binding.fields
                 if name in descriptions and descriptions[name].family), "")


@pytest.mark.parametrize("scorer", ["dot", "transformer"])  # an RNN scorer and the Transformer: each family's rows
def test_every_form_row_reaches_its_engine_field(form, scorer):
    form.set_scorer(scorer)  # every row of its family offered (the score warm-up is for the unscaled scorers)
    form.minutes.setValue(10)  # the budget schedule needs a time budget
    form.concat_max.setValue(4)  # the share and start need pairs to join
    family = SCORER_TABLE[scorer].family
    for binding in form._bindings:
        if _family(binding) not in ("", family) or binding.widget is form.temperature_warmup and scorer != "dot":
            assert not binding.widget.isEnabled(), binding.fields  # another family's row: not offered
            continue
        [before] = form.settings()
        old = getattr(getattr(before, binding.section), binding.fields[0])
        new = _changed(binding.widget, old)
        if isinstance(binding.widget, QCheckBox):
            binding.widget.setChecked(new)
        elif isinstance(binding.widget, QComboBox):
            binding.widget.setCurrentIndex(binding.widget.findData(new))
        else:
            binding.widget.setValue(new)
        [after] = form.settings()
        part = getattr(after, binding.section)
        for name in binding.fields:
            assert getattr(part, name) == pytest.approx(new), (binding.section, name)


def test_a_transformer_run_takes_its_own_rows_and_leaves_the_rnns_at_the_engines_defaults(form):
    form.set_scorer("transformer")
    [binding] = [b for b in form._bindings if b.fields == ("feedforward_size",)]
    binding.widget.setValue(512)
    form.hidden.setValue(form.hidden.value() + 32)  # disabled: the RNN's sizes mean nothing to a Transformer
    [settings] = form.settings()
    assert settings.model.feedforward_size == 512 and settings.model.decoder_hidden_size == 256
    assert not form.cell_combo.isEnabled() and not form.hidden.isEnabled()
    form.set_scorer("additive")
    assert not binding.widget.isEnabled() and form.cell_combo.isEnabled()


def test_presets_fill_the_rows_and_a_disabled_row_keeps_the_engines_default(form):
    form.set_scorer("bilinear")
    form.apply_preset(CORPUS_PRESET)
    [settings] = form.settings()
    assert settings.model == CORPUS_PRESET.model.__class__(**{**CORPUS_PRESET.model.to_dict(), "scorer": "bilinear"})
    assert settings.train == CORPUS_PRESET.train
    form.set_scorer("none")  # no attention to drop, no scores to warm up
    form.attention_dropout.setValue(0.3)
    [settings] = form.settings()
    assert settings.model.attention_dropout == 0.0 and settings.train.temperature_warmup == 0.0
    form.concat_max.setValue(1)  # nothing to join: share and start are the engine's "off"
    [settings] = form.settings()
    assert (settings.train.concat_share, settings.train.concat_start) == (0.0, 0.0)
    form.apply_preset(TASK_PRESET)
    [settings] = form.settings()
    assert settings.train == TASK_PRESET.train


def test_all_scorers_gives_one_run_per_scorer_and_a_bad_combination_names_the_fix(form):
    index = form.scorer_combo.findData(ALL_SCORERS)
    assert form.scorer_combo.itemText(index).startswith(f"All {len(SCORER_NAMES)},")  # the registry's count
    form.scorer_combo.setCurrentIndex(index)
    form.run_name.setText("cmp")
    runs = form.settings()
    assert [r.model.scorer for r in runs] == list(SCORER_NAMES)
    assert [r.name for r in runs] == [f"cmp-{r.model.scorer}" for r in runs]
    form.source_vocab.setValue(4)  # below SentencePiece's floor, yet the spin box allows it
    with pytest.raises(ConfigError, match="source vocabulary"):
        form.settings()


def test_rows_read_as_the_widgets_show_them(form):
    form.learning_rate.setValue(0.00123)
    form.dropout.setValue(0.35)
    [settings] = form.settings()
    assert settings.train.learning_rate == 0.00123 and settings.model.dropout == 0.35
    assert all(isinstance(b.widget, (QSpinBox, QDoubleSpinBox, QCheckBox, QComboBox)) for b in form._bindings)


def test_the_token_cache_is_offered_for_corpus_files_and_turns_long_examples_off(form, tmp_path):
    assert not form.token_cache.isEnabled()  # the dates task is generated, not read
    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("".join(f"Sentence number {i}.\t第{i}个句子。\n" for i in range(80)), encoding="utf-8")
    form.add_corpus_file(corpus)
    assert form.token_cache.isEnabled() and form.concat_share.isEnabled()
    form.token_cache.setChecked(True)
    assert not form.concat_max.isEnabled() and not form.concat_share.isEnabled()
    [settings] = form.settings()
    assert settings.corpus.token_cache and settings.train.concat_share == 0.0
    form.corpus_combo.setCurrentIndex(0)  # back to the dates task
    [settings] = form.settings()
    assert not settings.corpus.token_cache
