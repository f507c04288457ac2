"""``dualsvm grid``: LIBSVM's grid.py, the search for C and gamma of a C-SVC by
cross validation.

The rate of a point (log2 C, log2 gamma) is ``dualsvm train -c C -g GAMMA -v N``'s
accuracy with the same svm-train options (``-t -d -r -m -h -e -wi``, ``--kernel-solver``
and ``--dc-*``): the same folds (:func:`.train_kernel.cross_validation_splitter`, seeded
by ``--seed``), each model trained on N-1 folds and scored on the last. For every gamma
and fold the values of C are one warm-started path
(:func:`dualsvm.estimators.model_selection.fold_path_scores`, as ``SVCCV``'s), the
(gamma, fold) paths run in ``--workers`` threads, each with one Numba thread.

grid.py's interface is kept: its options (``-log2c``, ``-log2g``, ``-v``, ``-out``,
``-png``, ``-resume``; ``-svmtrain`` and ``-gnuplot PATH`` are accepted and ignored with a
note, ``-gnuplot null`` draws no plot), its visiting order (coarse to fine), its lines
``[local] log2c log2g rate (best c=C, g=GAMMA, rate=RATE)`` and out-file lines
``log2c=.. log2g=.. rate=..``, its rule for the best point (a higher rate, or the same
rate at the same gamma with a smaller C) and its last line ``C GAMMA RATE``. A point's
lines come once every fold of its gamma is done, gammas in grid.py's order. The
contour plot is drawn by matplotlib as a PNG, with gnuplot's levels.
"""

import os
import re
import sys
import warnings
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import numba
import numpy as np
from sklearn.base import clone

from ..data.svmlight import read_svmlight
from ..data.validation import check_classes
from ..estimators.model_selection import fold_path_scores
from ..training.divide_conquer import threads_safe
from .options import class_weight
from .output_files import check_writable, write_error
from .parser import PROG, CommandError, UsageError
from .report import Reporter
from .search import right_predictions
from .train_kernel import cross_validation_splitter, kernel_estimator, kernel_params, \
    kernel_solver_params

#: The rate grid.py reads from svm-train -v: its "%g" (6 significant digits).
RATE_FORMAT = "%g"
#: gnuplot's contour levels in grid.py: from round(best rate) - 3, every half point.
CONTOUR_BELOW_BEST, CONTOUR_STEP = 3, 0.5


def refuse_grid(flag, why):
    """The usage error of ``dualsvm grid`` for a flag that does not apply."""
    return UsageError(f"{PROG} grid", f"{flag} {why}")


def log2_values(spec):
    """grid.py's ``range_f``: begin, begin + step, ... up to end (floats summed as
    grid.py sums them); ``[None]`` for ``null`` (no search on that parameter)."""
    if spec is None:
        return [None]
    begin, end, step = spec
    values = []
    while not (step > 0 and begin > end) and not (step < 0 and begin < end):
        values.append(begin)
        begin = begin + step
    return values


def coarse_to_fine(values):
    """grid.py's ``permute_sequence``: the middle value, then the middles of the two
    halves alternately, recursively (the grid is first seen coarse, then refined)."""
    if len(values) <= 1:
        return list(values)
    middle = len(values) // 2
    left, right = coarse_to_fine(values[:middle]), coarse_to_fine(values[middle + 1:])
    order = [values[middle]]
    while left or right:
        if left:
            order.append(left.pop(0))
        if right:
            order.append(right.pop(0))
    return order


def read_out_file(path):
    """{(log2c, log2g): rate} of a grid out file, read as grid.py's -resume reads it (a
    line without ``rate=`` is skipped; a missing ``log2c=`` or ``log2g=`` is None)."""
    done = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            rate = re.findall(r"rate=([0-9.]+)", line)
            if not rate:
                continue
            c = re.findall(r"log2c=([0-9.-]+)", line)
            g = re.findall(r"log2g=([0-9.-]+)", line)
            try:
                key = (float(c[0]) if c else None, float(g[0]) if g else None)
                done[key] = float(rate[0])
            except ValueError:
                raise CommandError(f"{path}: cannot read the point of the line "
                                   f"{line.strip()!r}") from None
    return done


