"""Every screenshot of the README and docs/, from a 1280×800 window with the shipped models, and a clipping check of
each view: a word-wrapped label lower than its text, or any label, button, combo box, line edit or
spin box cut off at the side, is printed as ``[clip]`` lines. Run it under a virtual display:

    xvfb-run -a -s "-screen 0 1600x1000x24" env ATTENTION_STUDIO_DATA="$(mktemp -d)" \
        .venv/bin/python scripts/screenshots.py docs/screenshots

(``ATTENTION_STUDIO_DATA`` keeps the short training run it makes for the Train tab out of your models.) The
window starts as a new user's does: settings remembered from using the app (direction, scorer, beam, window
state) are not read, nor written back — they live in a fresh configuration folder for this run.
"""
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from gui.app import create_window  # noqa: E402
from gui.common.text_fit import clipped_texts  # noqa: E402

# A fresh settings folder, on every platform (as tests/gui/conftest.py isolates the tests' settings).
# (a script drives the app through gui.app only, so these are gui.stored_settings.use_settings_folder's two calls)
QSettings.setDefaultFormat(QSettings.Format.IniFormat)
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp(prefix="screenshots-settings-"))

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots")
OUT.mkdir(parents=True, exist_ok=True)
SENTENCE = "我妹妹喜欢在花园里看书。"
REFERENCE = "My sister likes reading in the garden."
LONG = "你看起来很紧张。尽管我在学校学了6年英语，我还是说不好。"


def pump(seconds, until=None):
    """Process the window's events for ``seconds``, or until ``until()`` holds."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents()
        if until is not None and until():
            return True
        time.sleep(0.02)
    return False


def clipped(root: QWidget, name: str) -> None:
    """Report visible labels and buttons narrower or lower than their text needs (gui/common/text_fit.py)."""
    problems = clipped_texts(root)
    print(f"[clip] {name}: {'no clipped text' if not problems else ''}")
    for line in problems:
        print(f"[clip]   {line}")


def save(widget: QWidget, name: str) -> None:
    """Let the window settle, then save ``widget``'s picture as ``name`` in the screenshots folder."""
    pump(1.5)
    if not widget.grab().save(str(OUT / name)):
        raise SystemExit(f"could not write {OUT / name}")
    clipped(widget, name)


window = create_window([])
window.resize(1280, 800)
window.setMaximumSize(1280, 800)  # the screenshots are of a 1280×800 window: nothing may need more
window.show()
tab = window.translate_tab
pump(60, lambda: tab.controller.bundle is not None and not tab.controller.loading)
panel = tab.view.attention_panel


def translate(text: str, scorer: str | None = None, beam: int = 1) -> None:
    """Translate ``text`` in the Translate tab (with ``scorer`` and ``beam``) and wait for it to finish."""
    if scorer is not None:
        combo = tab.view.choice_bar.scorer_combo
        index = combo.findData(scorer)
        combo.setCurrentIndex(index)
        combo.activated.emit(index)
        pump(30, lambda: tab.controller.bundle is not None and tab.controller.bundle.scorer == scorer
             and not tab.controller.loading)
    tab.view.choice_bar.beam_spin.setValue(beam)
    tab.translate_text(text)
    pump(60, lambda: not tab.controller.running)
    pump(1)


translate(SENTENCE, "additive")
panel.select_step(1)
save(window, "translate.png")
window.language_button.choose("zh_CN")  # the same decode, the interface in Chinese (not remembered past this run)
save(window, "translate-zh_CN.png")
window.language_button.choose("en")
translate(SENTENCE, "dot")
panel.select_step(1)
save(window, "translate-dot.png")
translate(LONG, "additive")
panel.select_step(12)
save(window, "translate-long.png")
# The Transformer on the long input, its last layer's cross-attention below; then its Layers window, every layer and
# head of the encoder's self-attention, one head opened large
translate(LONG, "transformer")
panel.select_step(12)
save(window, "translate-transformer.png")
layers = tab.model_view
layers.open()
grid = layers.window
pump(3)
grid.kind_box.setCurrentIndex(grid.kind_box.findData("encoder"))
grid.open_map(0, 1)
save(grid, "layers.png")
grid.close()
# The length study, the 41-60 bucket chosen
dialog = tab.open_length_study()
pump(3)
dialog.view.select_bucket("41–60")
save(dialog, "length-study.png")
dialog.close()
# What-if: attention set by hand
translate(SENTENCE, "additive")
bar = tab.view.whatif_bar
bar.attend_button.setChecked(True)
target = next((j for j, t in enumerate(panel.source_tokens()) if "花园" in t), 1)
tab.steering.cell_clicked(4, target, False)
pump(30, lambda: not tab.controller.running)
panel.select_step(4)
save(window, "whatif.png")
bar.reset()
# Beam tree
translate(SENTENCE, beam=5)
tree = tab.open_beam_tree()
tree.resize(1000, 560)
pump(2)
finished = next((i for level in tree.tree.levels for i in level if i.node.status == "finished"), None)
if finished is not None:
    tree.tree.choose(finished)
save(tree, "beam-tree.png")
tree.close()
tab.view.choice_bar.beam_spin.setValue(1)
# Compare: the reference forced on every model, difference additive − dot
window.compare_sentence(SENTENCE, REFERENCE)
compare = window.compare_tab
pump(120, lambda: compare.controller.run is not None and not compare.controller.busy
     and compare.panels.get("additive") is not None and compare.panels["additive"].matrix is not None)
index = compare.target_combo.findData("reference")
compare.target_combo.setCurrentIndex(index)
compare.controller.set_target("reference")
pump(60, lambda: not compare.controller.busy and compare.panels["additive"].forced)
compare.difference.first.setCurrentIndex(compare.difference.first.findData("additive"))
compare.difference.second.setCurrentIndex(compare.difference.second.findData("dot"))
compare._update_difference()
pump(60, lambda: not compare.scheduler.pending)
# The pointer on additive's map at (sister, 花园): the step in the inspector, every output tinted.
additive = compare.panels["additive"]
additive.heatmap.cellHovered.emit(additive.target_tokens.index("▁sister"), additive.source_tokens.index("花园"))
save(window, "compare.png")
# Scrolled down: the Transformer's panel (its layer and head chooser) and the difference map
bar = compare.grid_scroll.verticalScrollBar()
bar.setValue(bar.maximum())
save(window, "compare-transformer.png")
bar.setValue(0)
# One map large: the two-sentence input, additive's own output, every sub-word labelled
compare.target_combo.setCurrentIndex(0)
compare.set_sentence(LONG)
pump(120, lambda: compare.controller.run is not None and compare.controller.run.text == LONG
     and not compare.controller.busy and compare.panels["additive"].map_final)
enlarged = compare.enlarge("additive")
pump(3, lambda: not compare.scheduler.pending)
pump(1)
save(enlarged, "compare-enlarged.png")
enlarged.close()
# Train: a short dates run
window.tabs.setCurrentIndex(1)
pump(30, lambda: window.training_panel is not None)
training = window.training_panel
training.form.epochs.setValue(3)
training.start_button.click()
pump(40, lambda: training.controller.current is not None and len(training.controller.current.validations) >= 1)
pump(3)
save(window, "training.png")
training.controller.stop()
pump(30, lambda: training.controller.current is None)
print("saved")
window.close()
