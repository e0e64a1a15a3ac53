#!/usr/bin/env python3
"""Runs ep-bench under the MPI launcher and checks what it says.

Two kinds of test, chosen by the options:

  run_cli_test.py --launcher L --np N [--timeout S] --schema result.schema.json \
      --json FILE|- --expect impl=ep --expect placement=intra ... \
      --families latency,bandwidth --sizes 8,1024 -- ep-bench p2p ...
    (--prefix rma --families latency/put/flush,... for ep-bench rma)
    The run must succeed, its JSON must match the schema, hold every
    (family, size) with all repetitions and aggregates, and the table must
    be printed by one rank only.

  run_cli_test.py --launcher L --np N --fail TEXT [--fail TEXT ...] [--status S] -- ep-bench ...
    The run must exit non-zero (with --status: exactly S) and its output must
    contain every TEXT; the first exactly once (one rank prints, not all of
    them).

  run_cli_test.py --launcher L --np N --output TEXT [--output TEXT ...] -- ep-bench ...
    The same for a run that must succeed (--help, --version).

Output files that are not plain files, for any kind of test:
  --link LINK=TARGET  makes LINK a symbolic link to TARGET before the run; it
                      must still be one after it (the run writes the target).
  --fifo PATH         makes PATH a named pipe before the run and reads it
                      while the run lasts; what came through must be one
                      JSON document, or a CSV file when it starts with
                      "case,".

--bytes makes %HH in the command line, --json and --setenv NAME=VALUE stand
for the byte HH (names and values that are not UTF-8).

The launch is bounded by --timeout; on expiry its whole process group is
killed so that no rank keeps spinning on the machine (suites/harness/
tool_test.py, which every tool test runner shares).
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tool_test  # noqa: E402
from tool_test import fail  # noqa: E402

AGGREGATES = ["median", "mean", "min", "max", "p90", "stddev"]


def check_series(document, prefix, families, sizes, repetitions):
    """Every (family, size) has its series, each with all repetitions and
    aggregates; a first create/free pair (run_name .../cold) has one."""
    entries = document["benchmarks"]
    expected = 0
    for family in families:
        for size in sizes:
            series = [e for e in entries
                      if e["family"] == f"{prefix}/{family}" and e["bytes"] == size]
            if not series:
                fail(f"no entries of family {prefix}/{family} at {size} B")
            for run_name in sorted({e["run_name"] for e in series}):
                mine = [e for e in series if e["run_name"] == run_name]
                wanted = 1 if run_name.endswith("/cold") else repetitions
                runs = [e for e in mine if e["run_type"] == "iteration"]
                indices = sorted(e["repetition_index"] for e in runs)
                if indices != list(range(wanted)):
                    fail(f"{run_name}: repetition indices {indices}, expected 0..{wanted - 1}")
                names = sorted(e["aggregate_name"] for e in mine if e["run_type"] == "aggregate")
                if names != sorted(AGGREGATES):
                    fail(f"{run_name}: aggregates {names}, expected {AGGREGATES}")
                for e in runs:
                    if e["real_time"] <= 0:
                        fail(f"{e['name']}: real_time {e['real_time']}")
                    streaming = family.split("/")[0] in ("bandwidth", "msgrate")
                    if streaming and e.get("items_per_second", 0) <= 0:
                        fail(f"{e['name']}: no message rate")
                    if e["validated"] and e["validation_errors"] != 0:
                        fail(f"{e['name']}: {e['validation_errors']} wrong payloads")
                expected += wanted + len(AGGREGATES)
    if len(entries) != expected:
        fail(f"{len(entries)} benchmark entries, expected {expected}")


def table_title(prefix, family):
    """How the table of a family begins: "# p2p latency ", "# rma latency put
    --sync flush ", "# rma create/free "."""
    if prefix != "rma":
        return f"# {prefix} {family} "
    parts = family.split("/")
    if parts[0] in ("create", "free"):
        return "# rma create/free "
    return f"# rma {parts[0]} {parts[1]} --sync {parts[2]} "


def check_success(args, code, out, err):
    tool_test.expect_status(code, 0)
    document = tool_test.load_json(args.json, out)
    tool_test.check_result_schema(document, args.schema)
    context = document["context"]
    tool_test.check_context(context, args.expect)
    if context["processes"] != args.np:
        fail(f"context.processes is {context['processes']}, expected {args.np}")
    repetitions = context["repetitions"]
    check_series(document, args.prefix, args.families.split(","),
                 [int(s) for s in args.sizes.split(",")], repetitions)
    # The table goes where the JSON does not, and only one rank prints it.
    tables = err if tool_test.is_stdout(args.json) else out
    for title in sorted({table_title(args.prefix, f) for f in args.families.split(",")}):
        titles = tables.count(title)
        if titles != 1:
            fail(f"the table title '{title}' appears {titles} times, expected once")


def make_specials(args):
    """The links and named pipes of --link and --fifo, made afresh; returns
    the readers of the pipes."""
    tool_test.make_links(args.link)
    return [tool_test.start_fifo_reader(path) for path in args.fifo]


def check_specials(args, readers):
    tool_test.check_links(args.link)
    for reader in readers:
        text = tool_test.finish_fifo_reader(reader)
        if text.startswith("case,"):
            continue
        try:
            json.loads(text)
        except json.JSONDecodeError as e:
            fail(f"what came through {reader[0]} is not one JSON document: {e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tool_test.add_command_arguments(parser, launcher=True)
    parser.add_argument("--schema")
    parser.add_argument("--json",
                        help="where the run writes its JSON ('-' or /dev/stdout: stdout)")
    parser.add_argument("--expect", action="append", default=[], help="context KEY=VALUE")
    parser.add_argument("--prefix", default="p2p", help="the subcommand the families belong to")
    parser.add_argument("--families", default="latency,bandwidth,msgrate",
                        help="families without the prefix: latency, or latency/put/flush for rma")
    parser.add_argument("--sizes", default="8")
    parser.add_argument("--fail", action="append", default=[],
                        help="the run must fail and print TEXT")
    parser.add_argument("--status", type=int,
                        help="with --fail: the exit status the run must have")
    parser.add_argument("--output", action="append", default=[],
                        help="the run must succeed and print TEXT")
    parser.add_argument("--link", action="append", default=[],
                        help="LINK=TARGET: a symbolic link made before the run")
    parser.add_argument("--fifo", action="append", default=[],
                        help="a named pipe made before the run and read during it")
    args = parser.parse_args()
    command = tool_test.command_of(parser, args, "ep-bench")
    args.json = tool_test.maybe_bytes(args, args.json)
    args.fail = [tool_test.maybe_bytes(args, text) for text in args.fail]
    args.output = [tool_test.maybe_bytes(args, text) for text in args.output]
    if not args.fail and not args.output and not (args.json and args.schema):
        parser.error("a success test needs --json and --schema")
    links = [spec.split("=", 1)[0] for spec in args.link]
    if args.json not in links + args.fifo:
        tool_test.remove_stale(args.json)
    readers = make_specials(args)

    code, out, err = tool_test.launch(command, args.timeout, args.launcher, args.np,
                                      env=tool_test.environment_of(args))
    if args.fail:
        if code == 0:
            fail("exit status 0, expected a failure")
        if args.status is not None:
            tool_test.expect_status(code, args.status)
        tool_test.check_output(args.fail, out, err)
    elif args.output:
        tool_test.expect_status(code, 0)
        tool_test.check_output(args.output, out, err)
    else:
        check_success(args, code, out, err)
    check_specials(args, readers)
    print("PASS")


if __name__ == "__main__":
    main()
