"""The interface's language: English (the source text) or simplified Chinese, chosen and switched live.

Every user-visible string of ``gui/`` goes through Qt's translation system (``self.tr`` /
``QCoreApplication.translate``); its Chinese lies in ``resources/i18n/<package>_zh_CN.qm`` (compiled
from the ``.ts`` beside it), found through the engine's resource lookup so that a wheel works as a
checkout does. Messages the engine writes (a refused setting, a damaged file) stay English.

One translator, :class:`CatalogTranslator`, is installed for the whole life of the application. It
holds the Chinese catalog whatever the language (so that it always knows which message a text on
screen is) and answers with it only while Chinese is chosen. Switching therefore never rebuilds a
widget: :func:`set_language` swaps what the translator answers, then :mod:`gui.retranslate` rewrites
every text on screen that is a known message (a decode, its heatmap and its tokens stay as they
are). A widget whose text is assembled from several messages refreshes itself on
``QEvent.LanguageChange`` (Qt sends it to every widget) or on :func:`language_hub`'s
``languageChanged``.

The choice (``system`` / ``en`` / ``zh_CN``) is remembered in QSettings under ``interface/language``;
``system`` follows the system locale (any Chinese locale gives ``zh_CN``). A missing or damaged
``.qm`` gives one line, in English, and the interface stays English.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QObject, QSettings, QTranslator, Signal

from engine.files import I18N_FOLDER
from gui.stored_settings import stored_text

log = logging.getLogger("attention_studio")

LANGUAGE_KEY = "interface/language"
CHOICES = ("system", "en", "zh_CN")  # what the Language menu offers and QSettings keeps
LANGUAGES = ("en", "zh_CN")  # what the interface can be in: English is the source text
# The packages of gui/ with a catalog each (resources/i18n/<package>_zh_CN.ts and .qm).
PACKAGES = ("app", "translate", "attention", "training", "compare", "common", "lesson")
MAX_CATALOG_BYTES = 16 * 1024 * 1024  # a .qm larger than this is not one of ours (they are tens of kilobytes)


_ARGUMENT = re.compile(r"%([1-9])")


def fill(text: str, *values: object) -> str:
    """``text`` with ``%1``, ``%2``, … replaced by ``values`` in one pass (a value holding ``%2`` stays as
    it is): ``fill(self.tr("Step %1 of %2"), i, n)``, as Qt's ``QString.arg`` does."""
    return _ARGUMENT.sub(lambda m: str(values[int(m.group(1)) - 1]) if int(m.group(1)) <= len(values)
                         else m.group(0), text)


@dataclass(frozen=True)
class Message:
    """One message of a catalog: what ``QCoreApplication.translate`` was asked for."""

    context: str
    source: str
    disambiguation: str | None
    n: int


class CatalogTranslator(QTranslator):
    """Answers every ``tr()`` in the chosen language and records which message each shown text is.

    ``shown[language]`` maps a text as the interface shows it in that language (a translation, or the
    English source) to every :class:`Message` it has been, the first met first ("训练" is TrainTab's "Train"
    and TrainingForm's "Training"); :mod:`gui.retranslate` reads it to rewrite the screen.
    Only messages of the catalog are recorded (Qt asks once per class of a widget's MRO)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.catalog: list[QTranslator] = []  # the Chinese .qm files, loaded whatever the language
        self.language = "en"
        self.shown: dict[str, dict[str, list[Message]]] = {language: {} for language in LANGUAGES}

    def isEmpty(self) -> bool:  # noqa: N802 (Qt's name)
        return not self.catalog

    def translate(self, context: str, source: str, disambiguation: str | None = None,  # type: ignore[override]
                  n: int = -1) -> str | None:
        """The translation in the chosen language; None (Qt then shows the source) in English or when unknown."""
        for translator in self.catalog:
            text = translator.translate(context, source, disambiguation, n)
            if text:
                message = Message(context, source, disambiguation, n)
                for language, shown_text in (("en", source), ("zh_CN", text)):
                    messages = self.shown[language].setdefault(shown_text, [])
                    if message not in messages:
                        messages.append(message)
                return text if self.language == "zh_CN" else None
        return None

    def message_text(self, message: Message, language: str) -> str:
        """``message`` in ``language`` (``%n`` left for the caller)."""
        if language == "zh_CN":
            for translator in self.catalog:
                text = translator.translate(message.context, message.source, message.disambiguation, message.n)
                if text:
                    return text
        return message.source


class LanguageHub(QObject):
    """The app's one source of the current language. ``languageChanged("en" | "zh_CN")`` follows a switch."""

    languageChanged = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.translator = CatalogTranslator(self)
        self.qt_translator = QTranslator(self)  # Qt's own dialogs and buttons (OK, Cancel, file dialogs)
        self.qt_language = ""  # the language qt_translator is installed in ("": none installed)
        self.qt_changed = False  # the last install added or removed it (Qt then sent LanguageChange)
        self.installed = False
        self.choice = "system"
        self.problem = ""  # the last missing or damaged catalog, in one line; "" when all was well