class BestPoint:
    """grid.py's best point, updated point by point: a higher rate, or the same rate
    at the same gamma with a smaller C."""

    def __init__(self):
        self.c, self.g, self.rate = None, None, -1.0

    def update(self, c, g, rate):
        smaller_c = c is not None and self.c is not None and c < self.c
        if rate > self.rate or (rate == self.rate and g == self.g and smaller_c):
            self.c, self.g, self.rate = c, g, rate

    def values(self):
        """(C, gamma) of the best point, without the parameters not searched."""
        return [2.0 ** v for v in (self.c, self.g) if v is not None]

    def line(self):
        """grid.py's last line: ``C GAMMA RATE``."""
        return " ".join(map(str, self.values())) + f" {self.rate}"


def point_line(worker, c, g, rate, best):
    """grid.py's line of a finished point (``worker``: 'local' or 'resumed')."""
    text = f"[{worker}] {' '.join(str(v) for v in (c, g) if v is not None)} {rate} (best "
    if c is not None:
        text += f"c={2.0 ** best.c}, "
    if g is not None:
        text += f"g={2.0 ** best.g}, "
    return text + f"rate={best.rate})"


def out_line(c, g, rate):
    """grid.py's out-file line of a point."""
    text = "".join(f"{name}={v} " for name, v in (("log2c", c), ("log2g", g)) if v is not None)
    return f"{text}rate={rate}\n"


def _paths(args):
    """(out, png, resume) paths, None where not written or read: grid.py's defaults
    are FILE's basename + '.out' / '.png' in the working directory."""
    title = os.path.basename(args.file)
    out = None if args.out == "null" else (args.out or f"{title}.out")
    png = None if "null" in (args.png, args.gnuplot) else (args.png or f"{title}.png")
    resume = None if args.resume is None else (args.resume or f"{title}.out")
    return out, png, resume


def _check_options(args, report):
    """Refuse what a search of C-SVC's C and gamma cannot do; note what is ignored."""
    if args.file is None:
        if not args.resume:
            raise UsageError(f"{PROG} grid", "the following arguments are required: FILE")
        args.file, args.resume = args.resume, ""  # -resume took FILE: no pathname given
    if args.log2c is None and args.log2g is None:
        raise UsageError(f"{PROG} grid", "-log2c and -log2g should not be null simultaneously")
    for flag, dest in (("-c", "grid_C"), ("-g", "gamma")):
        if getattr(args, dest) is not None:
            raise refuse_grid(flag, "is searched by grid: use -log2c and -log2g")
    if args.solver != 0:
        raise refuse_grid(f"-s {args.solver}", "is not searched: dualsvm grid searches C-SVC "
                          "(-s 0); nu-SVC and one-class have no C, and the regressions' "
                          "searches are dualsvm.SVRCV and dualsvm.NuSVRCV in Python")
    if args.nu is not None:
        raise refuse_grid("-n", "(nu) is for -s 1, 2 and 4; dualsvm grid searches C-SVC (-s 0)")
    if args.probability:
        raise refuse_grid("-b 1", "is not searched: grid's rate is that of the plain "
                                  "predictions; train the best C and gamma with -b 1")
    if args.kernel_type and args.kernel_name and args.kernel_type != args.kernel_name:
        raise UsageError(f"{PROG} grid", f"-t and --kernel disagree ({args.kernel_type} and "
                         f"{args.kernel_name})")
    kernel = args.kernel_type or args.kernel_name or "rbf"
    if kernel == "precomputed":
        raise refuse_grid("-t 4", "(a precomputed kernel) is not searched: its folds would "
                                  "need the kernel matrix cut by rows and columns")
    for spec, flag in ((args.log2c, "-log2c"), (args.log2g, "-log2g")):
        if spec is not None and not log2_values(spec):
            raise refuse_grid(flag, "%g,%g,%g is an empty range: STEP must go from BEGIN "
                                    "toward END" % spec)
    if args.svmtrain is not None:
        report.warn(f"-svmtrain {args.svmtrain} is ignored: dualsvm grid trains in-process")
    if args.gnuplot not in (None, "null"):
        report.warn(f"-gnuplot {args.gnuplot} is ignored: the plot (-png) is drawn by matplotlib")
    return kernel


