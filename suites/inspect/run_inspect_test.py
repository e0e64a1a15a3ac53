#!/usr/bin/env python3
"""Runs ep-inspect and checks what it prints.

  run_inspect_test.py --launcher L --np N --schema S --golden FILE -- ep-inspect ...
    The run succeeds; its output (JSON, or a table with --table) matches the
    golden file once host names and communicator ids are normalised (ids
    become C0, C1, ... in order of appearance: libep numbers communicators
    per process, and which of two concurrent splits gets the lower number is
    timing). JSON must also match the schema. With EP_INSPECT_UPDATE_GOLDEN=1
    in the environment the golden file is rewritten instead.

  run_inspect_test.py --launcher L --np N --fail TEXT [--fail TEXT ...] --status K -- ...
    The run exits with status K and prints every TEXT; the first exactly once
    (one rank speaks, although every rank fails). --np 0 runs without the
    launcher (ep-inspect read).

  run_inspect_test.py --launcher L --np N --schema S --dump -- ep-inspect SCENARIO...
    Runs the scenario with EP_INSPECT set, then `ep-inspect read --check` on
    the dumps (without the launcher): every dump and both outputs match the
    schema, and every communicator of the scenario is in the read output with
    the same maps.

  run_inspect_test.py ... --dump --corrupt KIND --fail TEXT -- ep-inspect SCENARIO...
    The same dumps, damaged on purpose (KIND: local-rank, disagree, missing,
    foreign): `ep-inspect read --check` must exit 1 and say TEXT.

  run_inspect_test.py ... --dump --set FIELD=RAW --fail TEXT -- ep-inspect SCENARIO...
    In the first dump (by name) that has FIELD (a dotted path, list indices
    as numbers: rank_map.1.mpi_rank), or FIELD's object for a new key, the
    value becomes RAW, JSON text as written (4294967296, 1e3, -1, "w0c1",
    {200000*[}{200000*]}). `ep-inspect read` (with and without --check)
    must exit 1 and say TEXT on a line that names the file.

  run_inspect_test.py ... --dump --second SCENARIO --second-np M [--second-into same|other]
                      [--second-host NAME] --fail TEXT -- ep-inspect SCENARIO...
    After the first run, a second run of SCENARIO on M processes dumps into
    the same directory (a reused EP_INSPECT) or another one (read is given
    both); --second-host writes NAME as the host in every dump of the second
    run (another machine). `ep-inspect read` of the lot, with and without
    --check, must exit 1, say TEXT and print no document.

  run_inspect_test.py ... --dump --read ARGS [--stdout-file PATH=TEXT]
                      [--fail TEXT ... --status K] -- ep-inspect SCENARIO...
    After the run, `ep-inspect ARGS read DIR` of its dumps (ARGS: global
    options, e.g. "-o /dev/full") must exit K and say every TEXT, or, without
    --fail, succeed and print one document matching the schema. With
    --stdout-file, PATH holds TEXT before that read, whose stdout is appended
    to it (a shell's `>> PATH`); PATH must still begin with TEXT after it.

  run_inspect_test.py --launcher L --np N --schema S --max-rss MB -- ep-inspect ...
    The run succeeds and prints one document matching the schema, and no
    process of the job (the launcher's included) was ever more than MB
    megabytes resident (their peak, as getrusage reports it for the
    children this runner waited for).

  run_inspect_test.py --launcher L --np N --schema S --written PATH
                      [--fifo PATH] [--link LINK=TARGET ...] -- ep-inspect -o PATH ...
    The run succeeds, prints nothing on stdout, and what it wrote to PATH (a
    named pipe made and read during the run with --fifo, a file otherwise)
    is one document matching the schema; each LINK, a symbolic link made
    before the run, must still be one after it.

--dir-name NAME (with --bytes, %HH in NAME, --setenv's values and the command
line is the byte HH) gives the dumps a directory of that name; --setenv
NAME=VALUE sets a variable for a --fail test's run.

A plain --dump test also reads the directory together with one of its own
files again: a file named twice is one view, not two.

In the tool's command line, {N*TEXT} stands for TEXT repeated N times (a
deeply nested expression, too long to write in CMake).

Schema validation uses the jsonschema module (Draft 2020-12) when it is
installed; without it only the required fields of the documents are checked,
which the output says. Launching and the output checks are
suites/harness/tool_test.py's.
"""

