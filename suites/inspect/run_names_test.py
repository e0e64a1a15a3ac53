#!/usr/bin/env python3
"""Communicator names in EP_INSPECT dumps, read back by ep-inspect.

  run_names_test.py --launcher L --np N --timeout T --schema S --inspect EP_INSPECT_TOOL
                    --layout LAYOUT --out DIR -- comm_caching_ep

Runs the endpoint program of comm.caching (which names a duplicate of its
world "ring-<rank>", each endpoint its own handle, and an inter-communicator
"evens" and "odds" by group) with EP_INSPECT set, then
`ep-inspect read --check` on the dumps: the read output (which must match
the schema) names every endpoint of that communicator by its rank, and the
table shows the names in a column, since they differ. The dumps of the
communicators nobody named carry no names, as dumps written before names
existed, and read alike.
"""

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tool_test  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--inspect", required=True, help="the ep-inspect executable")
    parser.add_argument("--layout", required=True)
    parser.add_argument("--out", required=True)
    tool_test.add_command_arguments(parser, launcher=True)
    args = parser.parse_args()
    program = tool_test.command_of(parser, args, "the test program")

    dumps = os.path.join(args.out, "dumps")
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(dumps)
    env = dict(os.environ, EP_INSPECT=dumps)
    code, _, _ = tool_test.launch(program + ["--layout", args.layout, "--out",
                                             os.path.join(args.out, "ranks")],
                                  args.timeout, args.launcher, args.np, env)
    tool_test.expect_status(code, 0)
    if any(name.endswith(".partial") for name in os.listdir(dumps)):
        tool_test.fail(f"{dumps} holds a partly written dump")

    code, out, _ = tool_test.launch([args.inspect, "read", "--check", dumps], args.timeout)
    tool_test.expect_status(code, 0)
    merged = json.loads(out)
    tool_test.check_result_schema(merged, args.schema)
    if not merged["check"]["passed"]:
        tool_test.fail(f"read --check failed: {merged['check']['failures']}")
    named = {c["kind"]: c for c in merged["communicators"] if "names" in c}
    if sorted(named) != ["inter", "intra"] or len(named) != sum(
            "names" in c for c in merged["communicators"]):
        tool_test.fail("expected one named intra- and one named inter-communicator in the dumps")
    size = named["intra"]["size"]
    expected = [f"ring-{rank}" for rank in range(size)]
    if named["intra"]["names"] != expected:
        tool_test.fail(f"names {named['intra']['names']}, expected {expected}")
    # The evens named it "evens", the odds "odds"; listed by union rank.
    inter = named["inter"]
    by_group = {}
    for entry, name in zip(inter["intercomm_rank_map"], inter["names"]):
        by_group.setdefault(entry["group"], set()).add(name)
    if sorted(map(sorted, by_group.values())) != [["evens"], ["odds"]]:
        tool_test.fail(f"inter-communicator names {inter['names']}: not one per group")

    code, out, _ = tool_test.launch([args.inspect, "read", "--format", "table", dumps],
                                    args.timeout)
    tool_test.expect_status(code, 0)
    tool_test.check_output([f'"ring-{size - 1}"'], out, "", once=True)
    for c in named.values():
        print(f"names of {c['communicator']}: {c['names']}")


if __name__ == "__main__":
    main()
