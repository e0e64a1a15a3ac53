#!/usr/bin/env python3
"""Runs `ep-bench run SUITE` under the MPI launcher and checks what it left.

  run_suite_test.py --launcher L --np N [--timeout S] [--status N]
      [--text TEXT ...] [--no-text TEXT ...]
      [--json FILE --schema result.schema.json] [--case NAME=STATUS ...]
      [--entries NAME ...] [--no-entries NAME ...] [--all-noisy]
      [--csv FILE --csv-rows N] [--make KIND=FILE ...] [--link LINK=TARGET ...]
      -- ep-bench run SUITE ...

The exit status must be --status (default 0); every TEXT must be in the
output, the first exactly once (one rank prints). With --json, the file must
exist (even after a failure), match the schema, and be a suite's file: each
--case NAME=STATUS is in context.cases with that status; each --entries NAME
has benchmark entries, each --no-entries NAME none; with --all-noisy every
entry is marked noisy and carries a hint. With --csv, the file starts with
the header and has N rows.

Launching, the timeout and the schema check are suites/harness/tool_test.py's.
"""

import argparse
import csv
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tool_test  # noqa: E402
from tool_test import fail  # noqa: E402

# Suites too large to keep in fixtures/, written before the run (--make):
# 200 000 nested arrays as an option's value, followed by other keys (the
# object then grows, which copies the deep value).
DEPTH = 200000
MADE = {
    "deep-suite": lambda: ('{"cases": [{"sizes": ' + "[" * DEPTH + "]" * DEPTH +
                           ', "name": "a", "subcommand": "p2p", "impl": "mpi"}]}'),
    # A copy of fixtures/tiny.json, for runs that must not write their suite
    # file (and would destroy a fixture if they did).
    "tiny": lambda: open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                                      "tiny.json")).read(),
}

CSV_HEADER = ["case", "name", "family", "impl", "ranks", "processes", "bytes", "iterations",
              "repetitions", "time_unit", "min", "median", "mean", "p90", "max", "stddev",
              "bytes_per_second_median", "items_per_second_median", "spread", "noisy",
              "validation_errors"]


def check_json(args):
    document = tool_test.load_json(args.json, "")
    tool_test.check_result_schema(document, args.schema)
    context = document["context"]
    if context.get("subcommand") != "run":
        fail(f"context.subcommand is {context.get('subcommand')!r}, expected 'run'")
    if context["processes"] != args.np:
        fail(f"context.processes is {context['processes']}, expected {args.np}")
    statuses = {c["name"]: c["status"] for c in context["cases"]}
    for pair in args.case:
        name, status = pair.split("=", 1)
        if statuses.get(name) != status:
            fail(f"case {name!r} has status {statuses.get(name)!r}, expected {status!r} "
                 f"(cases: {statuses})")
    entries = document["benchmarks"]
    for name in args.entries:
        if not any(e.get("case") == name for e in entries):
            fail(f"no benchmark entry of case {name!r}")
    for name in args.no_entries:
        if any(e.get("case") == name for e in entries):
            fail(f"case {name!r} has entries, expected none")
    for e in entries:
        if "noisy" not in e or "spread" not in e:
            fail(f"{e['name']}: no noisy/spread fields")
        if args.all_noisy and e["spread"] > 0 and not (e["noisy"] and e.get("noise_hint")):
            fail(f"{e['name']}: spread {e['spread']} not marked noisy with a hint")


def check_csv(args):
    if not os.path.exists(args.csv):
        fail(f"{args.csv} was not written")
    with open(args.csv, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != CSV_HEADER:
        fail(f"{args.csv}: header {rows[:1]}, expected {CSV_HEADER}")
    if args.csv_rows is not None and len(rows) - 1 != args.csv_rows:
        fail(f"{args.csv}: {len(rows) - 1} rows, expected {args.csv_rows}")
    for row in rows[1:]:
        if len(row) != len(CSV_HEADER):
            fail(f"{args.csv}: row {row} has {len(row)} cells")
        if float(row[CSV_HEADER.index("median")]) <= 0:
            fail(f"{args.csv}: row {row} has no time")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tool_test.add_command_arguments(parser, launcher=True)
    parser.add_argument("--status", type=int, default=0)
    parser.add_argument("--text", action="append", default=[])
    parser.add_argument("--no-text", action="append", default=[])
    parser.add_argument("--json")
    parser.add_argument("--schema")
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--entries", action="append", default=[])
    parser.add_argument("--no-entries", action="append", default=[])
    parser.add_argument("--all-noisy", action="store_true")
    parser.add_argument("--csv")
    parser.add_argument("--csv-rows", type=int)
    parser.add_argument("--make", action="append", default=[],
                        help="KIND=FILE: write a generated suite first: " + ", ".join(MADE))
    parser.add_argument("--link", action="append", default=[],
                        help="LINK=TARGET: a symbolic link made before the run; it must "
                             "still be one after it")
    args = parser.parse_args()
    command = tool_test.command_of(parser, args, "ep-bench")
    links = [spec.split("=", 1)[0] for spec in args.link]
    tool_test.remove_stale(*[p for p in (args.json, args.csv) if p not in links])
    tool_test.make_links(args.link)
    for spec in args.make:
        kind, path = spec.split("=", 1)
        with open(path, "w") as f:
            f.write(MADE[kind]())

    code, out, err = tool_test.launch(command, args.timeout, args.launcher, args.np)
    tool_test.expect_status(code, args.status)
    tool_test.check_output(args.text, out, err)
    tool_test.check_absent(args.no_text, out, err)
    if args.json:
        check_json(args)
    if args.csv:
        check_csv(args)
    tool_test.check_links(args.link)
    print("PASS")


if __name__ == "__main__":
    main()
