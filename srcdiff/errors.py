"""The one exception srcdiff raises on purpose, and the source locations it points at."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Location:
    """A line of the user's source: where an error or an adjoint block comes from."""

    filename: str
    line: int
    code: str = ""
    #: (variable, spelling): variables srcdiff made for what the user writes otherwise (``d_a``, ``d['a']``)
    spellings: tuple = field(default=(), compare=False, repr=False)

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
        if location:
            message = spelled(_unlocated(message, location), location.spellings)
            hint = spelled(hint, location.spellings)
        self.location = location
        self.hint = hint
        self.reason = message
        text = f"{location}: {message}" if location else message
        if location and location.code:
            text += f"\n    {location.code.strip()}"
        if hint:
            text += f"\n  hint: {hint}"
        super().__init__(text)



class PerExampleWarning(UserWarning):
    """Warned by `srcdiff.vmap` the first time a call cannot be batched and runs one example at a
    time (correct numbers, at the speed of a Python loop): it names the user's line that could
    not be batched and why.  ``vmap(f, per_example="allow")`` silences it for one function,
    ``per_example="refuse"`` raises `SrcDiffError` at that line instead."""


class SharedDrawError(SrcDiffError):
    """A draw from a random stream the process shares, in code a transformation runs more than
    once a call (driver/lowering.py): refused, never run one example at a time instead (vmap),
    where each run would draw other numbers."""

def _unlocated(message: str, location: Location) -> str:
    """`message` without a leading ``file.py:12: `` naming `location` again (a refusal raised by generated
    code names its line itself, and is raised again at the user's line): the line is named once."""
    for named in (f"{location}: ", f"{location.short}: "):
        while message.startswith(named):
            message = message[len(named):]
    return message


_IDENTIFIER = re.compile(r"(?<![\w.'\"])[A-Za-z_]\w*(?![\w'\"])")  # (not an attribute, not in quotes)


def spelled(text: str, spellings) -> str:
    """`text` with each variable of `spellings` (pairs) written as the user writes what it holds."""
    if not spellings or not text:
        return text
    table = dict(spellings)
    return _IDENTIFIER.sub(lambda m: table.get(m.group(0), m.group(0)), text)


class SelectedSideError(SrcDiffError):
    """Batched code ran a side of a branch for rows that do not take it (ad/batching_selects.py), and
    it raised, or the sides' values cannot be joined row by row: vmap runs that call one example at a
    time (api/vmap_selects.py)."""
