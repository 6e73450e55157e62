"""The model on screen, shared by the Translate and Compare tabs: whether a run's earlier weights (a click on a
training curve, gui/common/past.py) are decoding, and the one way back.

:class:`ModelOnScreen` holds that state for the window: a tab reports that it decodes with a run's earlier
weights (:meth:`ModelOnScreen.arrive`), and Back, pressed in either tab, leaves them in both
(``backRequested``: each tab goes back to the model it used before). :class:`PastBadge` names the
earlier weights in the view that decodes with them, above its map, with Back beside it
(objectNames ``<prefix>PastBadge``, ``<prefix>PastLabel`` and ``<prefix>BackButton``); it is hidden
while the final models are on screen.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

BADGE_STYLE = ("QFrame#{name} {{ background: #fff4d6; border: 1px solid #d9a400; border-radius: 4px; }}"
               " QLabel {{ background: transparent; border: none; }}")


class ModelOnScreen(QObject):
    """Whether a run's earlier weights are on screen, for the whole window."""

    changed = Signal(str)  # the earlier weights' label ("model at step 2,000 of …"), "" once back
    backRequested = Signal()  # Back was pressed: every tab leaves the earlier weights

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.label = ""

    @property
    def travelled(self) -> bool:
        return bool(self.label)

    def arrive(self, label: str) -> None:
        """A tab now decodes with the earlier weights ``label``."""
        self.label = label
        self.changed.emit(label)

    def back(self) -> None:
        """Leave the earlier weights, in every tab (nothing when none are on screen)."""
        if not self.label:
            return
        self.label = ""
        self.changed.emit("")
        self.backRequested.emit()


class PastBadge(QFrame):
    """'⏪ model at step 2,000 of dates-additive (read-only)' and Back, above a view's map."""

    backClicked = Signal()

    def __init__(self, prefix: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{prefix}PastBadge")
        self.setStyleSheet(BADGE_STYLE.format(name=self.objectName()))
        self.label = QLabel()
        self.label.setObjectName(f"{prefix}PastLabel")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        # A long run name is elided by the frame, never allowed to widen the window.
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.back_button = QToolButton()
        self.back_button.setObjectName(f"{prefix}BackButton")
        self.back_button.setText(self.tr("Back to the final model"))
        self.back_button.setToolTip(self.tr("Leave the earlier weights: Translate and Compare decode with the "
                                            "models they used before"))
        self.back_button.clicked.connect(self.backClicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 2, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.back_button)
        self.hide()

    def show_past(self, label: str) -> None:
        """Name the earlier weights on screen (``label``); "" hides the badge."""
        text = self.tr("Travelled back: {label} (read-only)").format(label=label) if label else ""
        self.label.setText(text)
        self.label.setToolTip(text)
        self.setVisible(bool(label))


def link_travel(on_screen: ModelOnScreen, translate_tab, compare_tab) -> None:
    """Wire the Translate and Compare tabs to one model on screen: each names its earlier weights in its
    badge; Back in either badge (or another model chosen in Translate) leaves them in both."""
    translate, compare = translate_tab.controller, compare_tab.controller
    translate_badge = translate_tab.view.past_badge
    translate.pastLoaded.connect(translate_badge.show_past)
    translate.pastLoaded.connect(lambda _label: show_past_direction(translate_tab))
    translate.pastLoaded.connect(on_screen.arrive)
    compare.pastChanged.connect(lambda label: on_screen.arrive(label) if label else None)

    def model_loaded(_bundle) -> None:
        if translate.past is None:  # the final model, or another one chosen: the travel is over
            translate_badge.show_past("")
            on_screen.back()

    translate.modelLoaded.connect(model_loaded)
    for badge in (translate_badge, compare_tab.past_badge):
        badge.backClicked.connect(on_screen.back)
    on_screen.backRequested.connect(translate.back_to_final)
    on_screen.backRequested.connect(compare_tab.back_to_final)


def show_past_direction(translate_tab) -> None:
    """The Translate tab's direction and scorer boxes name the earlier weights' direction and scorer, even
    for a run the model catalog does not list (its folder is elsewhere), and its examples are in their
    source language."""
    from gui.common.directions import label_of_direction

    past, choices = translate_tab.controller.past, translate_tab.controller.choices
    if past is None or choices is None:
        return
    directions = choices.directions()
    if past.direction not in (key for key, _label in directions):
        directions = [*directions, (past.direction, label_of_direction(past.direction))]
    bar = translate_tab.view.choice_bar
    bar.set_directions(directions, past.direction)
    bar.set_scorers(choices.options(past.direction), past.bundle.scorer)
    translate_tab._fill_examples(past.bundle.source_language)
