#!/usr/bin/env python3
"""Checks that libep's folders are its layers: every include points down.

The floors of libep/src, bottom first. A file may include headers of its own
floor or of a floor below, never of one above; `ranks/` makes no MPI calls
(its functions are pure, so unit tests call them without MPI).

Inside the floors:
- a subsystem's public header (`ep/p2p.hpp`, `ep/coll.hpp`, `ep/comm.hpp`, ...)
  is included only in that subsystem's folder, where the public functions
  are defined, and the umbrella `ep/ep.hpp` nowhere: libep never calls its
  own public API (internal traffic goes through internal interfaces, such as
  p2p/internal.hpp, that do not raise through the user's error handler);
- in p2p/, the engine (`p2p/engine.*`) is the only code that touches an
  endpoint's matching state (MatchState, `endpoint->match`), and a transport
  (`p2p/transport_*`) includes no other p2p header than its own: transports
  move bytes and report arrivals, the engine above them matches.

  check_layers.py LIBEP_SRC_DIR
Prints every violation as file:line and exits 1 if there is any.
"""
import pathlib
import re
import sys

FLOORS = ["base", "ranks", "object", "node", "team", "p2p", "coll", "comm", "rma"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
MPI_CALL = re.compile(r"\bMPI_[A-Z][a-z_]*\s*\(")
# Public headers that declare one subsystem's functions, by the floor that
# defines them; the others (types, version) are declarations anyone may use.
PUBLIC_HEADER_FLOOR = {"ep/inspect.hpp": "comm"}
UMBRELLA = "ep/ep.hpp"
ENDPOINT_HEADER = "object/endpoint.hpp"  # defines MatchState
MATCH_STATE = re.compile(r"\bMatchState\b|(\.|->)match\b")
ENGINE = re.compile(r"^p2p/engine[^/]*$")
TRANSPORT = re.compile(r"^p2p/(transport_[^/.]+)\.(hpp|cpp)$")


def public_header_floor(target, floors):
    """The floor whose public functions `target` (an ep/ header) declares, or None."""
    if target in PUBLIC_HEADER_FLOOR:
        return PUBLIC_HEADER_FLOOR[target]
    stem = target[len("ep/"):].removesuffix(".hpp")
    return stem if stem in floors else None


def include_problems(rel, floor, target, rank):
    """What is wrong with `rel` (on `floor`) including "target"."""
    top = target.split("/")[0]
    if target == UMBRELLA:
        return [f"includes \"{target}\": libep never calls its own public API"]
    if top == "ep":
        owner = public_header_floor(target, rank)
        if owner is not None and owner != floor:
            return [f"{floor}/ includes \"{target}\", the public API of {owner}/: "
                    "use its internal interface"]
        return []
    if top not in rank:
        return [f"includes \"{target}\", which is on no floor"]
    if rank[top] > rank[floor]:
        return [f"{floor}/ includes \"{target}\", a floor above"]
    transport = TRANSPORT.match(rel.as_posix())
    if transport and top == "p2p" and target != f"p2p/{transport.group(1)}.hpp":
        return [f"the transport includes \"{target}\": transports report arrivals to the "
                "engine and include neither it nor each other"]
    return []


def line_problems(rel, floor, line):
    """What is wrong with one line of code of `rel` (on `floor`) besides its includes."""
    code = line.split("//", 1)[0]
    problems = []
    if floor == "ranks" and MPI_CALL.search(line):
        problems.append(f"ranks/ calls MPI: {line.strip()}")
    touches_match = MATCH_STATE.search(code)
    if touches_match and not ENGINE.match(rel.as_posix()) and rel.as_posix() != ENDPOINT_HEADER:
        problems.append(f"touches an endpoint's matching state, which only the p2p engine "
                        f"(p2p/engine.*) may: {line.strip()}")
    return problems


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
            found = include_problems(rel, floor, match.group(1), rank) if match else []
            found += line_problems(rel, floor, line)
            problems += [f"{rel}:{number}: {p}" for p in found]
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers.py: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_layers.py: every include of {src} points down ({' < '.join(FLOORS)}), "
          "no public API is used below its entry points, only the p2p engine matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