_hub: LanguageHub | None = None


def language_hub() -> LanguageHub:
    """The application's hub (made with the QApplication, which must exist)."""
    global _hub
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("create the QApplication before asking for the interface's language")
    if _hub is None or _hub.parent() is not app:
        _hub = LanguageHub(app)
    return _hub


def current_language() -> str:
    """``"en"`` or ``"zh_CN"``: the language the interface is in now (what a lesson shows its text in)."""
    return language_hub().translator.language if QCoreApplication.instance() is not None else "en"


def system_language() -> str:
    """``"zh_CN"`` for any Chinese system locale, else ``"en"``."""
    return "zh_CN" if QLocale.system().language() == QLocale.Language.Chinese else "en"


def resolve(choice: str) -> str:
    """The language a menu choice means (``system`` follows the locale)."""
    return system_language() if choice == "system" else choice


def stored_choice() -> str:
    """The remembered choice; anything unknown gives ``system``."""
    value = stored_text(QSettings(), LANGUAGE_KEY, "system")
    return value if value in CHOICES else "system"


def catalog_files(language: str, folder: Path | None = None) -> list[Path]:
    """The compiled catalogs of ``language`` (``<package>_<language>.qm``), sorted."""
    folder = I18N_FOLDER if folder is None else folder
    return sorted(folder.glob(f"*_{language}.qm")) if folder.is_dir() else []


def load_catalog(language: str, folder: Path | None = None) -> tuple[list[QTranslator], str]:
    """Every ``.qm`` of ``language`` loaded, or ``([], the problem in one line)`` if one is missing or damaged."""
    folder = I18N_FOLDER if folder is None else folder
    files = catalog_files(language, folder)
    if not files:
        return [], f"The {language} interface is missing (no *_{language}.qm in {folder}); staying in English."
    loaded: list[QTranslator] = []
    for path in files:
        translator = QTranslator()
        try:  # read into memory, not mapped: a catalog rewritten while the app runs cannot pull the rug
            data = path.read_bytes() if path.is_file() and path.stat().st_size <= MAX_CATALOG_BYTES else b""
        except OSError:
            data = b""
        if not data or not translator.load(data) or translator.isEmpty():
            return [], f"The {language} interface file {path.name} is damaged; staying in English."
        translator.data = data  # Qt reads the catalog from these bytes for as long as the translator lives
        loaded.append(translator)
    return loaded, ""


def install_language(choice: str | None = None, folder: Path | None = None) -> str:
    """Install the translator for ``choice`` (None: the remembered one) before the window is built.

    Returns the problem in one line ("" when none); the interface is then English."""
    hub = language_hub()
    app = QCoreApplication.instance()
    choice = stored_choice() if choice is None else choice
    if choice not in CHOICES:
        raise ValueError(f"unknown interface language {choice!r}; choose one of {', '.join(CHOICES)}")
    hub.choice = choice
    catalog, problem = load_catalog("zh_CN", folder)
    hub.translator.catalog = catalog
    hub.problem = problem
    if problem:
        log.warning(problem)
    language = resolve(hub.choice) if not problem else "en"
    hub.translator.language = language
    if not hub.installed:
        app.installTranslator(hub.translator)
        hub.installed = True
    _install_qt_translations(hub, language)
    return problem


def _install_qt_translations(hub: LanguageHub, language: str) -> None:
    """Qt's own strings (standard buttons, file dialogs) in ``language``, when Qt ships them. Installing or
    removing that translator makes Qt send ``LanguageChange`` (``hub.qt_changed`` says whether it did)."""
    app = QCoreApplication.instance()
    wanted = "" if language == "en" else language
    hub.qt_changed = False
    if wanted == hub.qt_language:
        return
    if hub.qt_language:
        hub.qt_changed = app.removeTranslator(hub.qt_translator)
    hub.qt_language = ""
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if wanted and hub.qt_translator.load(f"qtbase_{wanted}", folder) and app.installTranslator(hub.qt_translator):
        hub.qt_language = wanted
        hub.qt_changed = True


def set_language(choice: str, *, remember: bool = True) -> str:
    """Switch the running interface to ``choice`` (``system`` / ``en`` / ``zh_CN``) in place.

    Every known message on screen is rewritten; nothing is rebuilt, so a decode on screen stays.
    Returns the problem in one line ("" when none)."""
    from gui.retranslate import retranslate_widgets

    hub = language_hub()
    before = hub.translator.language
    problem = install_language(choice)
    if remember:
        QSettings().setValue(LANGUAGE_KEY, choice)
    after = hub.translator.language
    if after != before:
        retranslate_widgets(hub.translator, before, after)
        if not hub.qt_changed:  # once per switch: the widgets that assemble their own text hear of it
            QCoreApplication.sendEvent(QCoreApplication.instance(), QEvent(QEvent.Type.LanguageChange))
        hub.languageChanged.emit(after)
    return problem

