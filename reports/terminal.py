"""The terminal: a rich Console that never lets a control character from the data through.

Names are cleaned when they are loaded (``models.text.clean_name``); this is the second line of
defence at output time. Every text rich renders from a ``str`` — ``print`` arguments and table cells
alike — passes ``Console.render_str``; there, control characters (ESC, CR, C1, bidi overrides) are
replaced by visible escapes before rich adds its own styling codes. Newlines and tabs the program
itself put into a message are kept.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console

from procure.models.text import printable


class SafeConsole(Console):
    def render_str(self, text: str, **kwargs: Any):  # noqa: D102 (rich's hook for every str)
        return super().render_str(printable(text, keep_newlines=True), **kwargs)


def console(stderr: bool = False) -> Console:
    """The console every command prints to: stdout, or stderr for messages and when stdout carries JSON."""
    return SafeConsole(stderr=stderr, highlight=False, soft_wrap=False, width=None if sys.stdout.isatty() else 160)