import argparse
import copy
import glob
import json
import os
import re
import resource
import shlex
import shutil
import socket
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tool_test  # noqa: E402
from tool_test import fail  # noqa: E402

ID = re.compile(r"\bw\d+c\d+\b")


def launch(args, command, env=None, np=None, stdout_path=None):
    return tool_test.launch(command, args.timeout, args.launcher, args.np if np is None else np,
                            env=env, stdout_path=stdout_path)


REPEAT = re.compile(r"\{(\d+)\*([^{}]+)\}")


def expand(argument):
    return REPEAT.sub(lambda m: m.group(2) * int(m.group(1)), argument)


# --- schema --------------------------------------------------------------------

def validated_output(out, schema_path, what):
    """`out` parsed as one JSON document and checked against the schema."""
    try:
        document = json.loads(out)
    except json.JSONDecodeError as e:
        fail(f"{what} is not one JSON document: {e}")
    validate(document, schema_path, what)
    return document


def validate(document, schema_path, what):
    with open(schema_path) as f:
        schema = json.load(f)
    kind = {"libep-rank-map": "document", "ep-inspect": "merged"}.get(document.get("schema"))
    if kind is None:
        fail(f"{what}: 'schema' is {document.get('schema')!r}")
    try:
        import jsonschema
    except ImportError:
        minimal_check(document, schema, kind, what)
        return
    # Validate against the definition the document names, for a precise message.
    focused = dict(schema)
    focused.pop("oneOf", None)
    focused["$ref"] = f"#/$defs/{kind}"
    validator = jsonschema.Draft202012Validator(focused)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        fail(f"{what} does not match {schema_path}: {error.message[:300]} "
             f"at {list(error.absolute_path)}")


def minimal_check(document, schema, kind, what):
    """Without jsonschema: the required keys of the top level and of each communicator."""
    print(f"note: jsonschema is not installed; {what} gets a structural check only",
          file=sys.stderr)
    defs = schema["$defs"]
    required = defs[kind].get("required", []) + (defs["maps"]["required"] if kind == "document" else [])
    missing = [k for k in required if k not in document]
    if missing:
        fail(f"{what} lacks {missing}")
    if kind == "merged":
        for c in document["communicators"]:
            need = defs["maps"]["required"] + defs["merged_communicator"]["required"]
            missing = [k for k in need if k not in c]
            if missing:
                fail(f"{what}: communicator {c.get('communicator')} lacks {missing}")


# --- normalising -------------------------------------------------------------------

def normalise_json(document):
    ids = {}

    def walk(value, key=None):
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if key == "host" and isinstance(value, str):
            return "HOST"
        if isinstance(value, str) and ID.fullmatch(value):
            return ids.setdefault(value, f"C{len(ids)}")
        return value

    return walk(document)


def normalise_table(text):
    ids = {}
    text = ID.sub(lambda m: ids.setdefault(m.group(0), f"C{len(ids)}"), text)
    for host in {socket.gethostname(), socket.gethostname().split(".")[0]}:
        text = re.sub(rf"(?<![\w.-]){re.escape(host)}(?![\w.-])", "HOST", text)
    # Column widths follow the host name's length.
    return "\n".join(re.sub(r" +", " ", line).rstrip() for line in text.splitlines()) + "\n"


# --- the test kinds -------------------------------------------------------------------

