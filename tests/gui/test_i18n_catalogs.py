"""The Chinese catalogs are complete and current: for each gui package with messages, its
``resources/i18n/<package>_zh_CN.ts`` holds every message its code asks for (a fresh extraction adds
none), none unfinished, none vanished or obsolete, placeholders kept, and the ``.qm`` beside it is what
``pyside6-lrelease`` makes of it now (scripts/i18n_update.py does both). Slow: it runs the Qt tools."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scripts.i18n_update import PACKAGES, catalog_path, lrelease, lupdate, package_sources
from tests.gui.test_i18n_coverage import NOT_YET

pytestmark = pytest.mark.slow  # a Qt tool run per package
PLACEHOLDER = re.compile(r"%(?:n|[1-9])")


def messages(ts_file: Path) -> dict[tuple[str, str], ET.Element]:
    """(context, source) → the ``<translation>`` element of every message of a .ts file."""
    root = ET.parse(ts_file).getroot()
    return {(context.findtext("name"), message.findtext("source")): message.find("translation")
            for context in root.iter("context") for message in context.iter("message")}


def _has_messages(package: str) -> bool:
    """Whether the package's code asks for any translation at all (a package of pure logic has no catalog)."""
    pattern = re.compile(r"\btr\(|\btranslate\(|QT_TRANSLATE_NOOP|QT_TR_NOOP")
    return any(pattern.search(path.read_text(encoding="utf-8")) for path in package_sources(package))


@pytest.mark.parametrize("package", PACKAGES)
def test_the_package_catalog_is_complete_and_current(package, tmp_path, request):
    if package in NOT_YET:
        request.applymarker(pytest.mark.xfail(reason=NOT_YET[package], strict=False))
    if not package_sources(package) or not _has_messages(package):
        pytest.skip(f"gui/{package} asks for no translation")
    ts_file = catalog_path(package)
    assert ts_file.is_file(), f"{ts_file.name} is missing: run scripts/i18n_update.py {package}"
    committed = messages(ts_file)
    fresh_file = tmp_path / ts_file.name
    shutil.copy(ts_file, fresh_file)
    lupdate(package, fresh_file)
    fresh = messages(fresh_file)
    new = sorted(set(fresh) - set(committed))
    gone = sorted(set(committed) - set(fresh))
    assert not new, f"{len(new)} messages used but not in {ts_file.name} (run scripts/i18n_update.py): {new[:10]}"
    assert not gone, f"{len(gone)} messages in {ts_file.name} no longer used: {gone[:10]}"
    unfinished = [key for key, translation in committed.items()
                  if translation.get("type") in ("unfinished", "vanished", "obsolete")
                  or not "".join(translation.itertext()).strip()]
    assert not unfinished, f"{len(unfinished)} messages of {ts_file.name} not translated: {unfinished[:10]}"
    for (context, source), translation in committed.items():
        text = "".join(translation.itertext())
        assert sorted(PLACEHOLDER.findall(source)) == sorted(PLACEHOLDER.findall(text)) or "%n" in source, (
            f"{ts_file.name}, {context}: the translation of {source!r} does not keep its placeholders: {text!r}")
    qm_file = catalog_path(package, ".qm")
    assert qm_file.is_file(), f"{qm_file.name} is missing: run scripts/i18n_update.py {package}"
    compiled = tmp_path / qm_file.name
    lrelease(ts_file, compiled)
    assert compiled.read_bytes() == qm_file.read_bytes(), f"{qm_file.name} is not current: run scripts/i18n_update.py"


def test_no_catalog_is_left_without_a_package():
    known = {catalog_path(package).name for package in PACKAGES} | {catalog_path(package, ".qm").name
                                                                      for package in PACKAGES}
    folder = catalog_path("app").parent
    strays = sorted(path.name for path in folder.iterdir() if path.suffix in (".ts", ".qm") and path.name not in known)
    assert not strays, f"catalogs of no package (scripts/i18n_update.py's PACKAGES): {strays}"
