"""``dualsvm easy`` and ``dualsvm grid`` against Debian's svm-easy and svm-grid (LIBSVM
3.24's easy.py and grid.py, ``apt-get install libsvm-tools``): the practical guide's
example, svmguide1 / svmguide1.t, end to end.

* easy: ``dualsvm easy svmguide1 svmguide1.t`` against svm-easy (a copy with the
  installed tools' paths, as it looks for ../svm-scale and ./grid.py, and grid.py's
  ``-gnuplot null``: no plot; dualsvm easy draws its PNG). svm-easy's grid.py runs
  Debian's one local worker; it is also run with a grid.py of two workers. Each run is
  a whole process in a new directory: wall and CPU seconds (the children's), the best
  C, gamma and CV rate, the test accuracy.
* grid: ``dualsvm grid`` against svm-grid on svmguide1 scaled by svm-scale (the same
  file), 2 workers each (svm-grid's ``nr_local_worker = 2``), log2 C -5..15 step 2,
  log2 gamma 3..-15 step -2, 5-fold, no out file, no plot: the best rate and point,
  wall and CPU seconds; dualsvm grid with train's default solver (``auto``: SMO at this
  size) and with ``--kernel-solver ws``, the one ``dualsvm easy`` uses.

Marks: easy's accuracy within 0.5 point of the guide's 96.875% in at most half of
svm-easy's wall time; grid's best rate within 0.5 point of svm-grid's. Best of
``--repeats`` (interleaved).

    flock -x /tmp/dualsvm-cpu.lock python benchmarks/bench_libsvm_tools.py

Writes ``results/libsvm_tools.md`` and ``results/libsvm_tools.json``.
"""

import argparse
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import DATA_DIR, RESULTS_DIR, best_of, log, new_record, page, write_results

#: The guide's accuracy on svmguide1.t after easy.py's grid search (Hsu, Chang and Lin).
GUIDE_ACCURACY = 96.875
#: The marks: points of accuracy (or rate) from the peer's, and the share of its time.
WITHIN_POINTS, TIME_SHARE = 0.5, 0.5
GRID = ["-log2c", "-5,15,2", "-log2g", "3,-15,-2", "-v", "5"]
TOOLS = ("svm-easy", "svm-grid", "svm-scale", "svm-train", "svm-predict")


def patched(source, target, replacements):
    """A copy of the script ``source`` at ``target`` with ``replacements`` (old, new)."""
    text = Path(source).read_text()
    for old, new in replacements:
        if old not in text:
            sys.exit(f"{source} has no {old!r}: not the svm-easy / svm-grid of libsvm-tools 3.24")
        text = text.replace(old, new)
    Path(target).write_text(text)
    Path(target).chmod(0o755)  # easy.py runs grid.py as a command
    return target


def peer_scripts(directory):
    """(svm-easy with one grid.py worker, svm-easy with two, svm-grid with two)."""
    tools = {name: shutil.which(name) for name in TOOLS}
    grid2 = patched(tools["svm-grid"], directory / "grid2.py",
                    [("nr_local_worker = 1", "nr_local_worker = 2")])
    paths = [('"../svm-scale"', repr(tools["svm-scale"])),
             ('"../svm-train"', repr(tools["svm-train"])),
             ('"../svm-predict"', repr(tools["svm-predict"])),
             ('gnuplot_exe = "/usr/bin/gnuplot"', 'gnuplot_exe = "null"'),
             ('assert os.path.exists(gnuplot_exe),"gnuplot executable not found"', "")]
    easy1 = patched(tools["svm-easy"], directory / "easy1.py",
                    paths + [('"./grid.py"', repr(tools["svm-grid"]))])
    easy2 = patched(tools["svm-easy"], directory / "easy2.py",
                    paths + [('"./grid.py"', repr(str(grid2)))])
    return easy1, easy2, grid2


def timed_process(argv, cwd):
    """A run of ``argv`` in a fresh directory under ``cwd``: wall and CPU seconds (its
    children's user + system time), stdout."""
    def run():
        work = Path(tempfile.mkdtemp(dir=cwd))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=work, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, argv))}: exit {done.returncode}: "
                               f"{done.stderr.strip()[-300:]}")
        shutil.rmtree(work)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"seconds": seconds, "cpu_seconds": cpu, "stdout": done.stdout}
    return run