def golden_test(args):
    code, out, err = launch(args, args.command)
    if code != 0:
        fail(f"exit status {code}, expected 0")
    if args.table:
        actual = normalise_table(out)
    else:
        document = validated_output(out, args.schema, "the output")
        actual = json.dumps(normalise_json(document), indent=2) + "\n"
    if os.environ.get("EP_INSPECT_UPDATE_GOLDEN") == "1":
        with open(args.golden, "w") as f:
            f.write(actual)
        print(f"updated {args.golden}")
        return
    with open(args.golden) as f:
        expected = f.read()
    if actual != expected:
        import difflib
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "golden", "actual",
                                    lineterm="")
        sys.stderr.write("\n".join(list(diff)[:80]) + "\n")
        fail(f"the output differs from {args.golden} (EP_INSPECT_UPDATE_GOLDEN=1 rewrites it)")


def memory_test(args):
    code, out, err = launch(args, args.command)
    tool_test.expect_status(code, 0)
    validated_output(out, args.schema, "the output")
    # Linux gives kilobytes: the largest peak of any process waited for, its
    # own waited-for children included (the launcher waits for the ranks).
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"largest peak resident set of the job: {peak:.0f} MB (at most {args.max_rss:g} MB)",
          file=sys.stderr)
    if peak > args.max_rss:
        fail(f"a process of the job was {peak:.0f} MB resident at its peak; expected at most "
             f"{args.max_rss:g} MB (one copy of each rank map per process, not one per endpoint)")


def fail_test(args):
    code, out, err = launch(args, args.command, env=tool_test.environment_of(args))
    tool_test.expect_status(code, args.status)
    tool_test.check_output(args.fail, out, err)


def corrupt(directory, kind):
    """Damages the dumps of one multi-process communicator in a known way."""
    files = sorted(glob.glob(os.path.join(directory, "*.json")))
    docs = {f: json.load(open(f)) for f in files}
    by_comm = {}
    for f, d in docs.items():
        by_comm.setdefault(d["communicator"], []).append(f)
    target = next((fs for fs in by_comm.values()
                   if len(fs) > 1 and docs[fs[0]]["kind"] == "intra"
                   and docs[fs[0]]["size"] > 2), None)
    if target is None:
        fail("no intra-communicator with two views and three ranks to corrupt")
    first, second = target[0], target[1]
    if kind == "local-rank":  # the same in every view: only the invariant catches it
        for f in target:
            docs[f]["rank_map"][1]["local_rank"] = docs[f]["rank_map"][0]["local_rank"]
            docs[f]["rank_map"][1]["mpi_rank"] = docs[f]["rank_map"][0]["mpi_rank"]
            docs[f]["rank_map"][1]["world_rank"] = docs[f]["rank_map"][0]["world_rank"]
    elif kind == "disagree":
        m = docs[second]["rank_map"]
        m[0], m[1] = copy.deepcopy(m[1]), copy.deepcopy(m[0])
        m[0]["rank"], m[1]["rank"] = 0, 1
    elif kind == "missing":
        os.remove(second)
        return
    elif kind == "foreign":
        with open(os.path.join(directory, "zz-foreign.json"), "w") as f:
            json.dump({"schema": "something-else"}, f)
        return
    for f in target:
        with open(f, "w") as out:
            json.dump(docs[f], out)


def set_field(directory, assignment):
    """Writes RAW text as the value of FIELD in the first dump that has it;
    returns that file's path."""
    field, raw = assignment.split("=", 1)
    keys = [int(k) if k.isdigit() else k for k in field.split(".")]
    for f in sorted(glob.glob(os.path.join(directory, "*.json"))):
        doc = json.load(open(f))
        parent = doc
        try:
            for k in keys[:-1]:
                parent = parent[k]
            if not isinstance(parent, dict):
                parent[keys[-1]]  # noqa: B018 - an element must exist
        except (KeyError, IndexError, TypeError):
            continue
        marker = "@@ep-inspect-test@@"
        parent[keys[-1]] = marker
        with open(f, "w") as out:
            out.write(json.dumps(doc).replace(json.dumps(marker), expand(raw)))
        return f
    fail(f"no dump has the field {field}")


