"""The Translate tab: the view wired to the controller, plus history, examples and the choices
remembered between sessions (QSettings: direction, scorer, beam, speed, and whether to ask before
translating an input in another language than the model's).

Beside it, one module per concern: what-if steering (gui/translate/steering.py), the beam tree
(gui/translate/beam_tree_follow.py), the Length study dialog (gui/translate/study_link.py), the
input's words never seen in training (gui/translate/unseen_words.py), and exports and recorded
sessions (gui/translate/run_export.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, Signal, Slot
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gui.attention.throttle import FrameThrottle
from gui.common.examples import fill_examples_menu, load_examples
from gui.common.tab_protocol import DECODE_STOP_MS, CloseQuestion
from gui.stored_settings import stored_int, stored_text
from gui.translate.beam_tree_follow import BeamTreeFollower, BeamTreeParts
from gui.translate.controller import STOPPED, TranslateController
from gui.translate.controls import SPEED_STEPS, delay_for
from gui.translate.explain_link import ExplainLink
from gui.translate.history import History, fill_history_menu
from gui.translate.input_state import LOADING_HINT, hint_text, input_state
from gui.translate.language_gate import LanguageGate
from gui.translate.model_view_link import ModelViewLink
from gui.translate.run_export import ExportParts, RunExport
from gui.translate.status import ModelStatus
from gui.translate.steering import WhatIfSteering
from gui.translate.study_link import LengthStudyLink, StudyParts
from gui.translate.tab_words import LanguageRefresh, RefreshParts, output_hovered, paste_cut_note, show_model_line
from gui.translate.unseen_words import UnseenWords
from gui.translate.view import TranslateView

if TYPE_CHECKING:
    from engine.decoding import DecodeStep, Translation
    from engine.models import ModelBundle
    from engine.records import ModelEntry
    from gui.translate.beam_dialog import BeamTreeDialog
    from gui.translate.choices import ModelChoices
    from gui.translate.controller import RunInfo
    from gui.translate.length_study.dialog import LengthStudyDialog
    from gui.translate.whatif_state import WhatIf

class TranslateTab(QWidget):
    """Everything of the Translate tab; the main window only places it and its status widget."""

    trainRequested = Signal()
    compareRequested = Signal(str)  # the sentence to decode with every scorer (the Compare tab)
    errorReported = Signal(str, str, str)  # title, message, details
    statusMessage = Signal(str)  # a passing message for the status bar

    shutdown_ms = DECODE_STOP_MS

    def __init__(self, parent: QWidget | None = None, pinned_folder: Path | None = None) -> None:
        """``pinned_folder``: the model folder named on the command line (opened first), if any."""
        super().__init__(parent)
        self.pinned_folder = pinned_folder
        self.view = view = TranslateView()
        self.controller = controller = TranslateController(self)
        self.language = LanguageGate(self.controller, self.view.language_notice, self, self.view)  # another language
        self.status = ModelStatus()
        self.history = History()
        self.examples = load_examples()
        # Known references by source text: the examples', and the length study rows' once chosen.
        self._references = {e.text.strip(): e.reference for group in self.examples.values() for e in group
                            if e.reference}
        self.last_translation: Translation | None = None
        self.run: RunInfo | None = None  # the run shown
        self._run_refused = False  # the error line says why the last run was refused (engine.decoding.finite_output)
        # The helpers, each given the parts it drives (never the tab itself):
        panel, bar, say = view.attention_panel, view.choice_bar, self.statusMessage.emit
        self.steering = WhatIfSteering(  # what the user changed in the current sentence's decode
            view.whatif_bar, panel, controller, view.show_hint, say, lambda: self.beam_tree.update_footer())
        self.beam_tree = BeamTreeFollower(BeamTreeParts(  # the beam tree of the run shown
            view.dock_beam_tree, view.target_output, panel, lambda: controller.running,
            lambda: self.run.beam_size if self.run else bar.beam_spin.value(), self.steering), self)
        self.length_study = LengthStudyLink(StudyParts(self, controller, bar.beam_spin, bar.current_direction,
                                                       lambda text: self.translate_text(text), self.add_reference,
                                                       view.show_hint))
        self.exports = RunExport(ExportParts(self, panel, lambda: self.run, view.target_output.text,
                                             lambda: delay_for(bar.speed_slider.value()), say, lambda: controller.bundle))
        # the attribution the map shows, computed after each decode
        self.explain = ExplainLink(panel.attribution, controller, controller.jobs, panel.render_now, self)
        self.unseen = UnseenWords(self.view)  # the input's words never seen in training
        self._latest_tokens: tuple[str, ...] | None = None  # the output of the newest step, not yet drawn
        self._frame_throttle = FrameThrottle(self._draw_frame, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self._connect()
        self.language_refresh = LanguageRefresh(self, RefreshParts(  # the lines made of several messages, on a switch
            controller, self.status, panel, self._show_choices, self.update_input_state))
        self.update_input_state()

    @property
    def title(self) -> str:
        """The tab's label (the tab protocol's ``title``), in the interface's language."""
        return self.tr("Translate")

    # -- state ------------------------------------------------------------------------------
    @property
    def whatif(self) -> WhatIf:
        """What the user changed in the current sentence's decode (gui/translate/steering.py)."""
        return self.steering.whatif

    @property
    def beam_levels(self) -> list[tuple[int, tuple]]:
        """The current run's beam search, step by step (gui/translate/beam_tree_follow.py)."""
        return self.beam_tree.levels

    # -- wiring -----------------------------------------------------------------------------
    def _connect(self) -> None:
        view, controller, panel = self.view, self.controller, self.view.attention_panel
        controller.catalogChanged.connect(self._on_catalog)
        controller.modelLoading.connect(self._on_loading)
        controller.modelLoaded.connect(self._on_loaded)
        controller.modelFailed.connect(self._on_failed)
        self.view.sessionOpenRequested.connect(self.exports.open_session)
        controller.pastLoaded.connect(self.status.show_past)
        controller.runStarted.connect(self._on_run_started)
        controller.stepArrived.connect(self._on_step)
        controller.runFinished.connect(self._on_finished)
        controller.runEnded.connect(self._on_ended)
        controller.runRefused.connect(self._on_refused)
        controller.runFailed.connect(lambda message, details: self.errorReported.emit(
            self.tr("Decoding failed"), message, details))
        controller.stateChanged.connect(view.transport.set_state)
        controller.engineReady.connect(self.update_input_state)
        view.source_input.textChanged.connect(self.update_input_state)
        view.source_input.textEdited.connect(self._on_text_edited)
        view.source_input.returnPressed.connect(self.translate)
        view.translate_button.clicked.connect(self.translate)
        view.choice_bar.directionChosen.connect(self._on_direction_chosen)
        view.choice_bar.scorerChosen.connect(self._on_scorer_chosen)
        view.choice_bar.beamChanged.connect(self._on_beam_changed)
        view.choice_bar.speedChanged.connect(controller.set_delay)
        view.transport.pauseToggled.connect(lambda paused: controller.pause() if paused else controller.resume())
        view.transport.stepRequested.connect(controller.step)
        view.transport.stopRequested.connect(controller.stop)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=controller.stop)
        view.exportRequested.connect(self.exports.ask_and_export)
        view.trainRequested.connect(self.trainRequested)
        view.length_study_button.clicked.connect(self.open_length_study)
        view.compare_button.clicked.connect(lambda: self.compareRequested.emit(self.view.source_input.text()))
        view.beam_tree_button.clicked.connect(self.open_beam_tree)
        self.model_view = ModelViewLink(view.layers_button, self, view.source_tokens, view.target_output)
        view.history_menu.aboutToShow.connect(
            lambda: fill_history_menu(view.history_menu, self.history, self.translate_text))
        panel.view_bar.wordListNoticed.connect(self.statusMessage)  # once: the word list fell back to characters
        panel.cellHovered.connect(view.highlight_cell)
        panel.stepSelected.connect(view.target_output.highlight)
        view.target_output.tokenHovered.connect(lambda index: output_hovered(self.view, index))
        view.target_output.tokenClicked.connect(panel.select_step)
        view.source_tokens.tokenHovered.connect(panel.highlight_column)
        self.steering.connect()
        self.language.switchRequested.connect(self._on_direction_chosen)
        self.language.anywayRequested.connect(self.translate_anyway)
        self._fill_examples("")

    # -- the tab protocol (gui/common/tab_protocol.py) ---------------------------------------
    def start(self) -> None:
        """Restore the remembered choices and look for models (in the background)."""
        settings = QSettings()
        beam_spin = self.view.choice_bar.beam_spin
        beam_spin.setValue(stored_int(settings, "translate/beam", 1, beam_spin.minimum(), beam_spin.maximum()))
        self.view.choice_bar.speed_slider.setValue(stored_int(settings, "translate/speed", 0, 0, SPEED_STEPS))
        self.controller.set_beam_size(self.view.choice_bar.beam_spin.value())
        self.controller.set_delay(delay_for(self.view.choice_bar.speed_slider.value()))
        self.view.attention_panel.view_bar.restore(settings)
        self.controller.start(self.pinned_folder, stored_text(settings, "translate/direction"),
                              stored_text(settings, "translate/scorer"))
        self.update_input_state()  # the boxes say "Loading models…" until the first model is in use

    def save_settings(self) -> None:
        settings = QSettings()
        entry = self.controller.entry
        if entry is not None:
            settings.setValue("translate/direction", entry.direction)
            settings.setValue("translate/scorer", entry.scorer)
        settings.setValue("translate/beam", self.view.choice_bar.beam_spin.value())
        settings.setValue("translate/speed", self.view.choice_bar.speed_slider.value())
        self.view.attention_panel.view_bar.save(settings)
        self.language.save(settings)

    def shown(self) -> None:
        """Nothing to do: the tab is ready from the start."""

    def close_question(self) -> CloseQuestion | None:
        return None  # a decode is stopped without asking

    def shutdown(self, timeout_ms: int = DECODE_STOP_MS) -> bool:
        exports_stopped = self.exports.shutdown(timeout_ms)  # a recording being written: cancelled
        return self.controller.shutdown(timeout_ms) and exports_stopped

    # -- input ------------------------------------------------------------------------------
    def translate(self) -> bool:
        """Translate what is in the input line (Enter or the button)."""
        text = self.view.source_input.text()
        if not self.view.translate_button.isEnabled():
            return False
        self.steering.reset()  # a new sentence starts from the model's own decode
        started = self.controller.translate(text)
        if started and self.controller.bundle is None:
            self.view.show_hint(hint_text(LOADING_HINT))
        return started

    def translate_text(self, text: str) -> None:
        """Put ``text`` in the input line and translate it (examples, history)."""
        self.view.source_input.setText(text)
        self.translate()

    def update_input_state(self) -> None:
        """Enable Translate only for something to translate, and say why not."""
        text = self.view.source_input.text()
        self.language.input_changed(text)
        self.view.choice_bar.set_loading(self.controller.starting)
        state = input_state(text, self.controller.prepare(text) if text.strip() else None,
                            self.controller.loading or self.controller.starting)
        enabled, hint = state.enabled, state.hint
        if state.notice:
            hint += paste_cut_note(text, self.view.source_input.maxLength(), QGuiApplication.clipboard().text())
        self.view.translate_button.setEnabled(enabled)
        self.view.translate_button.setToolTip("" if enabled else hint)
        self.view.show_hint(hint, state.notice)

    def _on_text_edited(self, _text: str) -> None:
        if self.controller.running:
            self.controller.stop()  # typing a new sentence ends the old run

    # -- catalog and models -----------------------------------------------------------------
    @Slot(object)
    def _on_catalog(self, choices: ModelChoices) -> None:
        self.view.unloaded_models.show_folders(self.controller.unusable)
        empty = choices.empty and self.controller.bundle is None
        self.view.show_empty_state(empty)
        if empty:
            self.status.show_idle(self.tr("No model yet: train one in the Train tab."))
        entry = self.controller.loading_entry or self.controller.entry
        direction = entry.direction if entry else (choices.directions()[0][0] if choices.directions() else None)
        self._show_choices(direction, entry.scorer if entry else None)
        self.update_input_state()

    def _show_choices(self, direction: str | None, scorer: str | None) -> None:
        choices = self.controller.choices
        if choices is None:
            return
        bar = self.view.choice_bar
        bar.set_directions(choices.directions(), direction)
        bar.set_scorers(choices.options(direction) if direction else [], scorer)
        self._fill_examples(choices.source_language(direction) if direction else "")
        self.view.length_study_button.setEnabled(bool(direction))
        self.length_study.follow(choices, bar.current_direction())

    # -- dialogs and references -------------------------------------------------------------
    def open_length_study(self) -> LengthStudyDialog:
        """Show the length study of the current direction beside the main window (non-modal)."""
        return self.length_study.open()

    def open_beam_tree(self) -> BeamTreeDialog:
        """Show the beam tree of the current run beside the window (non-modal)."""
        return self.beam_tree.open()

    def add_reference(self, source: str, reference: str) -> None:
        """Remember ``reference`` as the translation of ``source`` (a length study row's)."""
        self._references[source.strip()] = reference

    def reference_for(self, text: str) -> str:
        """The reference translation of ``text`` when it is an example or a length study row, else ""
        (the Compare tab scores every scorer against it)."""
        return self._references.get(text.strip(), "")

    def _fill_examples(self, source_language: str) -> None:
        fill_examples_menu(self.view.examples_menu, self.examples.get(source_language, []), self.translate_text)

    def translate_anyway(self, text: str) -> bool:
        """Decode ``text`` with the model in use although it is not in its source language."""
        self.steering.reset()
        return self.controller.translate(text, check_language=False)

    # -- choices ----------------------------------------------------------------------------
    def _on_direction_chosen(self, direction: str) -> None:
        """A direction chosen in its box or by the input's status line (an input refused for its
        language waits in the controller and is translated once that direction's model is in use)."""
        self.view.show_error("")
        choices = self.controller.choices
        if choices is None:
            return
        scorer = choices.scorer_for(direction, self.view.choice_bar.current_scorer() or "")
        self._show_choices(direction, scorer)
        if scorer is not None:
            self.controller.select(direction, scorer)

    def _on_scorer_chosen(self, scorer: str) -> None:
        self.view.show_error("")
        direction = self.view.choice_bar.current_direction()
        if direction:
            self.controller.select(direction, scorer)

    def _on_beam_changed(self, size: int) -> None:
        self.controller.set_beam_size(size)
        if self.controller.bundle is not None and self.controller.text and self.run is not None:
            self.controller.translate(self.controller.text, self.whatif)  # the same sentence, the new search

    @Slot(object)
    def _on_loading(self, entry: ModelEntry) -> None:
        self.status.show_loading(entry.name)
        self._show_choices(entry.direction, entry.scorer)
        self.update_input_state()

    @Slot(object)
    def _on_loaded(self, bundle: ModelBundle) -> None:
        entry = self.controller.entry
        self.view.show_empty_state(False)
        if entry is not None:
            self._show_choices(entry.direction, entry.scorer)
        show_model_line(self.controller, self.status, bundle)
        self.steering.reset()  # another model: another vocabulary, another attention
        self.view.whatif_bar.set_attention_available(bundle.translator.uses_attention)
        self.update_input_state()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self.view.show_error(message)
        entry = self.controller.entry
        if entry is not None:
            self._show_choices(entry.direction, entry.scorer)
        self.status.show_idle(self.tr("Model not loaded"))
        self.update_input_state()

    # -- a run ------------------------------------------------------------------------------
    @Slot(object)
    def _on_run_started(self, info: RunInfo) -> None:
        self.run = info
        if self._run_refused:  # the previous run's refusal is no longer news
            self.view.show_error("")
            self._run_refused = False
        self._frame_throttle.cancel()
        self._latest_tokens = None
        self.beam_tree.run_started()
        self.model_view.run_started()
        self.last_translation = None
        prepared = info.prepared
        self.language.run_started(info)
        self.view.attention_panel.begin(prepared.tokens, info.uses_attention, info.scorer)
        self.view.source_tokens.set_pieces(prepared.tokens)
        self.unseen.run_started(info)
        self.view.target_output.set_pieces([])
        self.history.add(prepared.text)
        self.update_input_state()

    @Slot(object)
    def _on_step(self, step: DecodeStep) -> None:
        self._latest_tokens = step.hypothesis_tokens
        self.view.attention_panel.show_step(step)
        self._frame_throttle.request()  # the output line: at most ~30 times a second
        self.beam_tree.step(step)

    def _draw_frame(self) -> None:
        """The output so far."""
        if self._latest_tokens is not None:
            self.view.target_output.set_pieces(self._latest_tokens)
            self._latest_tokens = None

    @Slot(object)
    def _on_finished(self, translation: Translation) -> None:
        self.last_translation = translation
        self._frame_throttle.flush()
        self.beam_tree.run_finished()
        self.model_view.finished(translation)
        self.view.target_output.set_pieces(translation.tokens)
        self.view.attention_panel.finish(translation)

    @Slot(str)
    def _on_refused(self, message: str) -> None:
        """The model's output could not be shown (non-finite): one line, where model errors are said."""
        self.view.show_error(message[:1].upper() + message[1:])
        self._run_refused = True

    @Slot(str)
    def _on_ended(self, outcome: str) -> None:
        self._frame_throttle.flush()
        self.beam_tree.run_ended()
        self.view.attention_panel.end()
        if outcome == STOPPED:
            rows = len(self.view.attention_panel.target_tokens())
            self.view.show_hint(self.tr("Stopped after 1 output token.") if rows == 1 else
                                self.tr("Stopped after %1 output tokens.").replace("%1", str(rows)))

    # -- export -----------------------------------------------------------------------------
    def export(self, kind: str, path: Path) -> Path:
        """Write the current heatmap or matrix (``kind``: png, svg, csv, json) to ``path``."""
        return self.exports.export(kind, path)