def find_parameters(args, echo=True):
    """grid.py's ``find_parameters``: the out file, the plot and (``echo``) every point's
    line and the best on stdout; returns (exit status, :class:`BestPoint`)."""
    report = Reporter(False)
    kernel = _check_options(args, report)
    out, png, resume = _paths(args)
    if resume is not None and not os.path.isfile(resume):
        raise CommandError(f"{resume}: the file for resumption (-resume) does not exist")
    for path, what in ((out, "out file"), (png, "plot file")):
        if path is not None:
            check_writable(path, what)
    if png is not None and args.png is not None:
        _matplotlib()  # asked for by name: fail before the work
    done = read_out_file(resume) if resume is not None else {}

    X, y = read_svmlight(args.file)
    classes = check_classes(y, args.file)
    weights = class_weight(args, classes, report)
    shrinking = args.shrinking is not False
    try:
        solver = kernel_solver_params(args, shrinking)
    except UsageError as e:  # train's checks of --kernel-solver and --dc-*, named for grid
        raise UsageError(f"{PROG} grid", e.message) from None
    params = kernel_params(args, "c_svc", kernel, shrinking, solver, weights)
    base = kernel_estimator("c_svc", params)
    n_folds = args.folds
    if n_folds > len(y):
        report.warn(f"{n_folds} folds > {len(y)} samples; using {len(y)} folds (leave-one-out)")
        n_folds = len(y)
    folds = list(cross_validation_splitter("c_svc", n_folds, y, args.seed).split(X, y))

    def show(worker, c, g, rate):
        best.update(c, g, rate)
        if echo:
            print(point_line(worker, c, g, rate, best), flush=True)

    best = BestPoint()
    for (c, g), rate in done.items():  # grid.py: every resumed point first
        show("resumed", c, g, rate)
    c_order = coarse_to_fine(log2_values(args.log2c))
    todo = [(g, [c for c in c_order if (c, g) not in done])
            for g in coarse_to_fine(log2_values(args.log2g))]
    todo = [(g, cs) for g, cs in todo if cs]
    rates = {}
    try:
        out_file = None if out is None else open(out, "a" if resume is not None else "w",
                                                 encoding="utf-8")
    except OSError as e:
        raise write_error(out, "out file", e) from None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for g, cs, right in _gamma_paths(base, X, y, folds, todo, args.workers, report):
                for c in cs:
                    rate = float(RATE_FORMAT % (100.0 * right[c] / len(y)))
                    rates[c, g] = rate
                    show("local", c, g, rate)
                    if out_file is not None:
                        out_file.write(out_line(c, g, rate))
                if out_file is not None:
                    out_file.flush()
    except KeyboardInterrupt:
        where = f"; resume with -resume {out}" if out is not None and rates else ""
        print(f"{PROG}: the grid search was interrupted after {len(rates)} new points{where}",
              file=sys.stderr)
        return 130, best
    finally:
        if out_file is not None:
            out_file.close()
    for message in sorted({str(w.message) for w in caught}):
        report.warn(message)
    if png is not None and args.log2c is not None and args.log2g is not None:
        _plot(png, os.path.basename(args.file), args, {**done, **rates}, best, report)
    if echo:
        print(best.line(), flush=True)
    return 0, best


def run(args):
    return find_parameters(args)[0]