def easy_figures(stdout):
    """Best C, gamma and CV rate, and the test accuracy, from easy.py's messages."""
    best = re.search(r"^Best c=(\S+), g=(\S+) CV rate=(\S+)$", stdout, re.M)
    accuracy = re.search(r"^Accuracy = (\S+)% \((\d+)/(\d+)\)", stdout, re.M)
    return {"C": float(best[1]), "gamma": float(best[2]), "cv_rate": float(best[3]),
            "accuracy": float(accuracy[1]), "right": int(accuracy[2]), "total": int(accuracy[3])}


def grid_figures(stdout):
    """The best C, gamma and rate of grid.py's last line, and the number of points."""
    C, gamma, rate = (float(v) for v in stdout.strip().splitlines()[-1].split())
    return {"C": C, "gamma": gamma, "rate": rate,
            "points": sum(line.startswith("[") for line in stdout.splitlines())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    missing = [name for name in TOOLS if shutil.which(name) is None]
    if missing:
        sys.exit(f"{', '.join(missing)} not found: apt-get install libsvm-tools")
    train, test = DATA_DIR / "svmguide1", DATA_DIR / "svmguide1.t"
    ours = [sys.executable, "-m", "dualsvm"]
    record = new_record()
    record.update(repeats=args.repeats, data=["svmguide1", "svmguide1.t"])
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        easy1, easy2, grid2 = peer_scripts(tmp)
        scaled = tmp / "svmguide1.scale"
        with open(scaled, "w") as f:
            subprocess.run(["svm-scale", str(train)], stdout=f, check=True)
        # warm-up: Numba's cache and the file system's
        subprocess.run(ours + ["grid", "-log2c", "1,1,1", "-log2g", "1,1,1", "-out", "null",
                               "-png", "null", str(scaled)], capture_output=True, check=True)
        log("easy")
        easy = best_of(args.repeats, {
            "dualsvm easy": timed_process(ours + ["easy", str(train), str(test)], tmp),
            "svm-easy": timed_process([sys.executable, str(easy1), str(train), str(test)], tmp),
            "svm-easy, grid.py 2 workers": timed_process(
                [sys.executable, str(easy2), str(train), str(test)], tmp)}, log=log)
        log("grid")
        grid = best_of(args.repeats, {
            "dualsvm grid": timed_process(ours + ["grid", "--workers", "2", *GRID, "-out", "null",
                                                  "-png", "null", str(scaled)], tmp),
            "dualsvm grid --kernel-solver ws": timed_process(
                ours + ["grid", "--kernel-solver", "ws", "--workers", "2", *GRID, "-out", "null",
                        "-png", "null", str(scaled)], tmp),
            "svm-grid": timed_process([sys.executable, str(grid2), "-svmtrain",
                                       shutil.which("svm-train"), "-gnuplot", "null", "-out",
                                       "null", *GRID, str(scaled)], tmp)}, log=log)
    record["easy"] = {name: _result(run, easy_figures) for name, run in easy.items()}
    record["grid"] = {name: _result(run, grid_figures) for name, run in grid.items()}
    write_results(RESULTS_DIR, "libsvm_tools", record,
                  page("dualsvm easy and grid against LIBSVM's easy.py and grid.py", record,
                       _body(record, args.repeats)))


def _result(run, figures):
    if "error" in run:
        return run
    return {**figures(run["stdout"]), "seconds": run["seconds"],
            "cpu_seconds": run["cpu_seconds"], "all_seconds": run["all_seconds"]}


def _body(record, repeats):
    easy, grid = record["easy"], record["grid"]
    ours, theirs = easy["dualsvm easy"], easy["svm-easy"]
    lines = [
        "LIBSVM's practical guide (Hsu, Chang and Lin) on svmguide1 (3089 rows, 4 features) "
        "and svmguide1.t (4000 rows). Each run is a whole process (start-up included) in a "
        f"new directory; wall seconds of the fastest of {repeats} runs (interleaved), CPU "
        "seconds of that run's processes (user + system), and their ratio, the cores kept "
        "busy. svm-easy is Debian's easy.py with the installed tools' paths and grid.py's "
        "`-gnuplot null` (no plot); `dualsvm easy` draws its contour PNG. Debian's grid.py "
        "has one local worker (`nr_local_worker = 1`); the third row runs svm-easy with a "
        "grid.py of two. Folds: LIBSVM's random folds and ours (seeded, stratified) differ, "
        "so equal rates are not expected, only close ones. `dualsvm easy` searches and trains "
        "with the working-set solver (`--kernel-solver ws`).", "",
        "## easy: scale, grid search, train, test", "",
        "| tool | best C | best gamma | CV rate % | test accuracy % | wall s | CPU s | cores "
        "busy | wall / svm-easy's |", "|---|---|---|---|---|---|---|---|---|"]
    for name, r in easy.items():
        if "error" in r:
            lines.append(f"| {name} | {r['error']} |  |  |  |  |  |  |  |")
            continue
        lines.append(f"| {name} | {r['C']:g} | {r['gamma']:g} | {r['cv_rate']:g} | "
                     f"{r['accuracy']:g} ({r['right']}/{r['total']}) | {r['seconds']:.2f} | "
                     f"{r['cpu_seconds']:.2f} | {r['cpu_seconds'] / r['seconds']:.2f} | "
                     f"{r['seconds'] / theirs['seconds']:.2f} |")
    if "error" not in ours and "error" not in theirs:
        close = abs(ours["accuracy"] - GUIDE_ACCURACY) <= WITHIN_POINTS
        fast = ours["seconds"] <= TIME_SHARE * theirs["seconds"]
        lines += ["", f"Mark: dualsvm easy's accuracy {ours['accuracy']:g}% is "
                  f"{'within' if close else 'NOT within'} {WITHIN_POINTS} point of the guide's "
                  f"{GUIDE_ACCURACY}% (svm-easy's here: {theirs['accuracy']:g}%); its wall time "
                  f"is {ours['seconds'] / theirs['seconds']:.2f} of svm-easy's: "
                  f"{'at most' if fast else 'MORE than'} {TIME_SHARE}."]
    ours, theirs = grid["dualsvm grid"], grid["svm-grid"]
    lines += ["", "## grid: the search alone, 2 workers each", "",
              "svmguide1 scaled by svm-scale (the same file for both), `" + " ".join(GRID)
              + " -out null` and no plot (svm-grid: `-gnuplot null`, its `nr_local_worker` set "
              "to 2; dualsvm grid: `--workers 2 -png null`).", "",
              "| tool | points | best C | best gamma | best rate % | wall s | CPU s | cores busy "
              "| wall / svm-grid's |", "|---|---|---|---|---|---|---|---|---|"]
    for name, r in grid.items():
        if "error" in r:
            lines.append(f"| {name} | {r['error']} |  |  |  |  |  |  |  |")
            continue
        lines.append(f"| {name} | {r['points']} | {r['C']:g} | {r['gamma']:g} | {r['rate']:g} "
                     f"| {r['seconds']:.2f} | {r['cpu_seconds']:.2f} | "
                     f"{r['cpu_seconds'] / r['seconds']:.2f} | "
                     f"{r['seconds'] / theirs['seconds']:.2f} |")
    for name in ("dualsvm grid", "dualsvm grid --kernel-solver ws"):
        ours = grid[name]
        if "error" not in ours and "error" not in theirs:
            close = abs(ours["rate"] - theirs["rate"]) <= WITHIN_POINTS
            lines += ["", f"Mark: {name}'s best rate {ours['rate']:g}% is "
                      f"{'within' if close else 'NOT within'} {WITHIN_POINTS} point of "
                      f"svm-grid's {theirs['rate']:g}%; its wall time is "
                      f"{ours['seconds'] / theirs['seconds']:.2f} of svm-grid's."]
    return lines


if __name__ == "__main__":
    main()
