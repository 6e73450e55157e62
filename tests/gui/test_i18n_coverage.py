"""Every user-visible string of gui/ is translatable: a scan of each package's source (``ast``) for text
literals handed to Qt's text setters and constructors — or emitted as a status or error message, or set as a
tab's ``title`` — that do not pass through ``tr()`` / ``QCoreApplication.translate``. One test per package
(scripts/i18n_update.py's list), so that each passes or fails on its own.

A literal that holds no word (an arrow, a formula, a token piece, a number format) is not a message; what
looks like a word but is not one is in ALLOWED, each with its reason."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from scripts.i18n_update import PACKAGES, ROOT, package_sources
from tests.source_tree import parsed

# Calls whose string arguments the user reads (methods of Qt widgets, actions, items, dialogs, pyqtgraph's
# plots, the status bar; ``emit`` for the signals that carry a message to the status bar or a dialog).
TEXT_CALLS = {
    "setText", "setToolTip", "setStatusTip", "setWhatsThis", "setWindowTitle", "setPlaceholderText", "setTitle",
    "setTabText", "setTabToolTip", "setItemText", "addItem", "addItems", "insertItem", "insertItems", "addTab",
    "insertTab", "addAction", "addMenu", "addSection", "setHorizontalHeaderLabels", "setVerticalHeaderLabels",
    "setHeaderLabels", "setHeaderLabel", "showMessage", "setInformativeText", "setFormat", "setSuffix",
    "setPrefix", "setSpecialValueText", "setLabelText", "setCancelButtonText", "addRow", "setLabel",
    "setAccessibleName", "warning", "information", "critical", "question", "about", "getOpenFileName",
    "getSaveFileName", "getExistingDirectory", "getText", "getItem", "emit", "setHtml", "setPlainText",
    "setIconText", "addButton",
}
CONSTRUCTORS = {
    "QLabel", "QPushButton", "QCheckBox", "QRadioButton", "QGroupBox", "QAction", "QMenu", "QMessageBox",
    "QTableWidgetItem", "QListWidgetItem", "QTreeWidgetItem", "QStandardItem", "QProgressDialog", "QCommandLinkButton",
    "QDockWidget", "QToolButton", "TextItem", "LabelItem",
}
TEXT_KEYWORDS = {"text", "toolTip", "tooltip", "title", "statusTip", "placeholderText", "label", "caption", "filter"}
LOGGERS = {"log", "logger", "logging", "warnings"}
TRANSLATORS = {"tr", "translate", "QT_TRANSLATE_NOOP", "QT_TR_NOOP"}
# Text that looks like words but is not a message: the app's name, the Language button (both languages on
# purpose), the languages named in their own script.
ALLOWED = {
    "Attention Studio": "the app's name",
    "Language · 语言": "the Language button names itself in both languages",
    "English": "a language named in its own script",
}
WORD = re.compile(r"[A-Za-z]{2,}")
MARKUP = re.compile(r"<[^>]*>|&\w+;")  # rich text's tags and entities are not words
KEY = re.compile(r"[a-z0-9_.\-/:]+")  # "zh-en", "additive", "scaled_dot", "left": a key or a name, not a message


def _is_translator(node: ast.AST) -> bool:
    """``self.tr(…)``, ``QCoreApplication.translate(…)`` — or one filled in: ``tr(…).replace(…)``, ``.arg``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in TRANSLATORS:
        return True
    return isinstance(func, ast.Attribute) and name in ("replace", "arg", "format", "strip") and _is_translator(func.value)


def _literals(node: ast.AST) -> list[str]:
    """The literal text an argument is made of (each piece), none when it goes through a translator."""
    if _is_translator(node):
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return ["".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))]
    if isinstance(node, ast.BinOp):
        return _literals(node.left) + _literals(node.right)
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    if isinstance(node, ast.List | ast.Tuple):
        return [text for element in node.elts for text in _literals(element)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "join"):
        return _literals(node.func.value) + [t for arg in node.args for t in _literals(arg)]
    return []


