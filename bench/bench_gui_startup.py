"""Start-up time of the app: launch → window shown, → first translation possible, → first
translation finished. Each run is a fresh process started the way ``python main.py`` starts.

    .venv/bin/python bench/bench_gui_startup.py [--model MODEL_DIR] [--runs 5]

Goals: window shown ≤ 2 s, first translation possible ≤ 4 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from bench_gui_common import ROOT, SETTINGS_FOLDER, bench_model, sentence_for

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
import main

marks = {{}}


def poll():
    windows = [w for w in QApplication.topLevelWidgets() if w.objectName() == "mainWindow"]
    if windows:
        window = windows[0]
        tab = window.translate_tab
        if "shown" not in marks and window.windowHandle() and window.windowHandle().isExposed():
            marks["shown"] = time.time()
        if "shown" in marks and "ready" not in marks and tab.controller.bundle is not None:
            marks["ready"] = time.time()
            tab.view.source_input.setText({sentence!r})
            tab.translate()
        if "ready" in marks and not tab.controller.running and tab.last_translation is not None:
            marks["translated"] = time.time()
            print(json.dumps(marks), flush=True)
            window.close()
            return
    QTimer.singleShot(1, poll)


app = QApplication(sys.argv)  # main.run() uses this one, exactly as when it creates it
from gui.stored_settings import use_settings_folder
use_settings_folder({settings!r})  # the benchmark's own settings, never the user's
QTimer.singleShot(0, poll)
sys.exit(main.run(["--model", {model!r}]))
"""


def one_run(model: str, sentence: str) -> dict[str, float]:
    """Start the window in a fresh process and time its start-up stages (seconds by stage)."""
    code = CHILD.format(root=str(ROOT), model=model, sentence=sentence, settings=str(SETTINGS_FOLDER))
    started = time.time()
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"the app failed to start:\n{result.stderr}")
    marks = json.loads(result.stdout.strip().splitlines()[-1])
    return {name: value - started for name, value in marks.items()}


def main() -> None:
    """Parse the command line and run the benchmark (what it measures: the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="model folder (default: shipped zh-en, else a dates model)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    model = bench_model(args.model)
    sentence = sentence_for(model)
    one_run(str(model), sentence)  # warm the file cache
    runs = [one_run(str(model), sentence) for _ in range(args.runs)]
    print(f"model: {model.name}, {args.runs} runs, fresh process each")
    for name, label, goal in (("shown", "launch → window shown", 2.0),
                              ("ready", "launch → first translation possible", 4.0),
                              ("translated", "launch → first translation finished", None)):
        values = [r[name] for r in runs]
        median = statistics.median(values)
        verdict = "" if goal is None else f"  (goal ≤ {goal:.0f} s: {'met' if median <= goal else 'MISSED'})"
        print(f"{label:38s} median {median:.2f} s, max {max(values):.2f} s{verdict}")


if __name__ == "__main__":
    main()
