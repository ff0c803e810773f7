"""Errors raised inside generated code name the user's line they come from.

Each compiled gradient runs its body inside ``try`` (backend/loader.py); an exception goes to
`Origins.raise_located`, which finds the innermost generated frame in the traceback, maps
its line to the user's line (forward: the line whose value the statement computes;
backward: the line whose adjoint block it is in), and raises a `SrcDiffError` there,
chained to the original.  The user's own ``raise``/``assert`` statements raise as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import Location, SrcDiffError
from ..frontend.installed import at_users_line

#: the cell name the generated code's ``except`` calls
ON_ERROR = "__srcdiff_on_error__"


@dataclass(frozen=True)
class Origin:
    """Where one generated function comes from."""

    location: Callable[[int], Location]  # the user's line -> its Location
    name: str  # the generated function's name
    #: generated line -> (the user's line, "forward" or "backward"); None for the user's own
    #: ``raise``/``assert``, whose exception is theirs to see
    user_line: dict


def user_lines(source: str, adjoint_comments: dict[str, int], computes: dict[str, tuple[int, ...]],
               first_line: int, whiles: list[int] = ()) -> dict[int, tuple[int, str] | None]:
    """For each line of `source`, the user's line it computes (forward) or differentiates.

    `adjoint_comments` maps each ``# adjoint of ...`` comment codegen writes to its line;
    `computes` maps each forward value's name to the lines computing it, in program order (a
    value both sides of a branch assign is computed on two lines: the k-th statement assigning
    it is the k-th of them, where the forward sweep assigns it that many times); `whiles` the
    user's ``while`` lines in program order, the k-th ``while`` header of the forward sweep's (when
    the sweep has as many: a test that cannot run, or batch, names the user's loop)."""
    found, current = {}, (first_line, "forward")
    assigned = _forward_assignments(source, adjoint_comments)
    headers = [n for n, text in enumerate(_forward_lines(source, adjoint_comments), start=1)
               if text.startswith("while ")]
    header_lines = dict(zip(headers, whiles)) if len(headers) == len(whiles) else {}
    seen: dict[str, int] = {}
    for number, text in enumerate(source.splitlines(), start=1):
        code = text.strip()
        if code.startswith(("raise", "assert")):
            found[number] = None
            continue
        if code in adjoint_comments:
            current = (adjoint_comments[code], "backward")
        elif number in header_lines:
            current = (header_lines[number], "forward")
        elif current[1] == "forward" and "=" in code:
            target, value = _assignment(code)
            lines = computes.get(target, ())
            if lines:
                k = seen.get(target, 0)
                if value != "None":  # (a name declared before a branch or loop assigns it)
                    seen[target] = k + 1
                ordered = assigned.get(target) == len(lines)
                current = (lines[min(k, len(lines) - 1)] if ordered else lines[-1], "forward")
        found[number] = current
    return found


def _assignment(code: str) -> tuple[str, str]:
    """The first name a line of code assigns, and the text of what it assigns."""
    target, _, value = code.partition("=")
    return target.split(",")[0].strip(), value.strip()


def _forward_lines(source: str, adjoint_comments: dict[str, int]) -> list[str]:
    """The forward sweep's lines (up to the first adjoint comment), stripped."""
    found = []
    for text in source.splitlines():
        code = text.strip()
        if code in adjoint_comments:
            break
        found.append(code)
    return found


def _forward_assignments(source: str, adjoint_comments: dict[str, int]) -> dict[str, int]:
    """How many statements of the forward sweep (up to the first adjoint comment) assign each
    name a value (declarations ``t = None`` apart)."""
    counts: dict[str, int] = {}
    for code in _forward_lines(source, adjoint_comments):
        if "=" in code and not code.startswith(("raise", "assert")):
            target, value = _assignment(code)
            if value != "None":
                counts[target] = counts.get(target, 0) + 1
    return counts


class Origins:
    """The `Origin` of every generated function, by the file name its code was compiled under."""

    def __init__(self, generated: dict | None = None):
        self.by_file: dict[str, Origin] = {}
        #: a generated gradient's name -> its `Origin`, for code differentiated again: an error in a
        #: second derivative's code names the first derivative's line, which names the user's
        self.generated: dict = generated if generated is not None else {}

    def add(self, function, origin: Origin) -> None:
        self.by_file[function.__code__.co_filename] = origin

    def clear(self) -> None:
        self.by_file.clear()

    def raise_located(self, error: Exception):
        """Raise `error` again as a `SrcDiffError` naming the user's line it comes from."""
        located = isinstance(error, SrcDiffError) and error.location is not None
        origin, line = None, None
        tb = error.__traceback__
        while tb is not None:  # the innermost generated frame is where it failed
            found = self.by_file.get(tb.tb_frame.f_code.co_filename)
            if found is not None and not (located and origin is not None):  # located: the outermost
                origin, line = found, tb.tb_lineno
            tb = tb.tb_next
        place = origin.user_line.get(line) if origin is not None else None
        if located:  # met in an installed library's code (a helper of it refused at run time): the
            # user's line that called into it names it, the library's line is not one to change
            named = at_users_line(error, self.back_to_user(origin, *place)[0] if place else None)
            if named is None:
                raise error
            raise named from None
        if place is None:
            raise error
        where, sweep = self.back_to_user(origin, *place)
        doing = "computing" if sweep == "forward" else "computing the gradient of"
        if isinstance(error, SrcDiffError):  # a run-time helper's refusal: its words, at the user's line
            located = SrcDiffError(error.reason, where, error.hint)
        else:
            located = SrcDiffError(f"{type(error).__name__} while {doing} this line: {error}",
                                   where,
                                   f"the generated code {origin.name} failed here (see .source); "
                                   "check the shapes and values that reach this line")
        located.sweep = sweep
        raise located from error

    def back_to_user(self, origin: Origin, user_line: int, sweep: str) -> tuple[Location, str]:
        """The user's file and line of `origin`'s `user_line`, and the sweep it is in."""
        where = origin.location(user_line)
        outer = self.generated.get(where.filename)
        while outer is not None:  # generated code differentiated again: back to the user's line
            back = outer.user_line.get(where.line)
            where = outer.location(back[0] if back else 1)
            sweep = "backward" if back and back[1] == "backward" else sweep
            outer = self.generated.get(where.filename)
        return where, sweep
