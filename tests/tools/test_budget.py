"""`srcdiff.check`'s time limits: an alarm that lands where Python cannot raise it."""

import gc
import sys
import time
import weakref

import pytest

from srcdiff.tools.budget import Budget, OutOfTime


class Thing:
    pass


def slow_callback(_ref):
    # the watchdog's alarm arrives here, inside a weakref callback, where Python reports it
    # as "Exception ignored" and goes on
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        pass


def test_an_alarm_in_a_weakref_callback_ends_the_stage_quietly(monkeypatch):
    budget = Budget(0.05, "test", None)
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    hook = sys.unraisablehook

    def work():
        with budget.stage("differentiating", soft=True) as part:
            thing = Thing()
            keep = weakref.ref(thing, slow_callback)
            del thing
            gc.collect()
            budget.check()  # the safe point after the swallowed alarm
        return part, keep

    part, _ = budget.run(work)
    assert part.expired
    assert reported == []  # Python would print it as "Exception ignored in ..."
    assert sys.unraisablehook is hook  # put back when the stage ended


def test_a_hard_stage_still_raises_out_of_time():
    budget = Budget(0.05, "test", None)

    def work():
        with budget.stage("simplifying"):
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                pass

    with pytest.raises(OutOfTime, match="simplifying"):
        budget.run(work)
