#!/usr/bin/env python3
"""Checks that docs/environment.md lists every environment variable read.

A variable is read when libep/ or tools/ call getenv on its name, or when a
script in scripts/ expands it ($NAME, ${NAME...}). The check fails when

  * a getenv in libep/ or tools/ reads a name the document does not list;
  * a getenv's name cannot be told (neither a string literal in the call nor
    string literals on the lines just above it, as in a loop over names);
  * a script expands a name of the project's own (EP_..., LIBEP_...,
    BENCH_...) that the document does not list;
  * the document lists a name that no getenv and no script reads.

The document lists a variable as a table row whose first cell holds its name
in backquotes (several names may share a row). A script's other variables
may come from the environment or from the script itself, which the check
cannot tell apart, so for them it only looks for the names the document
lists.

  check_environment.py REPOSITORY_ROOT
Prints every problem and exits 1 if there is any.
"""
import pathlib
import re
import sys

DOCUMENT = "docs/environment.md"
SOURCE_DIRS = ["libep", "tools"]
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".cc", ".in"}
SCRIPT_DIR = "scripts"

GETENV = re.compile(r"\bgetenv\s*\(")
LITERAL_CALL = re.compile(r'\bgetenv\s*\(\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*\)')
NAME_LITERAL = re.compile(r'"([A-Z][A-Z0-9_]*)"')
# Lines above a getenv whose argument is a variable, searched for its names.
LOOKBACK = 3
ROW_NAME = re.compile(r"`([A-Z][A-Za-z0-9_]*)`")
# Script variables that can only be the environment's: the project's prefixes.
SCRIPT_OWN = re.compile(r"\$\{?((?:EP|LIBEP|BENCH)_[A-Z0-9_]*)")


def strip_comment(line: str) -> str:
    """The line without a // comment (one that does not start inside a string)."""
    at = line.find("//")
    while at >= 0:
        if line.count('"', 0, at) % 2 == 0:
            return line[:at]
        at = line.find("//", at + 2)
    return line


def documented(doc: pathlib.Path) -> dict:
    """Names listed in the document's tables, with the line that lists each."""
    names = {}
    for number, line in enumerate(doc.read_text().splitlines(), 1):
        if not line.lstrip().startswith("|"):
            continue
        cells = line.strip().strip("|").split("|")
        for name in ROW_NAME.findall(cells[0]):
            names.setdefault(name, number)
    return names


def read_by_sources(root: pathlib.Path, problems: list) -> dict:
    """Names read through getenv in libep/ and tools/, with where."""
    names = {}
    for top in SOURCE_DIRS:
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            rel = path.relative_to(root)
            lines = [strip_comment(line) for line in path.read_text().splitlines()]
            for index, line in enumerate(lines):
                if not GETENV.search(line):
                    continue
                where = f"{rel}:{index + 1}"
                found = LITERAL_CALL.findall(line)
                if not found:
                    context = lines[max(0, index - LOOKBACK) : index + 1]
                    found = [n for text in context for n in NAME_LITERAL.findall(text)]
                if not found:
                    problems.append(
                        f"{where}: getenv of a name this check cannot tell: write it as a "
                        f"string literal in the call, or in the list the call loops over"
                    )
                for name in found:
                    names.setdefault(name, where)
    return names


def own_in_scripts(root: pathlib.Path) -> dict:
    """Names with the project's prefixes that the scripts expand, with where."""
    names = {}
    for path in sorted((root / SCRIPT_DIR).glob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(root)
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for name in SCRIPT_OWN.findall(line):
                names.setdefault(name, f"{rel}:{number}")
    return names


# A name a script builds from a variable and then reads indirectly, as
# include=OMPI_MCA_${family}_if_include ... ${!include}.
BUILT_NAME = re.compile(r"\b([A-Z][A-Za-z0-9_]*\$\{[a-z_]+\}[A-Za-z0-9_]*)")


def read_by_scripts(root: pathlib.Path, name: str) -> bool:
    expansion = re.compile(r"\$\{?" + re.escape(name) + r"\b")
    for path in sorted((root / SCRIPT_DIR).glob("*")):
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if expansion.search(text):
            return True
        for built in BUILT_NAME.findall(text):
            pattern = re.sub(r"\\\$\\\{[a-z_]+\\\}", "[A-Za-z0-9_]+", re.escape(built))
            if re.fullmatch(pattern, name):
                return True
    return False


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1])
    doc = root / DOCUMENT
    if not doc.is_file():
        print(f"check_environment.py: no {doc}", file=sys.stderr)
        return 2
    problems = []
    listed = documented(doc)
    read = read_by_sources(root, problems)
    for name, where in sorted({**own_in_scripts(root), **read}.items()):
        if name not in listed:
            problems.append(f"{where}: reads {name}, which {DOCUMENT} does not list")
    for name, number in sorted(listed.items()):
        if name not in read and not read_by_scripts(root, name):
            problems.append(
                f"{DOCUMENT}:{number}: lists {name}, which nothing in "
                f"{', '.join(SOURCE_DIRS)} or {SCRIPT_DIR} reads"
            )
    for p in problems:
        print(p)
    if problems:
        print(f"check_environment.py: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(
        f"check_environment.py: {DOCUMENT} lists the {len(read)} variable(s) that "
        f"{' and '.join(SOURCE_DIRS)} read, and {len(listed) - len(read)} of the scripts"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
