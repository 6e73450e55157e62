"""The Translate tab: the view wired to the controller, plus history, examples, export and the
choices remembered between sessions (QSettings: direction, scorer, beam, speed, and whether to ask
before translating an input in another language than the model's)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, Signal, Slot
from PySide6.QtGui import QCursor, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QFileDialog, QMessageBox, QToolTip, QVBoxLayout, QWidget

from gui.attention.export import EXPORT_KINDS, ExportError
from gui.attention.labels import quoted
from gui.attention.throttle import FrameThrottle
from gui.common.examples import fill_examples_menu, load_examples
from gui.common.tab_protocol import DECODE_STOP_MS, CloseQuestion
from gui.stored_settings import stored_int, stored_text
from gui.translate.controller import STOPPED, TranslateController
from gui.translate.controls import SPEED_STEPS, delay_for
from gui.translate.history import History, fill_history_menu
from gui.translate.input_state import LOADING_HINT, input_state
from gui.translate.language_gate import LanguageGate
from gui.translate.status import ModelStatus, describe_model
from gui.translate.view import TranslateView
from gui.translate.whatif_state import WhatIf

if TYPE_CHECKING:
    from engine.bundle import ModelBundle
    from engine.catalog import ModelEntry
    from engine.search import DecodeStep
    from engine.translator import Translation
    from gui.translate.beam_dialog import BeamTreeDialog
    from gui.translate.choices import ModelChoices
    from gui.translate.controller import RunInfo
    from gui.translate.length_study.dialog import LengthStudyDialog

TREE_FRAME_SECONDS = 0.1  # the beam tree's redraws while a search runs: at most ten a second


class TranslateTab(QWidget):
    """Everything of the Translate tab; the main window only places it and its status widget."""

    trainRequested = Signal()
    compareRequested = Signal(str)  # the sentence to decode with every scorer (the Compare tab)
    errorReported = Signal(str, str, str)  # title, message, details
    statusMessage = Signal(str)  # a passing message for the status bar

    title = "Translate"
    shutdown_ms = DECODE_STOP_MS

    def __init__(self, parent: QWidget | None = None, pinned_folder: Path | None = None) -> None:
        """``pinned_folder``: the model folder named on the command line (opened first), if any."""
        super().__init__(parent)
        self.pinned_folder = pinned_folder
        self.view = TranslateView()
        self.controller = TranslateController(self)
        self.language = LanguageGate(self.controller, self.view.language_notice, self)  # input in another language
        self.status = ModelStatus()
        self.history = History()
        self.examples = load_examples()
        # Known references by source text: the examples', and the length study rows' once chosen.
        self._references = {e.text.strip(): e.reference for group in self.examples.values() for e in group
                            if e.reference}
        self.last_translation: Translation | None = None
        self.whatif = WhatIf()  # what the user changed in the current sentence's decode
        self._run: RunInfo | None = None
        self.length_study_dialog: LengthStudyDialog | None = None  # built on first use (needs the engine)
        self.beam_tree_dialog: BeamTreeDialog | None = None  # built on first use
        self.beam_levels: list[tuple[int, tuple]] = []  # the current run's beam search, step by step
        self._tree_shown = 0  # how many of them the open beam tree holds
        self._latest_tokens: tuple[str, ...] | None = None  # the output of the newest step, not yet drawn
        self._frame_throttle = FrameThrottle(self._draw_frame, self)
        # The tree grows a column per step: ten redraws a second are enough to follow it, and the
        # output line keeps its own ~30.
        self._tree_throttle = FrameThrottle(self._draw_tree, self, frame_seconds=TREE_FRAME_SECONDS)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self._connect()
        self.update_input_state()

    # -- wiring -----------------------------------------------------------------------------
    def _connect(self) -> None:
        view, controller, panel = self.view, self.controller, self.view.attention_panel
        controller.catalogChanged.connect(self._on_catalog)
        controller.modelLoading.connect(self._on_loading)
        controller.modelLoaded.connect(self._on_loaded)
        controller.modelFailed.connect(self._on_failed)
        self.view.sessionOpenRequested.connect(self._open_session)
        controller.pastLoaded.connect(self.status.show_past)
        self.status.back_button.clicked.connect(controller.back_to_final)
        controller.runStarted.connect(self._on_run_started)
        controller.stepArrived.connect(self._on_step)
        controller.runFinished.connect(self._on_finished)
        controller.runEnded.connect(self._on_ended)
        controller.runFailed.connect(lambda message, details: self.errorReported.emit(
            "Decoding failed", message, details))
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
        view.exportRequested.connect(self._on_export_requested)
        view.trainRequested.connect(self.trainRequested)
        view.length_study_button.clicked.connect(self.open_length_study)
        view.compare_button.clicked.connect(lambda: self.compareRequested.emit(self.view.source_input.text()))
        view.beam_tree_button.clicked.connect(self.open_beam_tree)
        view.history_menu.aboutToShow.connect(
            lambda: fill_history_menu(view.history_menu, self.history, self.translate_text))
        panel.cellHovered.connect(self._on_cell_hovered)
        panel.stepSelected.connect(view.target_output.highlight)
        view.target_output.tokenHovered.connect(self._on_output_hovered)
        view.target_output.tokenClicked.connect(panel.select_step)
        view.source_tokens.tokenHovered.connect(panel.highlight_column)
        view.whatif_bar.prefixEntered.connect(self._on_prefix_entered)
        view.whatif_bar.undoRequested.connect(self._on_undo_whatif)
        panel.alternativeChosen.connect(self._on_alternative_chosen)
        panel.cellClicked.connect(self._on_cell_clicked)
        controller.whatIfRefused.connect(self._on_whatif_refused)
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
        self.language.save(settings)

    def shown(self) -> None:
        """Nothing to do: the tab is ready from the start."""

    def close_question(self) -> CloseQuestion | None:
        return None  # a decode is stopped without asking

    def shutdown(self, timeout_ms: int = DECODE_STOP_MS) -> bool:
        return self.controller.shutdown(timeout_ms)

    # -- input ------------------------------------------------------------------------------
    def translate(self) -> bool:
        """Translate what is in the input line (Enter or the button)."""
        text = self.view.source_input.text()
        if not self.view.translate_button.isEnabled():
            return False
        self._reset_whatif()  # a new sentence starts from the model's own decode
        started = self.controller.translate(text)
        if started and self.controller.bundle is None:
            self.view.show_hint(LOADING_HINT)
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
            hint += self._paste_cut_note(text)
        self.view.translate_button.setEnabled(enabled)
        self.view.translate_button.setToolTip("" if enabled else hint)
        self.view.show_hint(hint, state.notice)

    def _paste_cut_note(self, text: str) -> str:
        """When the input field itself cut a paste (it holds at most maxLength characters), the
        pasted length — the clipboard still holds it — instead of the field's limit."""
        limit = self.view.source_input.maxLength()
        if len(text) < limit:
            return ""
        pasted = QGuiApplication.clipboard().text()
        if len(pasted) <= len(text) or not pasted.startswith(text[:100]):
            return ""
        return f" The pasted text had {len(pasted):,} characters; the input field keeps the first {limit:,}."

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
            self.status.show_idle("No model yet: train one in the Train tab.")
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
        dialog = self.length_study_dialog
        if dialog is not None and dialog.isVisible():
            dialog.show_direction(choices, bar.current_direction())

    # -- length study -----------------------------------------------------------------------
    def open_length_study(self) -> LengthStudyDialog:
        """Show the length study of the current direction beside the main window (non-modal)."""
        from gui.translate.length_study.dialog import LengthStudyDialog

        if self.length_study_dialog is None:
            self.length_study_dialog = LengthStudyDialog(self)
            self.length_study_dialog.rowChosen.connect(self._on_study_row)
        dialog = self.length_study_dialog
        dialog.show_direction(self.controller.choices, self.view.choice_bar.current_direction(), force=True)
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def _on_study_row(self, source: str) -> None:
        """A row of the length study: translate it here as the study's table did (greedy: the beam is
        set to 1, and the hint says so when it was not) and bring the main window to the front."""
        from gui.translate.length_study.dialog import (
            STUDY_BEAM,  # the beam of the study's outputs (imported with the dialog)
        )

        reference = self.length_study_dialog.view.table.reference_for(source) if self.length_study_dialog else ""
        if reference:
            self._references[source.strip()] = reference
        spin = self.view.choice_bar.beam_spin
        previous = spin.value()
        if previous != STUDY_BEAM:
            spin.blockSignals(True)  # no re-decode of the sentence on screen: the row's is next
            spin.setValue(STUDY_BEAM)
            spin.blockSignals(False)
            self.controller.set_beam_size(STUDY_BEAM)
        self.translate_text(source)
        if previous != STUDY_BEAM:
            self.view.show_hint(f"Beam set from {previous} to {STUDY_BEAM} (greedy search): the length study's "
                                "outputs are greedy decodes, and this one is decoded the same way.", notice=True)
        window = self.window()
        window.raise_()
        window.activateWindow()

    def reference_for(self, text: str) -> str:
        """The reference translation of ``text`` when it is an example or a length study row, else ""
        (the Compare tab scores every scorer against it)."""
        return self._references.get(text.strip(), "")

    def _fill_examples(self, source_language: str) -> None:
        fill_examples_menu(self.view.examples_menu, self.examples.get(source_language, []), self.translate_text)

    def translate_anyway(self, text: str) -> bool:
        """Decode ``text`` with the model in use although it is not in its source language."""
        self._reset_whatif()
        return self.controller.translate(text, check_language=False)

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

    # -- what-if ---------------------------------------------------------------------------
    def _reset_whatif(self) -> None:
        self.whatif = WhatIf()
        self.view.whatif_bar.reset()

    def _redecode(self, whatif: WhatIf) -> None:
        """Decode the current sentence again under ``whatif`` (the change is kept only if it applies)."""
        if self.controller.bundle is None or not self.controller.text.strip():
            return
        if self.controller.translate(self.controller.text, whatif):
            self.whatif = whatif
            prepared = self.controller.prepare(self.controller.text)
            self.view.whatif_bar.show_state(whatif.describe(prepared.tokens if prepared is not None else ()))
            self._update_tree_footer()

    def _on_prefix_entered(self, text: str) -> None:
        self._redecode(self.whatif.with_prefix_text(text))

    def _on_alternative_chosen(self, step: int, token_id: int) -> None:
        output = [s.token_id for s in self.view.attention_panel.record.steps]
        self._redecode(self.whatif.with_alternative(output, step, token_id))

    def _on_cell_clicked(self, row: int, column: int, shift: bool) -> None:
        if self.view.whatif_bar.attend_button.isChecked():
            self._redecode(self.whatif.with_attention(row, column, add=shift))

    def _on_undo_whatif(self) -> None:
        self.view.whatif_bar.reset()
        self._redecode(WhatIf())

    def _on_whatif_refused(self, message: str) -> None:
        self.view.show_hint(f"What-if not applied: {message}.", notice=True)
        self.statusMessage.emit(message)

    def _on_scorer_chosen(self, scorer: str) -> None:
        self.view.show_error("")
        direction = self.view.choice_bar.current_direction()
        if direction:
            self.controller.select(direction, scorer)

    def _on_beam_changed(self, size: int) -> None:
        self.controller.set_beam_size(size)
        if self.controller.bundle is not None and self.controller.text and self._run is not None:
            self.controller.translate(self.controller.text, self.whatif)  # the same sentence, the new search

    @Slot(object)
    def _on_loading(self, entry: ModelEntry) -> None:
        self.status.show_loading(entry.name)
        self._show_choices(entry.direction, entry.scorer)
        self.update_input_state()

    @Slot(object)
    def _on_loaded(self, bundle: ModelBundle) -> None:
        entry = self.controller.entry
        choices = self.controller.choices
        self.view.show_empty_state(False)
        if entry is not None:
            self._show_choices(entry.direction, entry.scorer)
        label = self.controller.scorers.get(bundle.scorer, (bundle.scorer, ""))[0]
        direction = choices.direction_label(entry.direction) if choices and entry else ""
        self.status.show_model(describe_model(bundle, label, direction), str(bundle.folder), bundle.attribution)
        self._reset_whatif()  # another model: another vocabulary, another attention
        self.view.whatif_bar.set_attention_available(bundle.translator.uses_attention)
        self.update_input_state()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self.view.show_error(message)
        entry = self.controller.entry
        if entry is not None:
            self._show_choices(entry.direction, entry.scorer)
        self.status.show_idle("Model not loaded")
        self.update_input_state()

    # -- a run ------------------------------------------------------------------------------
    @Slot(object)
    def _on_run_started(self, info: RunInfo) -> None:
        self._run = info
        self.beam_levels = []
        self._frame_throttle.cancel()
        self._tree_throttle.cancel()
        self._tree_shown, self._latest_tokens = 0, None
        if self.beam_tree_dialog is not None:
            self.beam_tree_dialog.show_levels([])
            self._update_tree_footer()
        self.last_translation = None
        prepared = info.prepared
        self.language.run_started(info)
        self.view.attention_panel.begin(prepared.tokens, info.uses_attention, info.formula, info.scorer_label)
        self.view.source_tokens.set_pieces(prepared.tokens)
        self.view.target_output.set_pieces([])
        self.history.add(prepared.text)
        self.update_input_state()

    @Slot(object)
    def _on_step(self, step: DecodeStep) -> None:
        self._latest_tokens = step.hypothesis_tokens
        self.view.attention_panel.show_step(step)
        self._frame_throttle.request()  # the output line: at most ~30 times a second
        if step.beam_level:
            self.beam_levels.append((step.index, step.beam_level))
            if self.beam_tree_dialog is not None and self.beam_tree_dialog.isVisible():
                self._tree_throttle.request()

    def _draw_frame(self) -> None:
        """The output so far."""
        if self._latest_tokens is not None:
            self.view.target_output.set_pieces(self._latest_tokens)
            self._latest_tokens = None

    def _draw_tree(self) -> None:
        """The beam-tree levels that arrived since the tree was last drawn."""
        dialog = self.beam_tree_dialog
        if dialog is not None and dialog.isVisible() and self._tree_shown < len(self.beam_levels):
            dialog.tree.add_levels(self.beam_levels[self._tree_shown :])
            self._tree_shown = len(self.beam_levels)
            self._update_tree_footer()

    # -- beam tree --------------------------------------------------------------------------
    def open_beam_tree(self) -> BeamTreeDialog:
        """Show the beam tree of the current run beside the window (non-modal)."""
        from gui.translate.beam_dialog import BeamTreeDialog

        if self.beam_tree_dialog is None:
            self.beam_tree_dialog = BeamTreeDialog(self)
            self.beam_tree_dialog.tree.nodeChosen.connect(self._on_beam_node_chosen)
            self.beam_tree_dialog.tree.nodePicked.connect(self._on_beam_node_picked)
        self._tree_throttle.cancel()
        self.beam_tree_dialog.show_levels(self.beam_levels)
        self._tree_shown = len(self.beam_levels)
        self._update_tree_footer()
        self.beam_tree_dialog.show()
        self.beam_tree_dialog.raise_()
        return self.beam_tree_dialog

    def _update_tree_footer(self) -> None:
        """The beam tree's footer: the current run's beam (the Beam box's before any run), searching
        or done, how far, and how many tokens a picked hypothesis fixed."""
        dialog = self.beam_tree_dialog
        if dialog is None:
            return
        from gui.translate.beam_dialog import tree_footer  # imported with the dialog, on first use

        running = self.controller.running
        beam = self._run.beam_size if self._run is not None else self.view.choice_bar.beam_spin.value()
        finished = 0 if running else sum(node.status == "finished" for _, level in self.beam_levels for node in level)
        dialog.status.setText(tree_footer(beam, running, len(self.beam_levels), finished, len(self.whatif.prefix_ids or ())))

    def _on_beam_node_chosen(self, node) -> None:
        dialog = self.beam_tree_dialog
        if node.step is None:
            dialog.status.setText(f"{quoted(node.token)} was pruned: the beam was full of better hypotheses "
                                  f"(log p {node.log_probability:.3f}).")
            return
        self.view.target_output.set_pieces(node.step.hypothesis_tokens)
        self.view.attention_panel.show_hypothesis(node.step)
        dialog.status.setText(f"Hypothesis of {len(node.ids)} tokens, log p {node.log_probability:.3f}, "
                              f"score {node.score:.3f} ({node.status}).")

    def _on_beam_node_picked(self, node) -> None:
        if node.status == "kept":  # continue the search from this live hypothesis
            self._redecode(dataclasses.replace(self.whatif, prefix_text="", prefix_ids=tuple(node.ids)))

    @Slot(object)
    def _on_finished(self, translation: Translation) -> None:
        self.last_translation = translation
        self._frame_throttle.flush()
        self._tree_throttle.flush()  # the tree's last steps, now rather than a frame later
        if self.beam_tree_dialog is not None and self.beam_tree_dialog.isVisible():
            self.beam_tree_dialog.tree.fit()
        self.view.target_output.set_pieces(translation.tokens)
        self.view.attention_panel.finish(translation)

    @Slot(str)
    def _on_ended(self, outcome: str) -> None:
        self._frame_throttle.flush()
        self._tree_throttle.flush()
        self._update_tree_footer()
        self.view.attention_panel.end()
        if outcome == STOPPED:
            rows = len(self.view.attention_panel.target_tokens())
            self.view.show_hint(f"Stopped after {rows} output token{'s' if rows != 1 else ''}.")

    # -- hover ------------------------------------------------------------------------------
    def _on_cell_hovered(self, row: int, column: int) -> None:
        self.view.source_tokens.highlight(column)
        self.view.target_output.highlight(row)

    def _on_output_hovered(self, index: int) -> None:
        panel = self.view.attention_panel
        panel.preview_step(index)
        self.view.target_output.highlight(index)
        step = panel.record.step(index) if index >= 0 else None
        if step is None:
            QToolTip.hideText()
            return
        lines = [f"Step {index}: {quoted(step.token)}  p = {step.probability:.3f}", "Top candidates:"]
        lines += [f"  {quoted(a.token)}  {a.probability:.3f}" for a in step.alternatives]
        QToolTip.showText(QCursor.pos(), "\n".join(lines), self.view.target_output)

    # -- export -----------------------------------------------------------------------------
    def export(self, kind: str, path: Path) -> Path:
        """Write the current heatmap or matrix (``kind``: png, svg, csv, json) to ``path``."""
        metadata = {}
        if self._run is not None:
            metadata = {"source": self._run.prepared.text, "text": self.view.target_output.text(),
                        "scorer": self._run.bundle.scorer, "model": self._run.bundle.folder.name,
                        "direction": f"{self._run.bundle.source_language}-{self._run.bundle.target_language}",
                        "source_language": self._run.bundle.source_language,
                        "target_language": self._run.bundle.target_language,
                        "model_sha256": (self._run.bundle.info.get("weights") or {}).get("sha256", ""),
                        "beam_size": self._run.beam_size,
                        "seconds_per_step": delay_for(self.view.choice_bar.speed_slider.value())}
        return EXPORT_KINDS[kind].write(self.view.attention_panel, Path(path), metadata)

    def _open_session(self) -> None:
        """Replay a recorded decode from its session file (without decoding: engine.session_file)."""
        from engine.session_file import SessionFileError, load_session
        from gui.attention.replay import ReplayDialog

        name, _ = QFileDialog.getOpenFileName(self, "Open a recorded session", str(Path.home()),
                                              "Attention Studio session (*.session.json);;JSON (*.json)")
        if not name:
            return
        try:
            session = load_session(Path(name))
        except SessionFileError as error:
            QMessageBox.warning(self, "Open a recorded session", str(error))
            return
        bundle = self.controller.bundle
        sha256 = (bundle.info.get("weights") or {}).get("sha256", "") if bundle is not None else ""
        self.replay = ReplayDialog(session, session.note(sha256, bundle.folder.name if bundle is not None else ""),
                                   self)
        self.replay.show()
        self.replay.play()

    def _on_export_requested(self, kind: str) -> None:
        spec = EXPORT_KINDS[kind]
        settings = QSettings()
        folder = Path(stored_text(settings, "export/folder") or str(Path.home()))
        scorer = self._run.bundle.scorer if self._run else "attention"
        name, _ = QFileDialog.getSaveFileName(self, spec.title.rstrip("…"), str(folder / f"attention-{scorer}{spec.suffix}"),
                                              spec.file_filter)
        if not name:
            return
        path = Path(name) if Path(name).suffix else Path(name + spec.suffix)
        try:
            self.export(kind, path)
        except ExportError as error:
            QMessageBox.warning(self, "Export", str(error))
            return
        settings.setValue("export/folder", str(path.parent))
        self.statusMessage.emit(f"Saved {path}")
