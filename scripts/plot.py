#!/usr/bin/env python3
"""Plots ep-bench result files: latency and bandwidth against message size.

  scripts/plot.py [-o PREFIX] [--family FAMILY ...] RESULT.json [MORE.json ...]

writes PREFIX-latency.svg/.png (median real_time of each case) and
PREFIX-bandwidth.svg/.png (median bytes_per_second), both on log axes, with
one line per result file and series (family, impl/placement, pairs). The
legend, below the plot, names each file by the MPI implementation and
version in its context, or by its file name.

Which families go where: the latency plot takes every family except the
streaming ones (names with "bandwidth" or "msgrate"), whose time is a time
per streamed message rather than a latency; the bandwidth plot takes every
family whose cases report bytes_per_second. --family names the families for
both plots instead. Cases without a message size (`bytes`), such as
communicator creation, are not plotted.

The files are read by `ep-bench summary` (the reader and statistics that
`ep-bench compare` uses), found as --ep-bench, on PATH, or in a build
directory of this repository (the newest build*/tools/ep-bench/ep-bench).

Needs matplotlib: Debian's package python3-matplotlib.

Exit status: 0 the plots are written; 2 a wrong command line (an empty
PREFIX, an unknown --family) or a result file ep-bench cannot read; 3
matplotlib or ep-bench is missing, or the ep-bench found cannot be run or
prints no summary of the files.
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys

PROG = "plot.py"
STREAMING = ("bandwidth", "msgrate")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class InputError(Exception):
    pass


def die(message, status=2):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(status)


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as pyplot
    except ImportError as e:
        hint = ""
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            hint = (f" Debian's package serves /usr/bin/python3; this is {sys.executable}:"
                    " if it is installed, run /usr/bin/python3 scripts/plot.py ...")
        die(f"needs matplotlib ({e}): install the Debian package python3-matplotlib"
            f" (apt-get install python3-matplotlib).{hint}", status=3)
    return pyplot


def find_ep_bench(given):
    """The ep-bench that reads the files, and how to name it in messages: the
    one given, on PATH, or the newest build."""
    if given is not None:
        return given, f"--ep-bench {given}"
    found = shutil.which("ep-bench")
    if found:
        return found, f"{found} (the ep-bench on PATH)"
    built = glob.glob(os.path.join(ROOT, "build*", "tools", "ep-bench", "ep-bench"))
    if built:
        newest = max(built, key=os.path.getmtime)
        return newest, f"{newest} (the newest ep-bench built here)"
    die("needs ep-bench to read result files: build it (cmake --build build --target ep-bench)"
        " or name it with --ep-bench PATH", status=3)


def is_median(statistics):
    return (isinstance(statistics, dict) and isinstance(statistics.get("median"), (int, float))
            and not isinstance(statistics.get("median"), bool))


def summary_problem(document, count):
    """What keeps `document` from being ep-bench's summary of `count` files
    (the fields load() reads), or None."""
    if not isinstance(document, dict) or not isinstance(document.get("files"), list):
        return "no 'files' list"
    if len(document["files"]) != count:
        return f"'files' lists {len(document['files'])} files for the {count} given"
    for i, summary in enumerate(document["files"]):
        if not (isinstance(summary, dict) and isinstance(summary.get("path"), str)
                and isinstance(summary.get("context"), dict)
                and isinstance(summary.get("cases"), list)):
            return f"/files/{i} has no path, context and cases"
        for j, case in enumerate(summary["cases"]):
            if not (isinstance(case, dict) and isinstance(case.get("family"), str)
                    and isinstance(case.get("labels"), dict) and is_median(case.get("real_time"))
                    and ("bytes_per_second" not in case or is_median(case["bytes_per_second"]))):
                return f"/files/{i}/cases/{j} has no family, labels and median real_time"
    return None


def summarize(ep_bench, paths):
    """`ep-bench summary --json -` of the files: each file's context and case statistics."""
    path, name = ep_bench
    command = "summary --json -"
    try:
        done = subprocess.run([path, "summary", "--json", "-", "--"] + paths,
                              capture_output=True, text=True, errors="replace",
                              stdin=subprocess.DEVNULL)
    except OSError as e:
        die(f"{name}: cannot run it: {e.strerror}", status=3)
    if done.returncode != 0:
        message = done.stderr.strip() or f"{path} summary exited with {done.returncode}"
        raise InputError(message.removeprefix("ep-bench summary: "))
    # Anything else that exits 0 (/bin/true, a script) is not the reader.
    expected = "expected ep-bench's summary of the files as JSON; is it ep-bench?"
    if not done.stdout.strip():
        die(f"{name}: '{command}' printed nothing; {expected}", status=3)
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError as e:
        start = done.stdout.strip().splitlines()[0][:60]
        die(f"{name}: '{command}' printed no JSON ({e.msg} at line {e.lineno} column {e.colno};"
            f" it begins {start!r}); {expected}", status=3)
    problem = summary_problem(document, len(paths))
    if problem:
        die(f"{name}: '{command}' printed JSON that is no summary ({problem}); {expected}",
            status=3)
    return document["files"]


def file_label(path, context):
    """The MPI implementation and version that produced the file, else its name."""
    impl = context.get("mpi_implementation")
    if isinstance(impl, dict) and impl.get("name") and impl.get("name") != "unknown":
        return f"{impl['name']} {impl.get('version', '')}".strip()
    version = context.get("mpi_library_version")
    if isinstance(version, str) and version.strip():
        return version.split(",")[0].strip()
    return os.path.basename(path)


