"""Before the window: can Qt's xcb platform plugin load? If not, say which system library is missing
and which package provides it.

On a fresh Debian or Ubuntu desktop the wheel's xcb plugin needs libraries the system may lack
(``libxcb-cursor0`` above all); Qt then aborts with "Could not load the Qt platform plugin "xcb"…",
which names neither. Before the application object is made, :func:`platform_problem` asks ``ldd``
which libraries the plugin cannot find (a few milliseconds) and returns one line that names them and
the Debian packages to install; ``main.py`` prints it and exits. The check runs only where Qt will
use xcb (Linux, no other platform chosen, not a Wayland session, where xcb is only the fallback),
and stays silent when it cannot tell (no ``ldd``, no plugin).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

XCB_PLUGIN = Path("platforms") / "libqxcb.so"
LDD_TIMEOUT_S = 5
NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$", re.MULTILINE)
SONAME = re.compile(r"^(lib.+?)\.so\.(\d+)")
# Sonames whose Debian package does not follow the rule of debian_package() (libfoo.so.N → libfooN).
PACKAGE_EXCEPTIONS = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libz.so.1": "zlib1g",
}


def debian_package(soname: str) -> str:
    """The Debian (and Ubuntu) package that provides a shared library, by Debian's naming rule: the
    library's name and its soname version, lower case, a hyphen between them when the name ends in
    a digit (``libxcb-cursor.so.0`` → ``libxcb-cursor0``, ``libxkbcommon-x11.so.0`` →
    ``libxkbcommon-x11-0``)."""
    if soname in PACKAGE_EXCEPTIONS:
        return PACKAGE_EXCEPTIONS[soname]
    match = SONAME.match(soname)
    if match is None:
        return soname.split(".so", 1)[0].lower()
    name, version = match.group(1).lower(), match.group(2)
    return f"{name}-{version}" if name[-1].isdigit() else f"{name}{version}"


def missing_libraries(ldd_output: str) -> list[str]:
    """The libraries ``ldd`` reports ``=> not found``, each once, in its order."""
    return list(dict.fromkeys(NOT_FOUND.findall(ldd_output)))


def uses_xcb(environ: Mapping[str, str], argv: Sequence[str] = (), platform: str = sys.platform) -> bool:
    """Qt will load the xcb plugin first: on Linux, with no other platform asked for (``-platform``,
    ``QT_QPA_PLATFORM``), outside a Wayland session (where Qt tries Wayland first)."""
    if not platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "")
    for index, argument in enumerate(argv):
        if argument in ("-platform", "--platform") and index + 1 < len(argv):
            chosen = argv[index + 1]
    if chosen:
        return chosen.split(";")[0].split(":")[0] == "xcb"
    return environ.get("XDG_SESSION_TYPE", "") != "wayland"


def run_ldd(library: Path) -> str | None:
    """``ldd``'s report on ``library``; None when there is no ``ldd`` or it fails."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return None
    try:
        result = subprocess.run([ldd, str(library)], capture_output=True, text=True, timeout=LDD_TIMEOUT_S,
                                check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout


def plugins_folder() -> Path:
    """Where Qt looks for its plugins (importing QtCore loads no platform plugin)."""
    from PySide6.QtCore import QLibraryInfo

    return Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))


def problem_line(missing: Sequence[str]) -> str:
    """One line naming the missing libraries and the packages that provide them."""
    packages = " ".join(dict.fromkeys(debian_package(name) for name in missing))
    libraries = missing[0] if len(missing) == 1 else f"{', '.join(missing[:-1])} and {missing[-1]}"
    return (f"Attention Studio cannot open its window: Qt's xcb platform plugin needs {libraries}, which "
            f"{'this system lacks' if len(missing) == 1 else 'are missing'}. On Debian or Ubuntu, install "
            f"{'the package' if len(missing) == 1 else 'the packages'} {packages}: sudo apt-get install {packages}")


def platform_problem(argv: Sequence[str] = (), environ: Mapping[str, str] | None = None,
                     plugins: Path | None = None, ldd: Callable[[Path], str | None] = run_ldd) -> str | None:
    """The line to print instead of starting when the xcb plugin cannot load for want of a system
    library; None when it can, when Qt will not use it, or when that cannot be told."""
    if not uses_xcb(os.environ if environ is None else environ, argv):
        return None
    plugin = (plugins if plugins is not None else plugins_folder()) / XCB_PLUGIN
    if not plugin.is_file():
        return None
    report = ldd(plugin)
    missing = missing_libraries(report) if report else []
    return problem_line(missing) if missing else None
