"""The main window as the lesson's host (gui/lesson/host.LessonHost), and the Lesson dock.

Every Show me action is done here with the call the user's own click makes: a direction or scorer
chosen in its box (the box's ``activated``), a sentence translated as the examples menu translates it,
a step pinned as a click on its output token pins it, the Length study opened with its button, the
Compare tab's shared target with its button. The events a Try it checks come from the tabs' own
signals (gui/lesson/checks.py lists them). This module and gui/main_window.py are the only ones that
know both the lesson and the tabs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtWidgets import QWidget

from engine.files import RESOURCES
from gui.compare.model import OWN_OUTPUTS
from gui.lesson import messages
from gui.lesson.chapter import Action
from gui.lesson.checks import same_word
from gui.lesson.dock import LessonDock
from gui.lesson.flash import Outline
from gui.lesson.host import ActionError, LessonEvents, Settled
from gui.lesson.panel import LessonPanel
from gui.translate.model_view_link import DISABLED_TIP as LAYERS_DISABLED

if TYPE_CHECKING:
    from gui.main_window import MainWindow

LESSONS_FOLDER = RESOURCES / "lessons"


def word_at(panel, piece: int, source: bool = False) -> str:
    """The word (engine/text/words.py: Chinese by its segmenter) that output piece ``piece`` — or source
    piece, with ``source`` — of ``panel``'s decode belongs to ("" for none)."""
    units = panel.units_cache.units(tuple(panel.source_tokens()), tuple(panel.target_tokens()), True)
    split = units.source if source else units.target
    if not 0 <= piece < len(split.pieces):
        return ""
    return split.words[split.word_of(piece)]


def strongest_word(panel, row: int, column: int) -> bool:
    """Whether source piece ``column``'s word holds the largest α (summed over a word's pieces) of
    output piece ``row``'s word."""
    units = panel.units_cache.units(tuple(panel.source_tokens()), tuple(panel.target_tokens()), True)
    if not (0 <= row < len(units.target.pieces) and 0 <= column < len(units.source.pieces)):
        return False
    words = panel.word_attention()
    word_row = units.target.word_of(row)
    return 0 <= word_row < len(words) and int(words[word_row].argmax()) == units.source.word_of(column)


