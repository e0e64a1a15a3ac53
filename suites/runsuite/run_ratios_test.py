#!/usr/bin/env python3
"""Runs `ep-bench summary --ratios` (no MPI launcher: it reads files) and checks the pairs.

  run_ratios_test.py [--status N] [--output TEXT ...] [--absent TEXT ...]
      [--json FILE [--pair EP=TWIN@RATIO ...] [--no-twin EP ...]
       [--geomean FAMILY=RATIO ...] [--without N]] [--timeout S]
      -- ep-bench summary --ratios FILE...

The exit status must be N (default 0); every --output TEXT must be in the
output, the first exactly once, and no --absent TEXT (suites/harness/
tool_test.py's checks). With --json (the file written by --json, '-':
stdout), the libep case named EP (its run name) must have the plain-MPI twin
whose suite case is TWIN and the ratio RATIO (to 1e-6), each --no-twin EP
none, the family's geometric mean be RATIO, and N cases lack a twin.
"""

import argparse
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tool_test  # noqa: E402
from tool_test import fail  # noqa: E402


def close(a, b):
    return a is not None and math.isclose(a, b, rel_tol=1e-6)


def check_json(args, out):
    document = tool_test.load_json(args.json, out)
    for key in ("time_unit", "ratio", "pairs", "geomean", "without_twin"):
        if key not in document:
            fail(f"ratios JSON lacks {key!r}")
    pairs = {p["ep"]["name"]: p for p in document["pairs"]}
    for spec in args.pair:
        name, rest = spec.split("=", 1)
        twin, ratio = rest.rsplit("@", 1)
        pair = pairs.get(name)
        if pair is None:
            fail(f"ratios JSON: no libep case {name!r}; it has {sorted(pairs)}")
        if pair["mpi"] is None or pair["mpi"]["case"] != twin:
            fail(f"ratios JSON: {name} has twin {pair['mpi']}, expected case {twin!r}")
        if not close(pair["ratio"], float(ratio)):
            fail(f"ratios JSON: {name} has ratio {pair['ratio']}, expected {ratio}")
        if not close(pair["ratio"], pair["ep"]["median"] / pair["mpi"]["median"]):
            fail(f"ratios JSON: {name}: ratio {pair['ratio']} is not ep / mpi median")
    for name in args.no_twin:
        pair = pairs.get(name)
        if pair is None or pair["mpi"] is not None or pair["ratio"] is not None:
            fail(f"ratios JSON: {name} should be listed without a twin, found {pair}")
    for spec in args.geomean:
        family, ratio = spec.split("=", 1)
        if not close(document["geomean"].get(family), float(ratio)):
            fail(f"ratios JSON: geomean of {family} is {document['geomean'].get(family)}, "
                 f"expected {ratio}")
    if args.without is not None and document["without_twin"] != args.without:
        fail(f"ratios JSON: without_twin is {document['without_twin']}, expected {args.without}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tool_test.add_command_arguments(parser)
    parser.add_argument("--status", type=int, default=0)
    parser.add_argument("--output", action="append", default=[])
    parser.add_argument("--absent", action="append", default=[])
    parser.add_argument("--json")
    parser.add_argument("--pair", action="append", default=[])
    parser.add_argument("--no-twin", action="append", default=[])
    parser.add_argument("--geomean", action="append", default=[])
    parser.add_argument("--without", type=int)
    args = parser.parse_args()
    command = tool_test.command_of(parser, args, "ep-bench")
    tool_test.remove_stale(args.json)

    code, out, err = tool_test.launch(command, args.timeout)
    tool_test.expect_status(code, args.status)
    tool_test.check_output(args.output, out, err)
    tool_test.check_absent(args.absent, out, err)
    if args.json:
        check_json(args, out)
    print("PASS")


if __name__ == "__main__":
    main()
