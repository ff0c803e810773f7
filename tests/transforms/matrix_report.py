"""The transformation matrix as a table: ``python tests/transforms/matrix_report.py [options]``.

    --corpus suite|redteam|all   which programs (default all)
    --share 0.25                 a deterministic subsample (default: every program)
    --salt matrix                which subsample: another salt picks another slice of that share
    --match REGEX                only the programs whose name matches
    --only grad,jvp              transformations to run (default: all, numba included)
    --record                     first re-record the suite's programs (runs the whole suite)
    --verbose                    every WRONG, crash and refusal, one line each
    --list                       every program refused or crashed, one line each (to re-run with --match)

It prints, per transformation, ok / refused / crash / WRONG counts and shares, refusal and
crash reasons grouped by class with one example program each, and every WRONG answer.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `transforms` importable, as pytest does
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "transforms"

from transforms import corpus, matrix  # noqa: E402

OUTCOMES = (matrix.OK, matrix.REFUSED, matrix.CRASH, matrix.WRONG, matrix.NA)


def programs(which: str, share: float = 1.0, salt: str = "matrix", match: str | None = None) -> list:
    found = []
    if which in ("suite", "all"):
        found += corpus.suite_corpus()[0]
    if which in ("redteam", "all"):
        found += corpus.redteam()
    if match:
        found = [p for p in found if re.search(match, p.name)]
    return corpus.sample(found, share, salt)


def counts(rows, name: str) -> collections.Counter:
    return collections.Counter(r.cells[name].outcome for r in rows if name in r.cells)


def table(rows, transforms) -> str:
    """Per transformation: counts and shares of each outcome, over the programs with a reference."""
    used = [r for r in rows if not r.excluded]
    lines = [f"{len(rows)} programs, {len(rows) - len(used)} without a reference (excluded)",
             f"{'transformation':16s}" + "".join(f"{o:>15s}" for o in OUTCOMES) + f"{'unlocated':>11s}"]
    for name in transforms:
        c = counts(used, name)
        total = sum(c[o] for o in OUTCOMES if o != matrix.NA) or 1
        unlocated = sum(1 for r in used if name in r.cells and r.cells[name].outcome == matrix.REFUSED
                        and not r.cells[name].located)
        cells = "".join(f"{c[o]:>7d} ({100 * c[o] / total:4.1f}%)" if o != matrix.NA else f"{c[o]:>15d}"
                        for o in OUTCOMES)
        lines.append(f"{name:16s}{cells}{unlocated:>11d}")
    return "\n".join(lines)


def classes(rows, outcome: str, transforms, top: int = 12) -> str:
    """The reasons of one outcome grouped by class: count, class, one example program."""
    lines = []
    for name in transforms:
        groups = collections.defaultdict(list)
        for r in rows:
            cell = r.cells.get(name)
            if cell is not None and cell.outcome == outcome:
                groups[cell.detail].append((r.program, cell))
        if not groups:
            continue
        lines.append(f"-- {name}: {outcome} by class")
        for detail, hits in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:top]:
            program, cell = hits[0]
            lines.append(f"  {len(hits):4d}  {detail}")
            lines.append(f"        e.g. {program.name} ({program.origin}): {cell.message[:160]}")
    return "\n".join(lines)


def wrong(rows) -> str:
    lines = []
    for r in rows:
        for name, cell in r.cells.items():
            if cell.outcome == matrix.WRONG:
                lines.append(f"  WRONG {name:15s} {r.program.name} ({r.program.origin}): {cell.detail}")
    return "\n".join(lines) or "  none"


def check_verdicts(rows) -> str:
    c = collections.Counter(r.cells["check"].detail for r in rows if "check" in r.cells
                            and r.cells["check"].outcome == matrix.OK)
    total = sum(c.values()) or 1
    return "check verdicts: " + ", ".join(f"{k}: {v} ({100 * v / total:.0f}%)" for k, v in c.most_common())


def run_all(progs, transforms, progress=None) -> list:
    rows = []
    for i, p in enumerate(progs):
        rows.append(matrix.run(p, transforms))
        if progress:
            progress(i + 1, len(progs), p)
    return rows


def main(argv=None) -> int:
    import argparse
    matrix.sample_everything()  # a measurement runs every cell of every program
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="all", choices=("suite", "redteam", "all"))
    parser.add_argument("--share", type=float, default=1.0)
    parser.add_argument("--only", default=",".join(matrix.TRANSFORMS))
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--salt", default="matrix")
    parser.add_argument("--match", default=None)
    parser.add_argument("--list", action="store_true")
    opts = parser.parse_args(argv)
    root = Path(__file__).resolve().parents[2]
    if opts.record:
        env = dict(os.environ, SRCDIFF_RECORD_PROGRAMS=str(corpus.RECORDED), PYTHONPATH=str(root))
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "tests", "-p", "no:cacheprovider", "-n", "0"],
                       cwd=root, env=env, check=True)
    transforms = tuple(t for t in opts.only.split(",") if t)
    start = time.perf_counter()
    rows = run_all(programs(opts.corpus, opts.share, opts.salt, opts.match), transforms,
                   lambda i, n, p: print(f"\r{i}/{n} {p.name[:60]:60s}", end="", file=sys.stderr, flush=True))
    print(file=sys.stderr)
    print(table(rows, transforms))
    if "check" in transforms:
        print(check_verdicts(rows))
    print(f"({time.perf_counter() - start:.0f} s)")
    print("WRONG answers:")
    print(wrong(rows))
    print(classes(rows, matrix.CRASH, transforms, top=100 if opts.verbose else 12))
    print(classes(rows, matrix.REFUSED, transforms, top=100 if opts.verbose else 12))
    if opts.list:
        print("refused or crashed, one per line:")
        for r in rows:
            for name, cell in r.cells.items():
                if cell.outcome in (matrix.REFUSED, matrix.CRASH):
                    print(f"  {cell.outcome} {name} {r.program.name}: {cell.message[:200]!r}")
    excluded = collections.Counter(r.excluded for r in rows if r.excluded)
    print("excluded (no reference):")
    for reason, n in excluded.most_common(8):
        print(f"  {n:4d}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