def expect_read_failure(args, inspect, directory, named_file=None, both=False, paths=None):
    for check in (["--check"], []) if named_file or both else (["--check"],):
        code, out, err = launch(args, [inspect, "read"] + check + (paths or [directory]), np=0)
        if code != 1:
            fail(f"read {' '.join(check)} of damaged dumps exited with {code}, expected 1")
        for text in args.fail:
            lines = [line for line in (out + err).splitlines() if text in line]
            if not lines:
                fail(f"read {' '.join(check)} does not say {text!r}")
            if named_file and not any(named_file in line for line in lines):
                fail(f"read {' '.join(check)} says {text!r} without naming {named_file}")
        if both and out.strip():
            fail(f"read {' '.join(check)} of two runs' dumps printed a document")


def second_run(args, inspect, directory):
    """The second run of --second; returns the paths read is to be given."""
    other = directory if args.second_into == "same" else tempfile.mkdtemp(prefix="ep-inspect-dump-")
    env = dict(os.environ, EP_INSPECT=other)
    command = [inspect] + shlex.split(args.second) + ["--format", "json"]
    code, out, err = launch(args, command, env=env, np=args.second_np)
    if code != 0:
        fail(f"the second scenario run exited with {code}")
    if args.second_host:
        if other == directory:
            fail("--second-host needs --second-into other")
        for f in glob.glob(os.path.join(other, "*.json")):
            text = open(f).read()
            doc = json.loads(text)
            hosts = {p["host"] for p in doc["processes"]}
            for host in hosts:
                text = text.replace(json.dumps(host), json.dumps(args.second_host))
            with open(f, "w") as out:
                out.write(text)
    return [directory] if other == directory else [directory, other]


def read_test(args, inspect, directory):
    """--read: `ep-inspect ARGS read DIR` of the dumps, as --fail or success."""
    command = [inspect] + shlex.split(args.read) + ["read", directory]
    if args.stdout_file:
        path, text = tool_test.append_to_stdout_file(args.stdout_file)
        code, out, err = launch(args, command, np=0, stdout_path=path)
        out = tool_test.read_stdout_file(path, text)
        sys.stderr.write(out)
    else:
        code, out, err = launch(args, command, np=0)
    if args.fail:
        tool_test.expect_status(code, args.status)
        tool_test.check_output(args.fail, out, err)
        return
    tool_test.expect_status(code, 0)
    validated_output(out, args.schema, "the read output")


def written_test(args):
    """--written: the document goes to a file, a named pipe or a link's target."""
    tool_test.make_links(args.link)
    reader = tool_test.start_fifo_reader(args.fifo) if args.fifo else None
    if not reader and args.written not in [spec.split("=", 1)[0] for spec in args.link]:
        tool_test.remove_stale(args.written)
    code, out, err = launch(args, args.command)
    tool_test.expect_status(code, 0)
    if out.strip():
        fail(f"the run printed on stdout although -o {args.written} was given")
    if reader:
        text = tool_test.finish_fifo_reader(reader)
    else:
        if not os.path.exists(args.written):
            fail(f"{args.written} was not written")
        text = open(args.written).read()
    tool_test.check_links(args.link)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"what was written to {args.written} is not one JSON document: {e}")
    validate(document, args.schema, args.written)