def _gamma_paths(base, X, y, folds, todo, workers, report):
    """Yield (log2g, log2c values, {log2c: right predictions over the folds}) for every
    (log2g, log2c values) of ``todo``, in its order, once all its folds are done.

    A job is a path over C on one fold. The first runs in this thread (it also starts
    Numba's threading layer), the others in ``workers`` threads of one Numba thread
    each, when that layer lets two threads run compiled parallel loops at once."""
    jobs = [(t, k) for t in range(len(todo)) for k in range(len(folds))]
    right = [dict.fromkeys(cs, 0) for _, cs in todo]
    remaining = [len(folds)] * len(todo)
    finished = 0

    def collect(job, counts):
        nonlocal finished
        for c, count in counts.items():
            right[job[0]][c] += count
        remaining[job[0]] -= 1
        while finished < len(todo) and remaining[finished] == 0:
            yield todo[finished][0], todo[finished][1], right[finished]
            finished += 1

    def path(job):
        g, cs = todo[job[0]]
        return _fold_rights(base, g, cs, X, y, folds, job[1])

    if not jobs:
        return
    yield from collect(jobs[0], path(jobs[0]))
    if workers > 1 and not threads_safe():
        report.warn(f"Numba's threading layer ({numba.threading_layer()}) cannot run two "
                    "trainings at once; using one worker")
        workers = 1
    pool = ThreadPoolExecutor(workers, initializer=numba.set_num_threads, initargs=(1,))
    try:
        pending = {pool.submit(path, job): job for job in jobs[1:]}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=pending.get):
                yield from collect(pending.pop(future), future.result())
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _fold_rights(base, g, cs, X, y, folds, k):
    """{log2c: right predictions on fold ``k``} of the path over C = 2^c, c in ``cs``
    (C = 1 for None), at gamma = 2^g (``base``'s gamma for None)."""
    estimator = clone(base) if g is None else clone(base).set_params(gamma=2.0 ** g)
    order = sorted(cs, key=lambda c: 1.0 if c is None else 2.0 ** c)
    Cs = [1.0 if c is None else 2.0 ** c for c in order]
    try:
        scores = fold_path_scores(estimator, X, y, None, *folds[k], Cs, right_predictions)[0]
    except ValueError as e:
        where = "" if g is None else f" at log2g={g}"
        raise CommandError(f"cross validation fold {k + 1}{where}: {e}") from None
    return {c: int(score) for c, score in zip(order, scores)}


def _matplotlib():
    """matplotlib.pyplot on the Agg backend (a file, never a window)."""
    try:
        import matplotlib
    except ImportError:
        raise CommandError("the plot (-png) needs matplotlib: pip install 'dualsvm[plot]', "
                           "or give -png null") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plot(path, title, args, rates, best, report):
    """grid.py's contour plot of the rates over (log2 C, log2 gamma), as a PNG: levels
    every half point from round(best) - 3, the axes over the ranges as given (gnuplot's
    xrange and yrange), the best point in the title. Nothing when the grid has one value
    of C or gamma, or one rate (gnuplot cannot draw those contours either)."""
    cs, gs = sorted(set(log2_values(args.log2c))), sorted(set(log2_values(args.log2g)))
    if len(cs) < 2 or len(gs) < 2:
        return
    grid = np.array([[rates[c, g] for c in cs] for g in gs])
    if np.all(grid == grid.flat[0]):
        report.warn(f"no plot {path}: every point has the rate {grid.flat[0]}")
        return
    try:
        plt = _matplotlib()
    except CommandError as e:
        report.warn(f"no plot {path}: {e}")
        return
    low = round(float(grid.max())) - CONTOUR_BELOW_BEST
    levels = np.arange(low, 100.0 + CONTOUR_STEP / 2, CONTOUR_STEP)
    levels = levels[(levels >= grid.min()) & (levels <= grid.max())]
    figure, ax = plt.subplots(figsize=(6.4, 4.8))
    try:
        if len(levels):
            lines = ax.contour(cs, gs, grid, levels=levels, cmap="viridis", linewidths=1.0)
            ax.clabel(lines, fontsize="x-small", fmt="%g")
        ax.plot([best.c], [best.g], "r+", markersize=10)
        ax.set_xlim(args.log2c[0], args.log2c[1])
        ax.set_ylim(args.log2g[0], args.log2g[1])
        ax.set_xlabel("log2(C)")
        ax.set_ylabel("log2(gamma)")
        ax.set_title(f"{title}\nBest log2(C) = {best.c}  log2(gamma) = {best.g}  "
                     f"accuracy = {best.rate}%\nC = {2.0 ** best.c}  gamma = {2.0 ** best.g}",
                     fontsize="small")
        figure.tight_layout()
        figure.savefig(path, dpi=100)
    except OSError as e:
        raise write_error(path, "plot file", e) from None
    finally:
        plt.close(figure)
