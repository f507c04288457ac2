"""LinearSVCCV's chosen C at another stopping rule (issue 15 (c)): is the best-C
disagreement with GridSearchCV a matter of solving loosely?

Same set-up as part 2 of ``bench_path.py`` (5 folds StratifiedKFold shuffled seed 0,
81 C from 2^-10 to 2^10, squared hinge, bias B = 1, at most 1000 epochs), with
``tol`` given on the command line; prints the chosen C, its CV accuracy and the five
best C. A check of choices, not a timing (seconds printed for information only)::

    flock -s /tmp/dualsvm-cpu.lock python benchmarks/path_cv_tol.py a9a 1e-3
"""

import sys
import time
import warnings

import numpy as np
from sklearn.model_selection import StratifiedKFold

import dualsvm

from bench_linear import load


def main(name, tol):
    warnings.simplefilter("ignore")
    X, y = load(name)
    Cs = np.logspace(-10, 10, 81, base=2)
    splits = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    start = time.perf_counter()
    search = dualsvm.LinearSVCCV(Cs=Cs, cv=splits, tol=tol, max_iter=1000, random_state=0,
                                 n_jobs=1).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    best = [(f"{Cs[i]:.3g}", round(100 * float(scores[i]), 3)) for i in np.argsort(-scores)[:5]]
    print(name, tol, f"C={search.C_:.4g} acc={100 * search.best_score_:.3f} "
          f"t={time.perf_counter() - start:.1f}", "top5:", best, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
