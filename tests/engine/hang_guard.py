"""A guard for tests of readers that once hung (a pipe, a device): the call runs in a daemon thread
and the test fails, rather than hangs, when it has not ended within a few seconds."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

GUARD_SECONDS = 20.0  # generous on a loaded machine; a fixed reader ends in milliseconds


class Ended:
    """How a guarded call ended: its value, or the exception it raised."""

    def __init__(self) -> None:
        self.value: Any = None
        self.error: BaseException | None = None


def ends_quickly(call: Callable[[], Any], seconds: float = GUARD_SECONDS,
                 on_hang: Callable[[], None] = lambda: None) -> Ended:
    """Run ``call``; fail the test when it is still running after ``seconds`` (``on_hang`` then
    runs, to release what it waits on: a pipe's reader, say)."""
    ended = Ended()

    def run() -> None:
        try:
            ended.value = call()
        except BaseException as error:  # handed back to the test
            ended.error = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        on_hang()
        pytest.fail(f"the call did not end within {seconds:.0f} s (it hangs)")
    return ended


def raises_quickly(kind: type[BaseException], call: Callable[[], Any], **options: Any) -> BaseException:
    """The ``kind`` exception ``call`` raises, within the guard's time; its message one line."""
    ended = ends_quickly(call, **options)
    if ended.error is None:
        pytest.fail(f"expected {kind.__name__}; the call returned {ended.value!r}")
    if not isinstance(ended.error, kind):
        raise AssertionError(f"expected {kind.__name__}; got {type(ended.error).__name__}: {ended.error}") \
            from ended.error
    message = str(ended.error)
    assert message and "\n" not in message, f"not one line: {message!r}"
    return ended.error
