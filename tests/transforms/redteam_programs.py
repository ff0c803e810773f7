"""The red team's programs: written the way users write code, run through the matrix."""

PROGRAMS: list = []  # (name, function, argument maker taking a Generator, wrt index)