def dump_test(args, inspect):
    base = tempfile.mkdtemp(prefix="ep-inspect-dump-")
    directory = base
    if args.dir_name:  # EP_INSPECT a directory of that name in the temporary one
        directory = os.path.join(base, tool_test.maybe_bytes(args, args.dir_name))
    try:
        env = dict(os.environ, EP_INSPECT=directory)
        code, out, err = launch(args, args.command + ["--format", "json"], env=env)
        if code != 0:
            fail(f"the scenario run exited with {code}")
        scenario = json.loads(out)
        validate(scenario, args.schema, "the scenario output")
        files = sorted(glob.glob(os.path.join(directory, "*.json")))
        if not files:
            fail(f"EP_INSPECT={directory} left no files")
        for f in files:
            validate(json.load(open(f)), args.schema, os.path.basename(f))
        if args.corrupt:
            corrupt(directory, args.corrupt)
            expect_read_failure(args, inspect, directory)
            return
        if args.set:
            target = set_field(directory, args.set)
            expect_read_failure(args, inspect, directory, os.path.basename(target))
            return
        if args.read is not None:
            read_test(args, inspect, directory)
            return
        if args.second:
            paths = second_run(args, inspect, directory)
            try:
                expect_read_failure(args, inspect, directory, both=True, paths=paths)
            finally:
                for path in paths[1:]:
                    shutil.rmtree(path, ignore_errors=True)
            return
        code, out, err = launch(args, [inspect, "read", "--check", directory, files[0]], np=0)
        if code != 0:
            fail(f"read --check exited with {code}")
        read = json.loads(out)
        validate(read, args.schema, "the read output")
        compare_with_dumps(scenario, read)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def compare_with_dumps(scenario, read):
    """Each communicator the scenario made was dumped, with the same maps."""
    dumped = {c["communicator"]: c for c in read["communicators"]}
    shared = ["communicator", "kind", "size", "mpi_size", "processes", "rank_map",
              "intercomm_rank_map", "groups"]
    for c in scenario["communicators"]:
        d = dumped.get(c["communicator"])
        if d is None:
            fail(f"{c['communicator']} is not among the dumps ({sorted(dumped)})")
        for key in shared:
            if c.get(key) != d.get(key):
                fail(f"{c['communicator']}: '{key}' differs between the scenario and its dumps")
        if d["views"] != d["mpi_size"]:
            fail(f"{c['communicator']}: {d['views']} dumps for {d['mpi_size']} processes")
    if not read.get("check", {}).get("passed"):
        fail("read --check did not pass")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tool_test.add_command_arguments(parser, launcher=True)
    parser.add_argument("--schema")
    parser.add_argument("--golden")
    parser.add_argument("--table", action="store_true", help="the golden output is a table")
    parser.add_argument("--fail", action="append", default=[])
    parser.add_argument("--status", type=int, default=2)
    parser.add_argument("--dump", action="store_true")
    parser.add_argument("--corrupt", choices=["local-rank", "disagree", "missing", "foreign"])
    parser.add_argument("--set", metavar="FIELD=RAW")
    parser.add_argument("--second", metavar="SCENARIO")
    parser.add_argument("--second-np", type=int, default=1)
    parser.add_argument("--second-into", choices=["same", "other"], default="same")
    parser.add_argument("--second-host")
    parser.add_argument("--read", metavar="ARGS", help="with --dump: ep-inspect ARGS read DIR")
    parser.add_argument("--stdout-file", metavar="PATH=TEXT")
    parser.add_argument("--written", metavar="PATH", help="the run's -o, checked after it")
    parser.add_argument("--fifo", metavar="PATH", help="with --written: a named pipe")
    parser.add_argument("--link", action="append", default=[], metavar="LINK=TARGET")
    parser.add_argument("--max-rss", type=float, metavar="MB",
                        help="the job's processes stay below MB megabytes resident")
    parser.add_argument("--dir-name", help="--dump: EP_INSPECT names a directory NAME (made by "
                                           "libep) in a temporary one")
    args = parser.parse_args()
    args.fail = [tool_test.maybe_bytes(args, text) for text in args.fail]
    args.command = [expand(a) for a in tool_test.command_of(parser, args, "ep-inspect")]
    if args.dump:
        dump_test(args, args.command[0])
    elif args.written:
        written_test(args)
    elif args.max_rss is not None:
        memory_test(args)
    elif args.golden:
        golden_test(args)
    elif args.fail:
        fail_test(args)
    else:
        parser.error("give --golden, --fail, --dump, --written or --max-rss")
    print("PASS")


if __name__ == "__main__":
    main()
