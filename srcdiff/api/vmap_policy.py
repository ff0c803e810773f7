"""What `srcdiff.vmap` does when a call cannot be batched: ``per_example="warn"`` (the default) runs
it one example at a time and warns once (`srcdiff.PerExampleWarning`, at the user's line that could
not be batched, with the reason), ``"allow"`` runs it so without a word, ``"refuse"`` raises
`SrcDiffError` at that line.  No transformation falls back silently: a user who reads neither
``.source`` nor ``.per_example`` still learns that the code is a Python loop over the batch."""

from __future__ import annotations

import os
import sys
import types
import warnings

from ..errors import PerExampleWarning, SrcDiffError

#: the values of vmap's `per_example` option
POLICIES = ("warn", "allow", "refuse")

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SILENCE = (
    "  silence it: pass per_example='allow' to srcdiff.vmap to run it one example at a time without this "
    "warning (or filter srcdiff.PerExampleWarning), or per_example='refuse' to make it an error"
)


def checked_policy(value) -> str:
    """`value` if it is one of `POLICIES`; otherwise a refusal saying which they are."""
    if not isinstance(value, str) or value not in POLICIES:
        raise SrcDiffError(
            f"srcdiff.vmap: per_example={value!r} is not one of {', '.join(map(repr, POLICIES))}",
            hint="'warn' (the default) runs a call that cannot be batched one example at a time and "
            "warns once, 'allow' runs it so silently, 'refuse' raises at the line",
        )
    return value


def refuse_if_asked(policy: str, described: str, refusal: SrcDiffError) -> None:
    """Before a call of `described` runs one example at a time because of `refusal`: with
    ``per_example="refuse"``, the refusal raised at its line, with what to do."""
    if policy != "refuse":
        return
    hint = "; ".join(
        h
        for h in (
            refusal.hint,
            "or pass per_example='allow' (or 'warn') to srcdiff.vmap to run it one example at a time",
        )
        if h
    )
    raise SrcDiffError(
        f"{described} cannot be batched and per_example='refuse': {refusal.reason}", refusal.location, hint
    ) from None


def warn(described: str, refusal: SrcDiffError) -> None:
    """After the first run of a call of `described` one example at a time (a run that raised has
    said enough): `PerExampleWarning` at the user's line of `refusal` (else at the user's call)."""
    message = (
        f"{described} runs one example at a time (a Python loop over the batch, not one batched call), "
        f"because:\n{refusal}\n{SILENCE}"
    )
    where = refusal.location
    if where is not None and where.line:
        warnings.warn_explicit(message, PerExampleWarning, where.filename, where.line)
    else:
        warnings.warn(message, PerExampleWarning, stacklevel=_user_level())


def _user_level() -> int:
    """The `stacklevel` of the first frame outside srcdiff (the user's call of the mapped function)."""
    frame: types.FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
        frame, level = frame.f_back, level + 1
    return level


__all__ = ["POLICIES", "SILENCE", "checked_policy", "refuse_if_asked", "warn"]