class WindowLessonHost(QObject):
    """What the lesson may do with the window and hear from it."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.events = LessonEvents(self)
        self._run_ended = True
        self._run_started = False
        self._compared = True
        self._aligning = False  # the word aligner links a shared target after the maps are forced on it
        self._validated_panel: QObject | None = None
        self._wire()

    # -- events -----------------------------------------------------------------------------
    def _emit(self, kind: str, **data: Any) -> None:
        self.events.happened.emit(kind, data)

    def _wire(self) -> None:
        w = self.window
        tab, panel = w.translate_tab, w.translate_tab.view.attention_panel
        controller = tab.controller
        controller.catalogChanged.connect(lambda _choices: self.events.modelsChanged.emit())
        controller.runStarted.connect(self._on_run_started)
        controller.runEnded.connect(self._on_run_ended)
        controller.runFinished.connect(self._on_translated)
        panel.stepSelected.connect(lambda index: self._emit("step_selected", word=word_at(panel, index)))
        panel.cellClicked.connect(self._on_cell_clicked)
        tab.view.length_study_button.clicked.connect(lambda: self._emit("length_study_opened"))
        tab.view.layers_button.clicked.connect(lambda: self._emit("layers_opened"))
        tab.view.choice_bar.speed_slider.valueChanged.connect(lambda value: self._emit("speed", position=value))
        for bar in (panel.view_bar, w.compare_tab.view_bar):
            bar.wordViewChanged.connect(lambda on: self._emit("word_view", on=bool(on)))
        compare = w.compare_tab.controller
        compare.runStarted.connect(lambda _run: setattr(self, "_compared", False))
        compare.runFinished.connect(self._on_compared)
        compare.alignerStarted.connect(lambda: setattr(self, "_aligning", True))
        compare.alignerReady.connect(self._on_aligned)
        w.tabs.currentChanged.connect(self._on_tab)
        w.train_tab.pointChosen.connect(lambda _folder, _step: self._emit("travelled"))

    def _on_run_started(self, _info) -> None:
        self._run_started, self._run_ended = True, False

    def _on_run_ended(self, _outcome: str) -> None:
        self._run_ended = True

    def _on_translated(self, translation) -> None:
        tab = self.window.translate_tab
        entry = tab.controller.entry
        words = [word for word in translation.text.replace(".", " ").split()]
        self._emit("translated", direction=entry.direction if entry else "", scorer=entry.scorer if entry else "",
                   source_tokens=len(tab.view.attention_panel.source_tokens()), words=words,
                   steered=tab.whatif.active)

    def _on_cell_clicked(self, row: int, column: int, _shift: bool) -> None:
        panel = self.window.translate_tab.view.attention_panel
        self._emit("cell_clicked", word=word_at(panel, row), source=word_at(panel, column, source=True),
                   is_max=strongest_word(panel, row, column))

    def _on_aligned(self, aligned) -> None:
        """The word aligner's map for the shared target (None: the maps share none): an event when it has links."""
        self._aligning = False
        if aligned is not None and aligned.links:
            self._emit("aligner_shown", links=len(aligned.links))

    def _on_compared(self) -> None:
        self._compared = True
        self._emit("compared", shared_target=self.window.compare_tab.target_choice() != OWN_OUTPUTS)

    def _on_tab(self, index: int) -> None:
        w = self.window
        page = w.tabs.widget(index)
        key = {w.translate_tab: "translate", w.compare_tab: "compare", w.train_tab: "train"}.get(page, "")
        self._emit("tab_shown", tab=key)
        self._hook_training()

    def _hook_training(self) -> None:
        """The Train tab's view is built when first shown: hear its validations once it exists."""
        training = self.window.training_panel
        if training is not None and training is not self._validated_panel:
            self._validated_panel = training
            training.controller.validated.connect(lambda _record: self._emit("validated"))

    # -- the protocol -----------------------------------------------------------------------
    def has_model(self, name: str) -> bool | None:
        choices = self.window.translate_tab.controller.choices
        if choices is None:
            return None
        direction, _, scorer = name.rpartition("-")
        return any(o.name == scorer and o.enabled for o in choices.options(direction)) if direction else False

    def widget(self, name: str) -> QWidget | None:
        found = [w for w in self.window.findChildren(QWidget, name) if w.isVisible()]
        return found[0] if found else None

    def state(self) -> dict[str, Any]:
        w = self.window
        tab, panel = w.translate_tab, w.translate_tab.view.attention_panel
        entry, bar = tab.controller.entry, tab.view.choice_bar
        page = w.tabs.currentWidget()
        dialog = tab.length_study.dialog
        layers = tab.model_view.window
        inspected = panel._pinned
        return {
            "tab": {w.translate_tab: "translate", w.compare_tab: "compare", w.train_tab: "train"}.get(page, ""),
            "model": f"{entry.direction}-{entry.scorer}" if entry else "",
            "beam": bar.beam_spin.value(), "speed": bar.speed_slider.value(),
            "word_view": self._current_view_bar().word_view(), "color_scale": self._current_view_bar().scale_name(),
            "source": tab.controller.text, "running": tab.controller.running,
            "step": word_at(panel, inspected) if inspected >= 0 else "",
            "length_study": bool(dialog is not None and dialog.isVisible()),
            "layers": layers.kind if layers is not None and layers.isVisible() else "",  # its maps' kind, "" closed
            "attention_mode": tab.view.whatif_bar.attend_button.isChecked(),
            "compare_text": w.compare_tab.input.text(), "compare_target": w.compare_tab.target_choice(),
            "train_corpus": (w.training_panel.form.current_entry().task or "") if w.training_panel else "",
        }

    def perform(self, action: Action) -> Settled:
        handler = getattr(self, "_do_" + action.name, None)
        if handler is None:
            raise ActionError(messages.unknown_action(action.name))
        return handler(**action.params)

    # -- the actions (gui/lesson/schema.ACTIONS) ------------------------------------------
    def _do_open_tab(self, tab: str) -> Settled:
        w = self.window
        w.tabs.setCurrentWidget({"translate": w.translate_tab, "compare": w.compare_tab, "train": w.train_tab}[tab])
        return None

    def _do_select_model(self, direction: str, scorer: str) -> Settled:
        tab = self.window.translate_tab
        self.window.tabs.setCurrentWidget(tab)
        controller = tab.controller
        if controller.choices is None:  # the models are still being looked for: wait, then choose
            return self._after(lambda: controller.choices is not None, lambda: self._do_select_model(direction, scorer))
        if self.has_model(f"{direction}-{scorer}") is False:
            raise ActionError(messages.model_missing(f"{direction}-{scorer}"))
        bar = tab.view.choice_bar
        if bar.current_direction() != direction:
            index = bar.direction_combo.findData(direction)
            bar.direction_combo.setCurrentIndex(index)
            bar.direction_combo.activated.emit(index)  # what a click on the item emits
        if bar.current_scorer() != scorer or controller.entry is None or controller.entry.scorer != scorer:
            index = bar.scorer_combo.findData(scorer)
            bar.scorer_combo.setCurrentIndex(index)
            bar.scorer_combo.activated.emit(index)

        def loaded() -> bool:
            entry = controller.entry
            return (entry is not None and (entry.direction, entry.scorer) == (direction, scorer)
                    and controller.bundle is not None and not controller.loading)
        return loaded

    def _after(self, ready, then) -> Settled:
        """Wait until ``ready()``, then do ``then()`` and wait for what it gives back."""
        state: dict[str, Settled] = {}

        def settled() -> bool:
            if "next" not in state:
                if not ready():
                    return False
                state["next"] = then()
            follow = state["next"]
            return follow is None or follow()
        return settled

    def _do_set_beam(self, size: int) -> Settled:
        self.window.translate_tab.view.choice_bar.beam_spin.setValue(size)
        return None

    def _do_set_speed(self, position: int) -> Settled:
        self.window.translate_tab.view.choice_bar.speed_slider.setValue(position)
        return None

    def _current_view_bar(self):
        w = self.window
        return w.compare_tab.view_bar if w.tabs.currentWidget() is w.compare_tab else \
            w.translate_tab.view.attention_panel.view_bar

    def _do_word_view(self, on: bool) -> Settled:
        self._current_view_bar().words.setChecked(on)
        return None

    def _do_color_scale(self, scale: str) -> Settled:
        self._current_view_bar().set_scale(scale)
        return None

    def _do_translate(self, text: str, wait: str = "finished") -> Settled:
        tab = self.window.translate_tab
        self.window.tabs.setCurrentWidget(tab)
        tab.steering.reset()
        self._run_started, self._run_ended = False, False
        tab.translate_text(text)  # as the examples menu does
        if not self._run_started and not tab.controller.running:
            hint = tab.view.hint_label.text() or tab.view.error_label.text()
            raise ActionError(messages.not_translated(hint))
        return (lambda: self._run_started) if wait == "started" else (lambda: self._run_ended)

    def _do_select_step(self, token: str) -> Settled:
        panel = self.window.translate_tab.view.attention_panel
        tokens = panel.target_tokens()
        for index in range(len(tokens)):
            if same_word(token, word_at(panel, index)):
                panel.select_step(index)  # what a click on the output token does
                return None
        raise ActionError(messages.no_such_word(token, " ".join(tokens)))

    def _do_open_length_study(self) -> Settled:
        tab = self.window.translate_tab
        self.window.tabs.setCurrentWidget(tab)
        tab.view.length_study_button.click()
        return None

    def _do_open_layers(self, kind: str = "cross") -> Settled:
        """The Layers window of the last Transformer translation, showing ``kind``'s maps (what its button does)."""
        tab = self.window.translate_tab
        self.window.tabs.setCurrentWidget(tab)
        if not tab.view.layers_button.isEnabled():
            raise ActionError(QCoreApplication.translate("ModelViewLink", LAYERS_DISABLED))  # its tooltip: why
        tab.view.layers_button.click()
        view = tab.model_view.window
        if view is not None:
            view.kind_box.setCurrentIndex(view.kind_box.findData(kind))
        return None

    def _do_compare(self, text: str, reference: str = "") -> Settled:
        w = self.window
        w.compare_sentence(text, reference)  # what the Translate tab's "Compare" button does
        compare = w.compare_tab.controller
        self._compared = False
        return lambda: self._compared and not compare.busy and not self._aligning

    def _do_compare_shared_target(self) -> Settled:
        if self.window.compare_tab.target_choice() != OWN_OUTPUTS:
            return None  # the maps already share one target
        button = self.window.compare_tab.difference.share_button
        if not (button.isVisibleTo(self.window) and button.isEnabled()):
            raise ActionError(messages.no_shared_target())
        self._compared = False
        button.click()
        compare = self.window.compare_tab.controller
        return lambda: self._compared and not compare.busy and not self._aligning

    def _do_set_attention_mode(self, on: bool) -> Settled:
        button = self.window.translate_tab.view.whatif_bar.attend_button
        if not button.isEnabled():
            raise ActionError(messages.no_attention())
        button.setChecked(on)
        return None

    def _do_open_training(self, corpus: str) -> Settled:
        w = self.window
        w.tabs.setCurrentWidget(w.train_tab)
        panel = w.train_tab.build()
        if panel is None:
            raise ActionError(messages.train_tab_not_ready())
        self._hook_training()
        combo = panel.form.corpus_combo
        for index in range(combo.count()):
            entry = combo.itemData(index)
            task = getattr(entry, "task", None)
            if (corpus == "dates" and task == "dates") or (corpus == "tatoeba" and task is None and index > 0):
                combo.setCurrentIndex(index)
                return None
        raise ActionError(messages.no_corpus(corpus))

    def _do_highlight(self, widget: str) -> Settled:
        target = self.widget(widget)
        if target is None:
            raise ActionError(messages.no_widget(widget))
        Outline(target)
        return None


def install_lesson(window: MainWindow) -> LessonDock:
    """The Lesson dock (hidden until the Lesson button beside the tabs is pressed)."""
    host = WindowLessonHost(window)
    panel = LessonPanel(host, LESSONS_FOLDER)
    dock = LessonDock(panel, window)
    dock.place_button(window.tabs)
    window.lesson_host = host
    window.lesson_panel = panel
    window.lesson_button = dock.button
    return dock
