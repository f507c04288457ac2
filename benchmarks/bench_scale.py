"""``dualsvm scale`` and ``dualsvm checkdata`` against Debian's svm-scale and svm-checkdata
(LIBSVM 3.24's tools, ``apt-get install libsvm-tools``): the same output, and the wall time
of each command line, both as separate processes (start-up included).

Cases: svm-scale's defaults, ``-l 0`` and ``-y 0 1`` on the training files of svmguide1 and
a9a (shipped in tests/data), each with its range file ``-s``; the test files scaled by
``-r`` with svm-scale's range file; svm-checkdata's report on tests/data's file of every
kind of error and on the good files. For each: whether stdout (and the range file) are
byte-equal, the largest difference of the values read back, and, for checkdata, whether
the same lines are flagged with as many problems each. Best of ``--repeats``, interleaved.

    flock -x /tmp/dualsvm-cpu.lock python benchmarks/bench_scale.py

Writes ``results/scale.md`` and ``results/scale.json``.
"""

import argparse
import bz2
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from common import REPO, RESULTS_DIR, Clock, best_of, log, new_record, page, write_results

SHIPPED = REPO / "tests" / "data"
#: (name, training file, test file, options)
SCALE_CASES = [("svmguide1", "svmguide1", "svmguide1.t", []),
               ("svmguide1 -y 0 1", "svmguide1", "svmguide1.t", ["-y", "0", "1"]),
               ("a9a", "a9a", "a9a.t", []), ("a9a -l 0", "a9a", "a9a.t", ["-l", "0"])]
CHECKDATA_FILES = ["checkdata_errors.txt", "svmguide1", "a9a"]


def timed_run(argv):
    def run():
        with Clock() as clock:
            done = subprocess.run(argv, capture_output=True)
        return {"seconds": clock.seconds, "status": done.returncode, "stdout": done.stdout,
                "stderr": done.stderr}
    return run


def max_difference(ours, theirs, directory):
    """The largest |difference| of labels and values of two scaled outputs, read back."""
    from dualsvm.data.svmlight import read_svmlight

    (directory / "a").write_bytes(ours)
    (directory / "b").write_bytes(theirs)
    (Xa, ya), (Xb, yb) = read_svmlight(directory / "a"), read_svmlight(directory / "b")
    width = max(Xa.shape[1], Xb.shape[1])
    Xa.resize(Xa.shape[0], width)
    Xb.resize(Xb.shape[0], width)
    return float(max(abs(Xa - Xb).max(), np.abs(ya - yb).max(initial=0.0)))


