"""Condense benchmarks/RESULTS.md into the ratio table shown in the README and docs.

    python benchmarks/summarize.py [benchmarks/RESULTS.md]

Prints, per problem, each contender's gradient time as a multiple of the hand-written
gradient's (the medians of per-round ratios that run.py measured), and the first calls of
srcdiff, of srcdiff compiled by numba (numba's compilation included) and of JAX with jit.
"""

import sys
from pathlib import Path

COLUMNS = ["srcdiff", "srcdiff-numba", "autograd", "jax", "jax-jit", "torch", "tangent"]
HEADERS = ["srcdiff", "srcdiff (numba)", "autograd", "JAX (no jit)", "JAX (jit)", "PyTorch (eager)", "Tangent"]
FIRST_CALLS = {"srcdiff": "srcdiff first call", "srcdiff-numba": "numba first call",
               "jax-jit": "JAX (jit) first call"}


def read_rows(path: Path) -> list[dict]:
    text = path.read_text().splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith("| problem | contender"))
    lines = []
    for line in text[start:]:  # the first table only
        if not line.startswith("|"):
            break
        lines.append(line)
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))) for line in lines[2:]]


def summary(rows: list[dict]) -> str:
    problems = list(dict.fromkeys(row["problem"] for row in rows))
    table = {(row["problem"], row["contender"]): row for row in rows}
    out = ["| problem | " + " | ".join([*HEADERS, *FIRST_CALLS.values()]) + " |",
           "|---" * (len(HEADERS) + len(FIRST_CALLS) + 1) + "|"]
    for problem in problems:
        cells = [table.get((problem, name), {}).get("grad/hand") or "n/a" for name in COLUMNS]
        cells += [table.get((problem, name), {}).get("first call") or "n/a" for name in FIRST_CALLS]
        out.append(f"| {problem} | " + " | ".join(cells) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("RESULTS.md"))
    print(summary(read_rows(path)))
