#!/usr/bin/env python3
"""Checks that libep's folders are its layers: every include points down.

The floors of libep/src, bottom first. A file may include headers of its own
floor or of a floor below, never of one above; `ranks/` makes no MPI calls
(its functions are pure, so unit tests call them without MPI).

  check_layers.py LIBEP_SRC_DIR
Prints every violation as file:line and exits 1 if there is any.
"""
import pathlib
import re
import sys

FLOORS = ["base", "ranks", "object", "team", "p2p", "coll", "comm"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
MPI_CALL = re.compile(r"\bMPI_[A-Z][a-z_]*\s*\(")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src = pathlib.Path(sys.argv[1])
    if not src.is_dir():
        print(f"check_layers.py: {src} is not a directory", file=sys.stderr)
        return 2
    rank = {name: i for i, name in enumerate(FLOORS)}
    problems = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".hpp", ".cpp", ".in") or not path.is_file():
            continue
        rel = path.relative_to(src)
        floor = rel.parts[0]
        if floor not in rank:
            problems.append(f"{rel}: folder '{floor}' is not a floor ({', '.join(FLOORS)})")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if match:
                target = match.group(1)
                top = target.split("/")[0]
                if top == "ep":
                    # The public headers: declarations only, any floor may use them.
                    continue
                if top not in rank:
                    problems.append(f"{rel}:{number}: includes \"{target}\", which is on no floor")
                elif rank[top] > rank[floor]:
                    problems.append(f"{rel}:{number}: {floor}/ includes \"{target}\", a floor above")
            if floor == "ranks" and MPI_CALL.search(line):
                problems.append(f"{rel}:{number}: ranks/ calls MPI: {line.strip()}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers.py: {len(problems)} include(s) point up or out", file=sys.stderr)
        return 1
    print(f"check_layers.py: every include of {src} points down ({' < '.join(FLOORS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
