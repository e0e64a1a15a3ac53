#!/usr/bin/env python3
"""Plots ep-bench result files: latency and bandwidth against message size.

  scripts/plot.py [-o PREFIX] [--family FAMILY ...] RESULT.json [MORE.json ...]

writes PREFIX-latency.svg/.png (median real_time of each case) and
PREFIX-bandwidth.svg/.png (median bytes_per_second), both on log axes, with
one line per result file and series (family, impl/placement, pairs). The
legend names each file by the MPI implementation and version in its context,
or by its file name.

Which families go where: the latency plot takes every family except the
streaming ones (names with "bandwidth" or "msgrate"), whose time is a time
per streamed message rather than a latency; the bandwidth plot takes every
family whose cases report bytes_per_second. --family names the families for
both plots instead. Cases without a message size (`bytes`), such as
communicator creation, are not plotted.

Needs matplotlib: Debian's package python3-matplotlib.
"""

import argparse
import json
import os
import statistics
import sys

PROG = "plot.py"
STREAMING = ("bandwidth", "msgrate")


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


def expect(condition, path, pointer, what):
    if not condition:
        raise InputError(f"{path}: {pointer}: {what}")


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


def load(path):
    """{(family, series): {bytes: {"time": [...], "rate": [...]}}} and the file's label."""
    try:
        with open(path) as f:
            document = json.load(f)
    except OSError as e:
        raise InputError(f"{path}: cannot open: {e.strerror}")
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not a JSON document: {e}")
    expect(isinstance(document, dict), path, "/", "expected an object")
    context = document.get("context", {})
    expect(isinstance(context, dict), path, "/context", "expected an object")
    benchmarks = document.get("benchmarks")
    expect(isinstance(benchmarks, list), path, "/benchmarks", "expected an array")
    repetitions, medians = {}, {}
    for i, entry in enumerate(benchmarks):
        pointer = f"/benchmarks/{i}"
        expect(isinstance(entry, dict), path, pointer, "expected an object")
        size = entry.get("bytes")
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            continue  # no message size: nothing to put on the x axis
        time = entry.get("real_time")
        expect(isinstance(time, (int, float)) and not isinstance(time, bool), path,
               f"{pointer}/real_time", "expected a number")
        rate = entry.get("bytes_per_second")
        expect(rate is None or isinstance(rate, (int, float)), path,
               f"{pointer}/bytes_per_second", "expected a number")
        run_type = entry.get("run_type", "iteration")
        if run_type == "iteration":
            target = repetitions
        elif run_type == "aggregate" and entry.get("aggregate_name") == "median":
            target = medians
        else:
            continue
        key = (entry.get("family", "?"), series_name(entry))
        point = target.setdefault(key, {}).setdefault(size, {"time": [], "rate": []})
        point["time"].append(float(time))
        if rate is not None:
            point["rate"].append(float(rate))
    # Repetitions where the file has them; a file with aggregates only still plots.
    for key, points in medians.items():
        repetitions.setdefault(key, points)
    return repetitions, file_label(path, context)


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
    axes.legend(fontsize="small")
    figure.tight_layout()
    written = []
    for extension in ("svg", "png"):
        name = f"{prefix}-{kind}.{extension}"
        metadata = {"Date": None} if extension == "svg" else None  # same input, same file
        try:
            figure.savefig(name, format=extension, metadata=metadata)
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
    args = parser.parse_args()

    try:
        loaded = [load(path) for path in args.files]
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
