#!/usr/bin/env python3
"""Runs `ep-bench run SUITE` under the MPI launcher and checks what it left.

  run_suite_test.py --launcher L --np N [--timeout S] [--status N]
      [--text TEXT ...] [--no-text TEXT ...]
      [--json FILE --schema result.schema.json] [--case NAME=STATUS ...]
      [--entries NAME ...] [--no-entries NAME ...] [--all-noisy]
      [--csv FILE --csv-rows N] -- ep-bench run SUITE ...

The exit status must be --status (default 0); every TEXT must be in the
output, the first exactly once (one rank prints). With --json, the file must
exist (even after a failure), match the schema, and be a suite's file: each
--case NAME=STATUS is in context.cases with that status; each --entries NAME
has benchmark entries, each --no-entries NAME none; with --all-noisy every
entry is marked noisy and carries a hint. With --csv, the file starts with
the header and has N rows.

Launching, the timeout and the schema check are suites/cli/run_cli_test.py's.
"""

import argparse
import csv
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "run_cli_test", os.path.join(HERE, "..", "cli", "run_cli_test.py"))
cli = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cli)
fail = cli.fail

CSV_HEADER = ["case", "name", "family", "impl", "ranks", "processes", "bytes", "iterations",
              "repetitions", "time_unit", "min", "median", "mean", "p90", "max", "stddev",
              "bytes_per_second_median", "items_per_second_median", "spread", "noisy",
              "validation_errors"]


def check_json(args):
    if not os.path.exists(args.json):
        fail(f"{args.json} was not written")
    with open(args.json) as f:
        try:
            document = json.load(f)
        except json.JSONDecodeError as e:
            fail(f"{args.json} is not JSON: {e}")
    cli.check_schema(document, args.schema)
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
    parser.add_argument("--launcher", required=True)
    parser.add_argument("--np", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=120)
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
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("give the ep-bench command after --")
    for path in (args.json, args.csv):
        if path and os.path.exists(path):
            os.remove(path)  # a stale file must not pass for this run's

    code, out, err = cli.launch(args)
    sys.stderr.write(out)
    if code != args.status:
        fail(f"exit status {code}, expected {args.status}")
    if args.text:
        cli.check_output(args.text, out, err)
    for text in args.no_text:
        if text in out + err:
            fail(f"output contains {text!r}")
    if args.json:
        check_json(args)
    if args.csv:
        check_csv(args)
    print("PASS")


if __name__ == "__main__":
    main()
