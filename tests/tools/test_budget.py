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


def busy(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return end


def test_an_alarm_swallowed_in_a_finaliser_is_raised_again(monkeypatch):
    # sympy's garbage runs finalisers often; one that takes the alarm must not leave a long
    # call (no safe point in it) running past the limit
    budget = Budget(0.05, "test", None)
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)

    def work():
        with budget.stage("simplifying", soft=True) as part:
            thing = Thing()
            keep = weakref.ref(thing, slow_callback)
            del thing
            gc.collect()  # the first alarm lands in the callback and is swallowed
            busy(20.0)  # one long call with no safe point
        return part, keep

    started = time.monotonic()
    part, _ = budget.run(work)
    assert part.expired
    assert time.monotonic() - started < 5.0


def test_an_alarm_swallowed_by_a_bare_except_is_raised_again():
    budget = Budget(0.05, "test", None)
    swallowed = []

    def stubborn():
        try:
            busy(20.0)
        except BaseException:  # noqa: BLE001  a library's bare except, as users' code has them
            swallowed.append(True)
        busy(20.0)

    def work():
        with budget.stage("simplifying", soft=True) as part:
            stubborn()
        return part

    started = time.monotonic()
    assert budget.run(work).expired
    assert swallowed == [True]
    assert time.monotonic() - started < 5.0


def test_no_alarm_outlives_its_stage():
    budget = Budget(0.05, "test", None)

    def work():
        for _ in range(5):
            with budget.stage("simplifying", soft=True):
                busy(0.3)  # past the limit, so the alarm is raised (and repeated)
        return busy(1.0)  # nothing may arrive here

    assert budget.run(work) > 0