def is_message(text: str) -> bool:
    """Text a person reads as words (not an arrow, a formula piece, a bare acronym or an allowed name)."""
    text = MARKUP.sub("", text)
    words = WORD.findall(text)
    if not words or text.strip() in ALLOWED or KEY.fullmatch(text.strip()):
        return False
    return not all(word.isupper() and len(word) <= 5 for word in words)  # BLEU, AER, BPE: the same in Chinese


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _logging(node: ast.Call) -> bool:
    """``log.warning(…)``, ``logging.critical(…)``: for the log file, not the screen."""
    func = node.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in LOGGERS


def untranslated(path: Path) -> list[str]:
    """``path:line: 'text'`` for each literal message shown without a translator."""
    tree = parsed(path)
    found: list[str] = []

    def report(node: ast.AST, texts: list[str]) -> None:
        for text in texts:
            if is_message(text):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text!r}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if (name in TEXT_CALLS or name in CONSTRUCTORS) and not _logging(node):
                args = node.args[1:] if name == "setLabel" else node.args  # pyqtgraph: setLabel("left", text)
                for arg in args:
                    report(node, _literals(arg))
                for keyword in node.keywords:
                    if keyword.arg in TEXT_KEYWORDS:
                        report(node, _literals(keyword.value))
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:  # a tab's title: ``title = "Translate"``
                if isinstance(statement, ast.Assign | ast.AnnAssign):
                    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                    if any(isinstance(t, ast.Name) and t.id == "title" for t in targets) and statement.value:
                        report(statement, _literals(statement.value))
    return sorted(found, key=lambda line: int(line.split(":")[1]))


# Packages whose strings are still being wrapped (xfail until they are; strict=False so a finished one passes).
NOT_YET: dict[str, str] = {}  # every package's strings are wrapped


@pytest.mark.parametrize("package", PACKAGES)
def test_every_user_visible_string_of_the_package_is_translatable(package, request):
    if package in NOT_YET:
        request.applymarker(pytest.mark.xfail(reason=NOT_YET[package], strict=False))
    files = package_sources(package)
    if not files:
        pytest.skip(f"gui/{package} has no source yet")
    problems = [line for path in files for line in untranslated(path)]
    assert not problems, f"{len(problems)} strings not in tr()/translate():\n" + "\n".join(problems)


def test_the_scan_finds_an_untranslated_text_and_accepts_a_translated_one(tmp_path, monkeypatch):
    import tests.gui.test_i18n_coverage as scan

    monkeypatch.setattr(scan, "ROOT", tmp_path)
    source = tmp_path / "sample.py"
    source.write_text(
        "label = QLabel('Load a model')\n"
        "button.setToolTip(f'Stop after {n} steps')\n"
        "bar.showMessage('Saved ' + name, 3000)\n"
        "class Tab:\n    title = 'Translate'\n"
        "ok = QLabel(self.tr('Load a model'))\n"
        "ok2 = QLabel(self.tr('%1 steps').replace('%1', str(n)))\n"
        "ok3 = QLabel(QCoreApplication.translate('Tab', 'Beam'))\n"
        "arrow = QLabel('→')\n"
        "formula = QLabel(f'{a} · {b}')\n"
        "acronym = QLabel('BLEU')\n"
        "name = QLabel('Attention Studio')\n"
        "plot.setLabel('left', 'Loss')\n"
        "plot.setLabel('left', self.tr('Loss'))\n"
        "self.modelChosen.emit('zh-en')\n"
        "log.warning('cannot write %s', path)\n"
        "html = QLabel('<b>' + self.tr('Beam') + '</b><br>')\n",
        encoding="utf-8")
    found = untranslated(source)
    assert [line.split(":")[1] for line in found] == ["1", "2", "3", "5", "13"], found
