#!/usr/bin/env python3
"""Checks that every libep case of suite files has a plain-MPI twin.

  check_suite_twins.py [--np N] SUITE.json...

A twin is a case with "impl": "mpi", the same subcommand and the same
options (sizes, tests, op, sync, groups, ...) but impl, placement, the
process count and the endpoints per process, that runs as many ranks: what
`ep-bench summary --ratios` pairs at the end of scripts/bench.sh, so that
the ratio it prints compares like with like. Ranks, as ep-bench counts them:
p2p and rma run 2 x pairs ranks whatever the impl; split, intercomm, merge,
bcast and allreduce run processes x endpoints per process (--ep) with
--impl ep and one rank per process with --impl mpi. A case without
"processes" runs in the main job of N processes (scripts/bench.sh's
BENCH_NP, default 2). Exit status 1 with the cases that lack a twin.
"""

import argparse
import json
import sys

# Options that say who plays the ranks and where, not what is measured.
PLAYERS = {"name", "impl", "placement", "processes", "ep", "pairs"}
PAIRED = {"p2p", "rma"}  # subcommands whose ranks are 2 x pairs


def option(case, defaults, key, fallback):
    return case.get(key, defaults.get(key, fallback))


def ranks(case, defaults, np):
    if case["subcommand"] in PAIRED:
        return 2 * int(option(case, defaults, "pairs", 1))
    processes = case.get("processes", np)
    if case["impl"] != "ep":
        return processes
    ep = str(option(case, defaults, "ep", 1))
    counts = [int(n) for n in ep.split(",")]
    return sum(counts) if len(counts) > 1 else processes * counts[0]


def measured(case):
    return {k: v for k, v in case.items() if k not in PLAYERS}


def check(path, np):
    with open(path) as f:
        suite = json.load(f)
    defaults = suite.get("defaults", {})
    cases = suite["cases"]
    twins = {}
    for c in cases:
        if c.get("impl") == "mpi":
            key = json.dumps([measured(c), ranks(c, defaults, np)], sort_keys=True)
            twins.setdefault(key, c["name"])
    missing = []
    paired = 0
    for c in cases:
        if c.get("impl") != "ep":
            continue
        n = ranks(c, defaults, np)
        twin = twins.get(json.dumps([measured(c), n], sort_keys=True))
        if twin is None:
            missing.append(f"{path}: case {c['name']!r} ({n} ranks) has no plain-MPI twin: "
                           f"a case with \"impl\": \"mpi\", {json.dumps(measured(c))} and "
                           f"{n} ranks")
        else:
            paired += 1
    return paired, missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--np", type=int, default=2, help="processes of the main job")
    parser.add_argument("suites", nargs="+")
    args = parser.parse_args()
    problems = []
    for path in args.suites:
        paired, missing = check(path, args.np)
        problems += missing
        print(f"{path}: {paired} libep cases, each with its plain-MPI twin"
              if not missing else f"{path}: {len(missing)} libep cases without a twin")
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