def series_name(entry):
    parts = [entry.get("family", "?")]
    layout = "/".join(str(entry[k]) for k in ("impl", "placement") if k in entry)
    if layout:
        parts.append(layout)
    if entry.get("pairs", 1) != 1:
        parts.append(f"pairs:{entry['pairs']}")
    if "case" in entry:
        parts.append(f"[{entry['case']}]")
    return " ".join(parts)


def load(summary):
    """{(family, series): {bytes: {"time": [...], "rate": [...]}}} and the file's label.

    Each case contributes its medians; a case with no message size (`bytes`)
    has nothing to put on the x axis.
    """
    points = {}
    for case in summary["cases"]:
        labels = case["labels"]
        size = labels.get("bytes")
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            continue
        entry = dict(labels, family=case["family"])
        key = (case["family"], series_name(entry))
        point = points.setdefault(key, {}).setdefault(size, {"time": [], "rate": []})
        point["time"].append(case["real_time"]["median"])
        if "bytes_per_second" in case:
            point["rate"].append(case["bytes_per_second"]["median"])
    return points, file_label(summary["path"], summary["context"])


def size_text(size):
    """8, 1K, 4M: message sizes as ep-bench's --sizes writes them."""
    for suffix, unit in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= unit and size % unit == 0:
            return f"{int(size) // unit}{suffix}"
    return f"{size:g}"


def median_points(points, metric):
    xs, ys = [], []
    for size in sorted(points):
        values = points[size][metric]
        if values:
            xs.append(size)
            ys.append(statistics.median(values))
    return xs, ys


def plot(pyplot, runs, metric, families, title, ylabel, scale, prefix, kind):
    figure, axes = pyplot.subplots(figsize=(8, 5))
    lines = 0
    for data, label in runs:
        for (family, series), points in sorted(data.items()):
            if family not in families:
                continue
            xs, ys = median_points(points, metric)
            if not xs:
                continue
            axes.plot(xs, [y * scale for y in ys], marker="o", markersize=3,
                      label=f"{series} - {label}")
            lines += 1
    if lines == 0:
        pyplot.close(figure)
        return []
    axes.set_xscale("log", base=2)
    axes.xaxis.set_major_formatter(pyplot.FuncFormatter(lambda x, _: size_text(x)))
    axes.set_yscale("log")
    axes.set_xlabel("message size (bytes)")
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    # Below the figure, where it hides no line: inside the axes it covered
    # the kept results' curves wherever it went. The saved image grows to
    # hold it (bbox_inches="tight"); two columns once it would be long.
    handles, labels = axes.get_legend_handles_labels()
    legend = figure.legend(handles, labels, fontsize="small", loc="upper center",
                           bbox_to_anchor=(0.5, 0), ncol=1 if lines <= 8 else 2, frameon=False)
    written = []
    for extension in ("svg", "png"):
        name = f"{prefix}-{kind}.{extension}"
        metadata = {"Date": None} if extension == "svg" else None  # same input, same file
        try:
            figure.savefig(name, format=extension, metadata=metadata, bbox_inches="tight",
                           bbox_extra_artists=[legend])
        except OSError as e:
            die(f"cannot write {name}: {e.strerror}")
        written.append(name)
    pyplot.close(figure)
    return written


def label_runs(paths, loaded):
    """Each file's legend label; the file name is added where two labels agree."""
    labels = [label for _, label in loaded]
    runs = []
    for path, (data, label) in zip(paths, loaded):
        if labels.count(label) > 1 and label != os.path.basename(path):
            label = f"{label} ({os.path.basename(path)})"
        runs.append((data, label))
    return runs


def main():
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__.splitlines()[0],
        epilog="\n".join(__doc__.splitlines()[2:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", metavar="RESULT.json")
    parser.add_argument("-o", "--output", default="ep-bench", metavar="PREFIX",
                        help="write PREFIX-latency.svg/.png and PREFIX-bandwidth.svg/.png"
                             " (default: %(default)s)")
    parser.add_argument("--family", action="append", default=[],
                        help="plot only this family (e.g. p2p/latency); repeat or use commas")
    parser.add_argument("--ep-bench", metavar="PATH",
                        help="the ep-bench that reads the files (default: on PATH, else the"
                             " newest build*/ here)")
    args = parser.parse_args()
    # "" wrote "-latency.svg" in the working directory, "plots/" plots/-latency.svg.
    if os.path.basename(args.output) in ("", ".", ".."):
        die(f"-o/--output {args.output!r}: names no file; expected a PREFIX such as plots/p2p"
            " (for plots/p2p-latency.svg)")

    try:
        loaded = [load(summary) for summary in summarize(find_ep_bench(args.ep_bench), args.files)]
    except InputError as e:
        die(str(e))
    available = sorted({family for data, _ in loaded for family, _ in data})
    if not available:
        die(f"no case with a message size (bytes) in {', '.join(args.files)}")
    wanted = [f for option in args.family for f in option.split(",") if f]
    for family in wanted:
        if family not in available:
            die(f"--family {family}: not in the files; they have {', '.join(available)}")
    selected = set(wanted or available)
    if wanted:
        latency = selected
    else:
        latency = {f for f in available if not any(s in f for s in STREAMING)}
    pyplot = import_pyplot()
    runs = label_runs(args.files, loaded)
    written = plot(pyplot, runs, "time", latency, "Latency (median over repetitions)",
                   "time (us)", 1.0, args.output, "latency")
    written += plot(pyplot, runs, "rate", selected, "Bandwidth (median over repetitions)",
                    "bandwidth (MB/s)", 1e-6, args.output, "bandwidth")
    if not written:
        die("nothing to plot: no latency family and no case with bytes_per_second")
    for name in written:
        print(name)


if __name__ == "__main__":
    main()
