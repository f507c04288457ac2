"""A second process loads the compiled kernels from Numba's cache instead of compiling."""

import json
import os
import subprocess
import sys

SCRIPT = """
import json, sys
from sklearn.datasets import load_svmlight_file
from dualsvm import LinearSVC
from dualsvm.solvers import _dcd_jit as _dcd_jit
X, y = load_svmlight_file(sys.argv[1])
LinearSVC(tol=1e-2, dual=True).fit(X, y)  # DCD: dual="auto" takes Newton here
LinearSVC(tol=1e-2, intercept_mode="exact").fit(X, y)
stats = {name: {"hits": sum(k.stats.cache_hits.values()), "misses": sum(k.stats.cache_misses.values())}
         for name, k in (("dcd", _dcd_jit.dcd_passes), ("pair", _dcd_jit.pair_epoch))}
print(json.dumps(stats))
"""


def run(path, cache_dir):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(path)], capture_output=True,
                         text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_uses_the_cache(data_dir, tmp_path):
    # a cache of its own: empty at first, and written by no other process meanwhile (a
    # parallel test run compiling other specialisations rewrites the shared index files)
    first = run(data_dir / "heart_scale", tmp_path)
    second = run(data_dir / "heart_scale", tmp_path)
    for kernel in ("dcd", "pair"):
        assert first[kernel] == {"hits": 0, "misses": 1}, first
        assert second[kernel] == {"hits": 1, "misses": 0}, second
