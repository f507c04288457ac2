"""The first fit in a fresh install: seconds, and what Numba compiles for it.

Installs a source tree (``pip install SOURCE``, not editable; default: this repository)
into a new virtual environment, so that nothing compiled is cached, then times in new
processes::

    import dualsvm, sklearn.datasets as d; X, y = d.load_iris(return_X_y=True)
    t = time.time(); dualsvm.SVC().fit(X, y)    # and SVC(solver="ws"), LinearSVC()

with the import of dualsvm inside the clock and outside it, each a first run (Numba's
cache of the installed package emptied before: it compiles and writes the cache) and a
second run (it loads the cache), and ``dualsvm demo`` as a whole process. It also counts
what ``import dualsvm`` compiles (nothing, it should) and lists, for the first fit of
each estimator, every compiled specialisation (function, signature, compile seconds,
parallel or not). The cache is where Numba puts it by default: the ``__pycache__``
folders of the installed package. Run under the exclusive CPU lock::

    flock -x /tmp/dualsvm-cpu.lock python benchmarks/first_fit.py [--source DIR] \\
        [--repeat 3] [--venv DIR] [--keep] [--json FILE]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FIT = {
    "SVC": "dualsvm.SVC().fit(X, y)",
    # what SVC() runs from 10,000 rows (solver='auto'), so a first fit on real data
    "SVC(solver='ws')": "dualsvm.SVC(solver='ws').fit(X, y)",
    "LinearSVC": "dualsvm.LinearSVC().fit(X, y)",
}

#: Prints the seconds of the fit, the import of dualsvm inside the clock or not.
TIMED = """
import time
start = time.perf_counter()
import warnings
warnings.simplefilter("ignore")
import sklearn.datasets as d
X, y = d.load_iris(return_X_y=True)
if not {inside}:
    from dualsvm import LinearSVC, SVC  # the estimators' modules and scikit-learn
    start = time.perf_counter()
import dualsvm
{fit}
print(time.perf_counter() - start)
"""

#: Prints what the code compiled: [compile seconds, dispatcher, signature, parallel].
COMPILED = """
import json, sys, warnings
warnings.simplefilter("ignore")
import dualsvm, sklearn.datasets as d
from numba.core.registry import CPUDispatcher
X, y = d.load_iris(return_X_y=True)
{fit}
rows = []
for name, module in list(sys.modules.items()):
    if not name.startswith("dualsvm"):
        continue
    for attr, f in vars(module).items():
        if isinstance(f, CPUDispatcher) and f.__module__ == name:
            for signature, overload in f.overloads.items():
                seconds = (overload.metadata or {{}}).get("timers", {{}}).get("compiler_lock", 0.0)
                rows.append([seconds, f"{{name}}.{{attr}}", str(signature),
                             bool(f.targetoptions.get("parallel"))])
print(json.dumps(sorted(rows, reverse=True)))
"""


def python_of(venv):
    return str(Path(venv) / "bin" / "python")


def run(python, code):
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def clear_cache(package):
    """Remove Numba's index and data files from the installed package."""
    for path in list(Path(package).rglob("*.nb[ic]")):
        path.unlink()


def seconds_of(command):
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True)
    return time.perf_counter() - start


def measure(venv, repeat):
    """The figures of one installed tree: {case: {first, warm, ...}}, compiled lists."""
    python = python_of(venv)
    package = run(python, "import os, dualsvm; print(os.path.dirname(dualsvm.__file__))")
    clear_cache(package)
    results = {"import compiles": json.loads(run(python, COMPILED.format(fit="")))}
    for name, fit in FIT.items():
        clear_cache(package)
        compiled = json.loads(run(python, COMPILED.format(fit=fit)))
        figures = {}
        for inside in (True, False):
            firsts, warms = [], []
            for _ in range(repeat):
                clear_cache(package)
                firsts.append(float(run(python, TIMED.format(inside=inside, fit=fit))))
                warms.append(float(run(python, TIMED.format(inside=inside, fit=fit))))
            key = "with import" if inside else "without import"
            figures[key] = {"first": firsts, "warm": warms}
        results[name] = {"seconds": figures, "compiled": compiled}
    demo = [str(Path(venv) / "bin" / "dualsvm"), "demo"]
    firsts, warms = [], []
    for _ in range(repeat):
        clear_cache(package)
        firsts.append(seconds_of(demo))
        warms.append(seconds_of(demo))
    results["dualsvm demo"] = {"seconds": {"process": {"first": firsts, "warm": warms}}}
    return results


def show(results):
    compiled = results["import compiles"]
    print(f"import dualsvm: {len(compiled)} specialisations compiled")
    for name in (*FIT, "dualsvm demo"):
        print(f"{name} (best of {len(next(iter(results[name]['seconds'].values()))['first'])}):")
        for key, runs in results[name]["seconds"].items():
            print(f"  {key:15s} first {min(runs['first']):6.2f} s (worst {max(runs['first']):.2f}),"
                  f" then {min(runs['warm']):5.2f} s")
        rows = results[name].get("compiled")
        if rows is not None:
            print(f"  {len(rows)} specialisations compiled (compile seconds, nested ones "
                  f"included; sum {sum(row[0] for row in rows):.1f} s):")
            for seconds, function, signature, parallel in rows:
                short = signature if len(signature) < 110 else signature[:107] + "..."
                print(f"  {seconds:7.2f} s  {'parallel ' if parallel else ''}{function} {short}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=str(ROOT), help="the tree to install (default: "
                                                             "this repository)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (best shown)")
    parser.add_argument("--venv", help="the virtual environment to create (default: a "
                                       "temporary directory, removed after)")
    parser.add_argument("--keep", action="store_true", help="keep the virtual environment")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    venv = args.venv or tempfile.mkdtemp(prefix="dualsvm-first-fit-")
    try:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python_of(venv), "-m", "pip", "install", "-q", args.source], check=True)
        results = measure(venv, args.repeat)
        show(results)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    finally:
        if not args.keep:
            shutil.rmtree(venv, ignore_errors=True)


if __name__ == "__main__":
    main()
