"""The terminal: a rich Console that never lets a control character from the data through.

Names are cleaned when they are loaded (``common.text.clean_name``); this is the second line of
defence at output time. Every text rich renders from a ``str`` — ``print`` arguments and table cells
alike — passes ``Console.render_str``; there, control characters (ESC, CR, C1, bidi overrides) are
replaced by visible escapes before rich adds its own styling codes. Newlines and tabs the program
itself put into a message are kept.

What is printed to a terminal is for reading, never the result: when the stream is closed (``>&-``),
full (``> /dev/full``) or a pipe whose reader has gone (``| head``), the rest of the console's text is
dropped and the command goes on (its files are still written, its exit code is the plan's).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import IO, Any, TextIO, cast

from rich.console import Console

from procure.common.text import printable


class SafeConsole(Console):
    def render_str(self, text: str, **kwargs: Any):  # noqa: D102 (rich's hook for every str)
        return super().render_str(printable(text, keep_newlines=True), **kwargs)


class LossyStream:
    """A text stream (stdout, stderr) whose write errors end the writing instead of the command: after the
    first ``OSError`` (EPIPE, ENOSPC, EBADF) everything is dropped, and the stream's descriptor is pointed
    at /dev/null so that the interpreter's flush at exit does not fail either. ``None`` (a closed stream
    at start-up): everything is dropped."""

    def __init__(self, stream: TextIO | None):
        self.stream = stream
        self.lost = stream is None

    def write(self, text: str) -> int:
        if not self.lost:
            try:
                self.stream.write(text)  # type: ignore[union-attr]
            except OSError:
                self._lose()
        return len(text)

    def flush(self) -> None:
        if not self.lost:
            try:
                self.stream.flush()  # type: ignore[union-attr]
            except OSError:
                self._lose()

    def isatty(self) -> bool:
        return not self.lost and self.stream.isatty()  # type: ignore[union-attr]

    def fileno(self) -> int:
        if self.stream is None:
            raise OSError("the stream is closed")
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    def _lose(self) -> None:
        self.lost = True
        discard(self.stream)


def discard(stream: TextIO | None) -> None:
    """Point ``stream``'s descriptor at /dev/null and drop what its buffer holds: nothing more is written to it."""
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)


def console(stderr: bool = False) -> Console:
    """The console every command prints to: stdout, or stderr for messages and when stdout carries JSON."""
    stream = LossyStream(sys.stderr if stderr else sys.stdout)
    tty = sys.stdout is not None and _isatty(sys.stdout)
    return SafeConsole(file=cast(IO[str], stream), highlight=False, soft_wrap=False, width=None if tty else 160)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False
