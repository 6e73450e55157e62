"""The start-up check: when Qt's xcb plugin cannot load for want of a system library, the app names
the library and the Debian package that provides it (Qt's own message names neither). Tested with
a fake ``ldd`` report, never by breaking Qt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gui.platform_check import (
    XCB_PLUGIN,
    debian_package,
    missing_libraries,
    platform_problem,
    uses_xcb,
)

LDD_REPORT = """\
\tlinux-vdso.so.1 (0x00007ffd0a5e6000)
\tlibQt6XcbQpa.so.6 => /opt/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f0ae62fa000)
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => /lib/x86_64-linux-gnu/libxcb-icccm.so.4 (0x00007f0ae6208000)
\tlibxkbcommon-x11.so.0 => not found
\tlibxcb-cursor.so.0 => not found
"""
X11 = {"DISPLAY": ":0", "XDG_SESSION_TYPE": "x11"}


def _plugins(tmp_path: Path) -> Path:
    (tmp_path / XCB_PLUGIN).parent.mkdir(parents=True)
    (tmp_path / XCB_PLUGIN).write_bytes(b"")
    return tmp_path


def test_the_missing_libraries_are_read_from_ldd_once_each_in_order():
    assert missing_libraries(LDD_REPORT) == ["libxcb-cursor.so.0", "libxkbcommon-x11.so.0"]
    assert missing_libraries("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


def test_each_library_is_named_with_its_debian_package():
    assert debian_package("libxcb-cursor.so.0") == "libxcb-cursor0"
    assert debian_package("libxcb-render-util.so.0") == "libxcb-render-util0"
    assert debian_package("libxkbcommon-x11.so.0") == "libxkbcommon-x11-0"
    assert debian_package("libX11-xcb.so.1") == "libx11-xcb1"
    assert debian_package("libEGL.so.1") == "libegl1"
    assert debian_package("libdbus-1.so.3") == "libdbus-1-3"
    assert debian_package("libglib-2.0.so.0") == "libglib2.0-0"


def test_a_missing_library_gives_one_line_naming_it_and_its_package(tmp_path):
    asked = []
    line = platform_problem([], X11, _plugins(tmp_path), lambda path: asked.append(path) or LDD_REPORT)
    assert asked == [tmp_path / XCB_PLUGIN]
    assert "\n" not in line and "libxcb-cursor.so.0" in line and "libxkbcommon-x11.so.0" in line
    assert line.endswith("sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0")
    one = platform_problem([], X11, tmp_path, lambda _path: "\tlibxcb-cursor.so.0 => not found\n")
    assert "needs libxcb-cursor.so.0, which this system lacks" in one and "package libxcb-cursor0:" in one


def test_nothing_is_said_when_all_is_there_or_it_cannot_be_told(tmp_path):
    plugins = _plugins(tmp_path)
    assert platform_problem([], X11, plugins, lambda _path: "\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") is None
    assert platform_problem([], X11, plugins, lambda _path: None) is None  # no ldd
    assert platform_problem([], X11, tmp_path / "elsewhere", lambda _path: LDD_REPORT) is None  # no plugin


def test_the_check_runs_only_where_qt_will_use_xcb(tmp_path):
    plugins = _plugins(tmp_path)

    def ldd(_path):
        return LDD_REPORT

    assert uses_xcb(X11, platform="linux") and not uses_xcb(X11, platform="darwin")
    assert not uses_xcb({"XDG_SESSION_TYPE": "wayland"}, platform="linux")  # xcb is only Qt's fallback there
    assert uses_xcb({"XDG_SESSION_TYPE": "wayland", "QT_QPA_PLATFORM": "xcb"}, platform="linux")
    assert not uses_xcb({**X11, "QT_QPA_PLATFORM": "offscreen"}, platform="linux")
    assert uses_xcb({**X11, "QT_QPA_PLATFORM": "offscreen"}, ["-platform", "xcb"], platform="linux")
    assert not uses_xcb(X11, ["--model", "m", "-platform", "wayland"], platform="linux")
    if sys.platform.startswith("linux"):
        assert platform_problem([], {**X11, "QT_QPA_PLATFORM": "offscreen"}, plugins, ldd) is None
        assert platform_problem([], X11, plugins, ldd) is not None


@pytest.mark.slow  # a subprocess
def test_main_prints_the_line_and_exits_before_qt_starts(tmp_path):
    """main.py's own path, with the check told that a library is missing (a fake ``ldd`` on PATH)."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ldd").write_text("#!/bin/sh\nprintf '\\tlibxcb-cursor.so.0 => not found\\n'\n")
    (fake / "ldd").chmod(0o755)
    root = Path(__file__).resolve().parents[2]
    env = {"PATH": f"{fake}:/usr/bin:/bin", "QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0", "HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, str(root / "main.py")], capture_output=True, text=True, env=env,
                            cwd=root, timeout=60, check=False)
    if sys.platform.startswith("linux"):
        assert result.returncode == 1 and "qt.qpa" not in result.stderr
        assert "sudo apt-get install libxcb-cursor0" in result.stderr.strip().splitlines()[-1]
