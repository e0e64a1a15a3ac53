#!/usr/bin/env python3
"""Runs ep-bench split/intercomm/merge under the MPI launcher and checks its JSON.

  run_bench_test.py --launcher L --np N --schema result.schema.json --json FILE \
      --series NAME [--series NAME ...] [--expect KEY=VALUE ...] -- ep-bench ...

The run must succeed; FILE must match the schema; every NAME (a run_name such
as "split/create/ep/2,2" or "split/create/ep/2,2/cold") must be there with
all its repetitions and the six aggregates, with positive times; the cold
series have exactly one repetition; validated series found nothing wrong.
Context KEY=VALUE pairs must hold. The
launch is bounded by --timeout and its process group killed on expiry.

Without the jsonschema module only the required keys are checked (said on
stderr). Launching and the checks are suites/harness/tool_test.py's.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tool_test  # noqa: E402
from tool_test import fail  # noqa: E402

AGGREGATES = {"median", "mean", "min", "max", "p90", "stddev"}


def check_series(document, names):
    repetitions = document["context"]["repetitions"]
    entries = document["benchmarks"]
    for name in names:
        series = [e for e in entries if e["run_name"] == name]
        runs = [e for e in series if e["run_type"] == "iteration"]
        expected = 1 if name.endswith("/cold") else repetitions
        if sorted(e["repetition_index"] for e in runs) != list(range(expected)):
            fail(f"{name}: {len(runs)} repetitions, expected {expected}")
        aggregates = {e["aggregate_name"] for e in series if e["run_type"] == "aggregate"}
        if aggregates != AGGREGATES:
            fail(f"{name}: aggregates {sorted(aggregates)}")
        for e in runs:
            if not e["real_time"] > 0:
                fail(f"{name}: real_time {e['real_time']}")
            if e["validated"] and e["validation_errors"] != 0:
                fail(f"{name}: --validate found {e['validation_errors']} wrong facts")
    extra = {e["run_name"] for e in entries} - set(names)
    if extra:
        fail(f"unexpected series {sorted(extra)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tool_test.add_command_arguments(parser, launcher=True)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--series", action="append", default=[])
    parser.add_argument("--expect", action="append", default=[])
    args = parser.parse_args()
    command = tool_test.command_of(parser, args, "ep-bench")
    tool_test.remove_stale(args.json)
    code, _, _ = tool_test.launch(command, args.timeout, args.launcher, args.np)
    if code != 0:
        fail(f"exit status {code}")
    with open(args.json) as f:
        document = json.load(f)
    tool_test.check_result_schema(document, args.schema)
    tool_test.check_context(document["context"], args.expect)
    check_series(document, args.series)
    print("PASS")


if __name__ == "__main__":
    main()
