"""The default run's CPU budget (tests/costs.py): a cost-weighted sample, stable, that keeps every
cheap test and costs its budget's share of the measured run in expectation."""

from __future__ import annotations

import pathlib
import types

import costs
import pytest
import sampling

from transforms import matrix

ROOT = pathlib.Path(costs.__file__).parent.parent


class Row:
    def __init__(self, nodeid: str):
        self.nodeid = nodeid
        self.marks = []

    def add_marker(self, mark):
        self.marks.append(mark.name)

    def get_closest_marker(self, name):
        return name if name in self.marks else None


def made_up(n=400):
    """Costs from 0.3 s to 30 s (a long tail, as measured), and unlisted cheap rows worth 50 s."""
    listed = {f"tests/test_made_up.py::test_row[{k}]": 0.3 + 0.1 * (k % 300) ** 1.2 / 3 for k in range(n)}
    return listed, sum(listed.values()) + 50.0


@pytest.mark.parametrize("budget", [0.2, 0.35, 0.6])
def test_the_cut_spends_the_budget_in_expectation(budget):
    listed, total = made_up()
    threshold = costs.cut(listed, total, budget)
    expected = (total - sum(listed.values())) + sum(min(c, threshold) for c in listed.values())
    assert expected == pytest.approx(budget * total, rel=1e-9)


def test_a_budget_below_the_unlisted_rows_keeps_only_them_and_one_above_everything_keeps_all():
    listed, total = made_up()
    assert costs.cut(listed, total, 0.01) == 0.0
    assert costs.cut(listed, total, 1.5) == float("inf")


def test_the_sample_keeps_cheap_rows_and_a_share_of_costly_ones_like_threshold_over_cost():
    threshold = 0.5
    assert all(costs.kept(f"t[{k}]", threshold, threshold) for k in range(100))
    ids = [f"tests/test_made_up.py::test_row[{k}]" for k in range(20_000)]
    share = sum(costs.kept(i, 5.0, threshold) for i in ids) / len(ids)
    assert share == pytest.approx(0.1, abs=0.01)
    assert [costs.kept(i, 5.0, threshold) for i in ids[:50]] == [costs.kept(i, 5.0, threshold) for i in ids[:50]]


def test_mark_leaves_out_a_share_of_the_measured_rows_and_nothing_unlisted(monkeypatch):
    listed, total = made_up()
    monkeypatch.setattr(costs, "read", lambda path=None: (listed, total))
    monkeypatch.delenv(costs.RECORDING, raising=False)
    rows = [Row(nodeid) for nodeid in listed] + [Row("tests/test_made_up.py::test_new")]
    costs.mark(rows)
    left_out = [r for r in rows if "slow" in r.marks]
    assert 0 < len(left_out) < len(listed)
    assert "slow" not in rows[-1].marks
    threshold = costs.cut(listed, total)
    assert all(listed[r.nodeid] > threshold for r in left_out)


def test_while_recording_nothing_is_left_out(monkeypatch, tmp_path):
    listed, total = made_up()
    monkeypatch.setattr(costs, "read", lambda path=None: (listed, total))
    monkeypatch.setenv(costs.RECORDING, str(tmp_path))
    monkeypatch.delenv(costs.SAMPLED, raising=False)  # (a run measuring the sample sets it)
    rows = [Row(nodeid) for nodeid in listed]
    costs.mark(rows)
    assert not any(r.marks for r in rows)


@pytest.mark.parametrize("markexpr", ["slow", "not slow and not fuzz"])
def test_the_slow_set_runs_what_the_budget_leaves_out(monkeypatch, markexpr):
    """`-m slow` selects by the mark: a row the budget leaves out must carry it under `-m slow` too,
    or neither run would run it; a row the budget keeps runs in the default run, not again."""
    listed, total = made_up()
    monkeypatch.setattr(costs, "read", lambda path=None: (listed, total))
    monkeypatch.setattr(matrix, "SAMPLE", dict(matrix.SAMPLE))  # the slow set samples every cell
    monkeypatch.delenv(costs.RECORDING, raising=False)
    rows = [Row(nodeid) for nodeid in listed]
    for row in rows:
        row.originalname = "test_row"
    sampling.mark(types.SimpleNamespace(getoption=lambda name: markexpr), rows)
    threshold = costs.cut(listed, total)
    left_out = {r.nodeid for r in rows if "slow" in r.marks}
    assert left_out == {n for n, c in listed.items() if not costs.kept(n, c, threshold)}
    assert 0 < len(left_out) < len(rows)


def test_written_costs_read_back(tmp_path):
    (tmp_path / "costs-gw0-1.tsv").write_text("0.400\ttests/a.py::test_x\n0.010\ttests/a.py::test_y\n")
    (tmp_path / "costs-gw1-2.tsv").write_text("3.000\ttests/b.py::test_z[1-2]\n")
    path = tmp_path / "out.tsv"
    costs.write(tmp_path, path)
    listed, total = costs.read(path)
    assert listed == {"tests/a.py::test_x": 0.4, "tests/b.py::test_z[1-2]": 3.0}
    assert total == pytest.approx(3.41)


def test_the_measured_file_names_test_files_that_exist():
    listed, total = costs.read()
    assert listed and total > sum(listed.values())
    missing = {nodeid.partition("::")[0] for nodeid in listed} - {
        str(p.relative_to(ROOT)) for p in [*ROOT.glob("tests/**/*.py"), *ROOT.glob("benchmarks/*.py")]}
    assert not missing, f"tests/test_costs.tsv names files that are gone (measure again): {sorted(missing)}"


def test_two_runs_costs_keep_each_tests_larger_one(tmp_path):
    """A test whose sibling compiled its program costs little where the sibling ran before it, and the
    whole compile where the budget left the sibling out: the file keeps the larger cost of the two runs."""
    full, sampled = tmp_path / "full", tmp_path / "sampled"
    full.mkdir()
    sampled.mkdir()
    (full / "costs-gw0-1.tsv").write_text("2.000\ttests/a.py::test_x[at_zero]\n0.050\ttests/a.py::test_x[away]\n")
    (sampled / "costs-gw0-2.tsv").write_text("1.900\ttests/a.py::test_x[away]\n0.010\ttests/a.py::test_y\n")
    path = tmp_path / "out.tsv"
    costs.write([full, sampled], path)
    listed, total = costs.read(path)
    assert listed == {"tests/a.py::test_x[at_zero]": 2.0, "tests/a.py::test_x[away]": 1.9}
    assert total == pytest.approx(3.91)


def test_recording_the_sampled_run_keeps_the_budget(monkeypatch, tmp_path):
    listed, total = made_up()
    monkeypatch.setattr(costs, "read", lambda path=None: (listed, total))
    monkeypatch.setenv(costs.RECORDING, str(tmp_path))
    monkeypatch.setenv(costs.SAMPLED, "1")
    rows = [Row(nodeid) for nodeid in listed]
    costs.mark(rows)
    assert 0 < sum("slow" in r.marks for r in rows) < len(rows)
