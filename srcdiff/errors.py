"""The one exception srcdiff raises on purpose, and the source locations it points at."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A line of the user's source: where an error or an adjoint block comes from."""

    filename: str
    line: int
    code: str = ""

    @property
    def short(self) -> str:
        """`file.py:12`, with the file's base name only (used in generated comments)."""
        return f"{self.filename.replace(chr(92), '/').rsplit('/', 1)[-1]}:{self.line}"

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}"


class SrcDiffError(Exception):
    """Raised when srcdiff cannot give a correct gradient; never a silent wrong answer.

    The message reads ``file:line: what is wrong`` followed by the offending code and a
    hint saying what to do instead.
    """

    def __init__(self, message: str, location: Location | None = None, hint: str = ""):
        self.location = location
        self.hint = hint
        self.reason = message
        text = f"{location}: {message}" if location else message
        if location and location.code:
            text += f"\n    {location.code.strip()}"
        if hint:
            text += f"\n  hint: {hint}"
        super().__init__(text)
