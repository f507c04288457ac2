"""The first fit in a fresh install: seconds, and what Numba compiles for it.

Installs the repository (``pip install .``, not editable) into a new virtual
environment, so no compiled code is cached, then times in new processes, each twice
(the first run compiles and writes the cache, the second loads it)::

    import dualsvm, sklearn.datasets as d; X, y = d.load_iris(return_X_y=True)
    t = time.time(); dualsvm.SVC().fit(X, y)          # and LinearSVC().fit, dualsvm demo

with the import of dualsvm outside and inside the clock, and lists, for the first fit
of each estimator, every compiled specialisation (function, signature, compile
seconds, parallel or not). Run under the exclusive CPU lock::

    flock -x /tmp/dualsvm-cpu.lock python benchmarks/first_fit.py [--venv DIR] [--keep]
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
    "LinearSVC": "dualsvm.LinearSVC().fit(X, y)",
}

#: Prints the seconds of the fit (import outside the clock unless IMPORT_INSIDE).
TIMED = """
import sys, time, warnings
warnings.simplefilter("ignore")
t = time.time()
import dualsvm, sklearn.datasets as d
if not {inside}:
    t = time.time()
X, y = d.load_iris(return_X_y=True)
{fit}
print(time.time() - t)
"""

#: Prints what the fit compiled: [compile seconds, dispatcher, signature, parallel].
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


def run(python, code, env=None):
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})})
    return done.stdout.strip().splitlines()[-1]


def fresh_venv(directory):
    subprocess.run([sys.executable, "-m", "venv", directory], check=True)
    subprocess.run([python_of(directory), "-m", "pip", "install", "-q", str(ROOT)], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", help="the virtual environment to create (default: a "
                                       "temporary directory, removed after)")
    parser.add_argument("--keep", action="store_true", help="keep the virtual environment")
    args = parser.parse_args()
    venv = args.venv or tempfile.mkdtemp(prefix="dualsvm-first-fit-")
    try:
        fresh_venv(venv)
        python = python_of(venv)
        for name, fit in FIT.items():
            cache = Path(tempfile.mkdtemp(prefix="numba-cache-"))
            env = {"NUMBA_CACHE_DIR": str(cache)}  # emptied before each first run
            try:
                compiled = json.loads(run(python, COMPILED.format(fit=fit), env))
                seconds = {}
                for inside in (True, False):
                    shutil.rmtree(cache)
                    cache.mkdir()
                    for attempt in ("first", "second"):
                        seconds[(inside, attempt)] = float(
                            run(python, TIMED.format(inside=inside, fit=fit), env))
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            print(f"{name}().fit(iris): first {seconds[(True, 'first')]:.2f} s "
                  f"({seconds[(False, 'first')]:.2f} s without the import), then "
                  f"{seconds[(True, 'second')]:.2f} s ({seconds[(False, 'second')]:.2f} s)")
            total = sum(row[0] for row in compiled)
            print(f"  {len(compiled)} specialisations compiled (nested times included, "
                  f"sum {total:.1f} s):")
            for seconds_, function, signature, parallel in compiled:
                short = signature if len(signature) < 100 else signature[:97] + "..."
                print(f"  {seconds_:7.2f} s  {'parallel ' if parallel else ''}{function} "
                      f"{short}")
        start = time.perf_counter()
        subprocess.run([str(Path(venv) / "bin" / "dualsvm"), "demo"], capture_output=True,
                       check=True)
        first = time.perf_counter() - start
        start = time.perf_counter()
        subprocess.run([str(Path(venv) / "bin" / "dualsvm"), "demo"], capture_output=True,
                       check=True)
        print(f"dualsvm demo: first {first:.2f} s, then {time.perf_counter() - start:.2f} s "
              "(cache in the installed package's __pycache__)")
    finally:
        if not args.keep:
            shutil.rmtree(venv, ignore_errors=True)


if __name__ == "__main__":
    main()