def flagged(report):
    """{line: problems} of a checkdata report."""
    counts = {}
    for match in re.finditer(rb"^line (\d+): ", report, re.M):
        counts[int(match.group(1))] = counts.get(int(match.group(1)), 0) + 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for tool in ("svm-scale", "svm-checkdata"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} not found: apt-get install libsvm-tools")
    ours = [sys.executable, "-m", "dualsvm"]
    record = new_record()
    record.update(repeats=args.repeats, scale=[], checkdata=[])
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name in {"svmguide1", "svmguide1.t", "a9a", "a9a.t"}:
            (tmp / name).write_bytes(bz2.decompress((SHIPPED / f"{name}.bz2").read_bytes()))
        shutil.copy(SHIPPED / "checkdata_errors.txt", tmp)
        subprocess.run(ours + ["scale", str(tmp / "svmguide1")], capture_output=True)  # warm-up
        for name, train, test, options in SCALE_CASES:
            for step, data in (("-s", train), ("-r", test)):
                log(f"{name} {step} {data}")
                theirs_range, ours_range = tmp / "theirs.range", tmp / "ours.range"
                if step == "-s":
                    theirs_argv = ["svm-scale", *options, "-s", str(theirs_range), str(tmp / data)]
                    ours_argv = ours + ["scale", *options, "-s", str(ours_range), str(tmp / data)]
                else:  # both restore svm-scale's range file of the training file
                    theirs_argv = ["svm-scale", "-r", str(theirs_range), str(tmp / data)]
                    ours_argv = ours + ["scale", "-r", str(theirs_range), str(tmp / data)]
                runs = best_of(args.repeats, {"svm-scale": timed_run(theirs_argv),
                                              "dualsvm": timed_run(ours_argv)}, log=log)
                a, b = runs["dualsvm"], runs["svm-scale"]
                record["scale"].append({
                    "case": name, "step": step, "file": data,
                    "command": " ".join(["dualsvm", "scale", *ours_argv[4:]]).replace(
                        f"{tmp}/", ""),
                    "byte_equal": a["stdout"] == b["stdout"] and a["status"] == b["status"] == 0,
                    "range_file_equal": (ours_range.read_bytes() == theirs_range.read_bytes()
                                         if step == "-s" else None),
                    "max_abs_difference": max_difference(a["stdout"], b["stdout"], tmp),
                    "lines": b["stdout"].count(b"\n"),
                    "seconds": {"dualsvm": a["seconds"], "svm-scale": b["seconds"]}})
        for data in CHECKDATA_FILES:
            log(f"checkdata {data}")
            runs = best_of(args.repeats, {
                "svm-checkdata": timed_run(["svm-checkdata", str(tmp / data)]),
                "dualsvm": timed_run(ours + ["checkdata", str(tmp / data)])}, log=log)
            a, b = runs["dualsvm"], runs["svm-checkdata"]
            record["checkdata"].append({
                "file": data, "status": {"dualsvm": a["status"], "svm-checkdata": b["status"]},
                "lines_flagged": {"dualsvm": len(flagged(a["stdout"])),
                                  "svm-checkdata": len(flagged(b["stdout"]))},
                "same_lines_and_counts": flagged(a["stdout"]) == flagged(b["stdout"]),
                "summary_equal": a["stdout"].splitlines()[-1] == b["stdout"].splitlines()[-1],
                "seconds": {"dualsvm": a["seconds"], "svm-checkdata": b["seconds"]}})
    body = ["`dualsvm scale` against svm-scale 3.24 (Debian's libsvm-tools); both read the "
            "same plain file, `-r` the range file svm-scale wrote with `-s` on the training "
            "file. Wall seconds of the whole process, best of "
            f"{args.repeats}.", "",
            "| case | step | file | stdout byte-equal | range file equal | max abs diff | lines "
            "| dualsvm s | svm-scale s | ratio |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in record["scale"]:
        s = r["seconds"]
        body.append(f"| {r['case']} | {r['step']} | {r['file']} | {r['byte_equal']} | "
                    f"{'-' if r['range_file_equal'] is None else r['range_file_equal']} | "
                    f"{r['max_abs_difference']:g} | {r['lines']} | {s['dualsvm']:.3f} | "
                    f"{s['svm-scale']:.3f} | {s['dualsvm'] / s['svm-scale']:.2f} |")
    body += ["", "`dualsvm checkdata` against svm-checkdata (LIBSVM's checkdata.py): the lines "
             "flagged, each with its number of problems, the summary line and the exit status.",
             "", "| file | lines flagged (dualsvm / svm-checkdata) | same lines and counts | "
             "same summary | exit status | dualsvm s | svm-checkdata s |",
             "|---|---|---|---|---|---|---|"]
    for r in record["checkdata"]:
        body.append(f"| {r['file']} | {r['lines_flagged']['dualsvm']} / "
                    f"{r['lines_flagged']['svm-checkdata']} | {r['same_lines_and_counts']} | "
                    f"{r['summary_equal']} | {r['status']['dualsvm']} / "
                    f"{r['status']['svm-checkdata']} | {r['seconds']['dualsvm']:.3f} | "
                    f"{r['seconds']['svm-checkdata']:.3f} |")
    write_results(RESULTS_DIR, "scale", record,
                  page("dualsvm scale and checkdata against LIBSVM's tools", record, body))


if __name__ == "__main__":
    main()
