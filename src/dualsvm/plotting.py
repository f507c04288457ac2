"""Pictures of training: convergence curves and a moving decision boundary.

Needs matplotlib (``pip install dualsvm[plot]``), imported only when a function
here is called, so importing :mod:`dualsvm` never pays for it.

* :func:`plot_convergence`: relative duality gap, relative suboptimality
  (P - P*)/P* or the primal objective against seconds or epochs, on a log
  scale, from fitted estimators' ``history_``, lists of records or the per-epoch
  trace ``dualsvm train --trace FILE`` writes (:func:`read_trace`).
* :func:`plot_c_search`: cross-validation accuracy and fit time against C, from
  a fitted :class:`dualsvm.LinearSVCCV` / :class:`dualsvm.SVCCV`, its
  ``cv_results_``, or the file ``dualsvm train -C --trace FILE`` writes
  (:func:`read_c_search`).
* :func:`capture_epochs` trains a copy of a 2-D binary estimator and keeps its
  (coef, intercept) at chosen epochs through the ``callback``;
  :func:`plot_decision_boundary` draws one such model (boundary, margins,
  support vectors), :func:`decision_boundary_grid` a grid of frames and
  :func:`decision_boundary_gif` an animated GIF (matplotlib's PillowWriter).

Support vectors are drawn as the training points with y_i f(x_i) <= 1, on or
inside the margin: the points with a_i > 0 at the optimum, a definition that
also holds for the primal solvers, which have no dual variables.
"""

import json
import math

import numpy as np

Y_KINDS = ("gap", "suboptimality", "primal")
X_KINDS = ("seconds", "epoch")
_Y_LABELS = {"gap": "relative duality gap (P - D) / P",
             "suboptimality": "relative suboptimality (P - P*) / P*",
             "primal": "primal objective P"}


def _matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise ImportError("dualsvm.plotting needs matplotlib: pip install 'dualsvm[plot]'") from None
    return matplotlib


def _new_axes(ax, figsize=(6.0, 4.0)):
    if ax is not None:
        return ax
    _matplotlib()
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize, layout="constrained")[1]


def read_trace(path):
    """Read a ``dualsvm train --trace`` file: {label: [record, ...]} per binary problem.

    The label is ``"class <c>"`` for one-vs-rest problems, else the positive
    class's; non-finite values written as null come back as NaN.
    """
    problems = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                key = record.pop("problem"), record.pop("class")
            except (ValueError, KeyError, AttributeError, TypeError):
                raise ValueError(f"{path}, line {number}: not a dualsvm trace record") from None
            problems.setdefault(key, []).append(
                {k: math.nan if v is None else v for k, v in record.items()})
    if not problems:
        raise ValueError(f"{path}: the trace is empty")
    many = len(problems) > 1
    return {(f"class {c}" if many else f"positive class {c}"): records
            for (_, c), records in sorted(problems.items(), key=lambda item: item[0][0])}


def _histories(sources, labels):
    """[(label, records)] from estimators, record lists or {label: records} dicts."""
    if isinstance(sources, dict) or hasattr(sources, "history_") or (
            isinstance(sources, list) and sources and isinstance(sources[0], dict)
            and "epoch" in sources[0]):
        sources = [sources]
    out = []
    for k, source in enumerate(sources):
        name = None if labels is None else labels[k]
        if hasattr(source, "history_"):
            name = name or type(source).__name__
            for j, records in enumerate(source.history_):
                suffix = f" (problem {j})" if len(source.history_) > 1 else ""
                out.append((name + suffix, records))
        elif isinstance(source, dict):
            out.extend(((f"{name}: {key}" if name else key), records)
                       for key, records in source.items())
        else:
            out.append((name or f"run {k + 1}", list(source)))
    if labels is not None and len(labels) != len(sources):
        raise ValueError(f"{len(labels)} labels for {len(sources)} sources")
    return out


def plot_convergence(sources, *, labels=None, x="seconds", y="gap", optimum=None, ax=None,
                     **line_options):
    """Draw convergence curves on a log scale; return the Axes.

    Parameters
    ----------
    sources : estimator, list of records, dict of them, or a list of these
        Fitted estimators (every binary problem of ``history_`` is a curve), lists
        of per-epoch records (dicts with 'epoch', 'seconds', 'primal', 'gap'), or
        the {label: records} of :func:`read_trace`.
    labels : list of str, optional
        One legend label per source.
    x : {'seconds', 'epoch'}
    y : {'gap', 'suboptimality', 'primal'}
        'gap': the relative duality gap of the records (monitored epochs only:
        fit with ``monitor=True`` to have every epoch); 'suboptimality':
        (P - P*)/P* with ``optimum`` = P*, or the lowest primal value of all the
        curves when None (its own point, 0, is then off the log scale).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    **line_options
        Passed to ``Axes.plot``.

    Returns
    -------
    matplotlib.axes.Axes
        With one Line2D per curve, in order, holding exactly the plotted points
        (epochs where the value is NaN or not positive are left out).
    """
    if x not in X_KINDS:
        raise ValueError(f"x must be one of {X_KINDS}, got {x!r}")
    if y not in Y_KINDS:
        raise ValueError(f"y must be one of {Y_KINDS}, got {y!r}")
    curves = _histories(sources, labels)
    if not curves or not any(curves[k][1] for k in range(len(curves))):
        raise ValueError("nothing to plot: no records")
    if y == "suboptimality" and optimum is None:
        optimum = min(r["primal"] for _, records in curves for r in records
                      if np.isfinite(r["primal"]))
    ax = _new_axes(ax)
    for name, records in curves:
        xs = np.array([r[x] for r in records], dtype=float)
        if y == "suboptimality":
            ys = (np.array([r["primal"] for r in records], dtype=float) - optimum) / abs(optimum)
        else:
            ys = np.array([r[y] for r in records], dtype=float)
        keep = np.isfinite(xs) & np.isfinite(ys) & (ys > 0)
        ax.plot(xs[keep], ys[keep], label=name, **{"marker": ".", **line_options})
    ax.set_yscale("log")
    if x == "seconds":
        ax.set_xscale("log")
    ax.set_xlabel("seconds" if x == "seconds" else "epochs")
    ax.set_ylabel(_Y_LABELS[y])
    ax.grid(True, which="major", alpha=0.3)
    if len(curves) > 1 or labels is not None:
        ax.legend(fontsize="small")
    return ax


# ------------------------------------------------------------ the search for C

#: What a search measures, by the key of its trace records or read_c_search's dict:
#: (axis label, whether higher is better, unit of the title).
SEARCH_MEASURES = {"accuracy": ("cross-validation accuracy (%)", True, "%"),
                   "mean_squared_error": ("cross-validation mean squared error", False, ""),
                   "score": ("mean cross-validation score", True, "")}


def read_c_search(path):
    """Read a ``dualsvm train -C --trace`` file: {'C', measure, 'fit_seconds'} arrays,
    the measure being 'accuracy' (in %, classification) or 'mean_squared_error'
    (regression), pooled over the folds; fit seconds summed over the folds."""
    rows, measure = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if record.get("search") != "C":
                    raise KeyError("search")
                key = measure or next(k for k in ("accuracy", "mean_squared_error")
                                      if k in record)
                rows.append((float(record["C"]), float(record[key]),
                             float(record["fit_seconds"])))
                measure = key
            except (ValueError, KeyError, AttributeError, TypeError, StopIteration):
                raise ValueError(f"{path}, line {number}: not a record of 'dualsvm train -C "
                                 "--trace'") from None
    if not rows:
        raise ValueError(f"{path}: the search trace is empty")
    C, values, seconds = (np.array(column) for column in zip(*rows))
    return {"C": C, measure: values, "fit_seconds": seconds}


def is_c_search(path):
    """Whether ``path`` is a ``dualsvm train -C --trace`` file (its first record says so)."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                try:
                    return json.loads(line).get("search") == "C"
                except (ValueError, AttributeError):
                    return False
    return False


def _search_curves(source):
    """(measure, [(label, C, value, fit seconds)]) of a search: one curve per value of
    the parameters other than C (SVCCV's gamma); the measure a key of
    :data:`SEARCH_MEASURES` (a classifier's accuracy, scoring's default, in %)."""
    if isinstance(source, dict) and "fit_seconds" in source:
        measure = next(k for k in ("accuracy", "mean_squared_error") if k in source)
        return measure, [("", np.asarray(source["C"]), np.asarray(source[measure]),
                          np.asarray(source["fit_seconds"]))]
    results = getattr(source, "cv_results_", source)
    if not isinstance(results, dict) or "params" not in results:
        raise TypeError("plot_c_search takes a fitted LinearSVCCV, LinearSVRCV or SVCCV, its "
                        "cv_results_, or read_c_search's dict")
    accuracy = results is source or (getattr(source, "scoring", None) in (None, "accuracy")
                                     and hasattr(source, "classes_"))
    groups = {}
    for k, params in enumerate(results["params"]):
        rest = tuple(sorted((name, repr(v)) for name, v in params.items() if name != "C"))
        groups.setdefault(rest, []).append(k)
    curves = []
    for rest, index in groups.items():
        label = ", ".join(f"{name} = {value}" for name, value in rest)
        C = np.array([results["params"][k]["C"] for k in index], dtype=float)
        score = np.asarray(results["mean_test_score"])[index]
        curves.append((label, C, 100.0 * score if accuracy else score,
                       np.asarray(results["mean_fit_time"])[index]))
    return ("accuracy" if accuracy else "score"), curves


def plot_c_search(source, *, ax=None, title=None):
    """Cross-validation accuracy or score (left axis) and fit time (right axis) against C.

    Parameters
    ----------
    source : LinearSVCCV, LinearSVRCV, SVCCV, dict
        A fitted search (its ``cv_results_``: the mean score, shown in % for a
        classifier's accuracy, and the mean fit time of each C on its warm-started
        path), a ``cv_results_`` dict (scores shown in %), or :func:`read_c_search`'s
        dict (pooled accuracy or mean squared error, fit time summed over the folds).
        One curve per gamma for SVCCV.
    ax : matplotlib Axes, optional
        Where to draw the measure; the fit time goes on ``ax.twinx()``.
    title : str, optional

    Returns
    -------
    (matplotlib.axes.Axes, matplotlib.axes.Axes)
        The measure's axes and the fit-time axes; each curve is one Line2D on
        each, and the best C (highest accuracy or score, lowest error, the smallest
        of equal ones) is marked with a vertical line on the first.
    """
    measure, curves = _search_curves(source)
    axis_label, higher_is_better, unit = SEARCH_MEASURES[measure]
    name = axis_label.split()[-1] if measure != "accuracy" else "accuracy"
    ax = _new_axes(ax)
    times = ax.twinx()
    best = None
    for label, C, values, seconds in curves:
        line, = ax.plot(C, values, marker=".", label=f"{name}{' ' + label if label else ''}")
        times.plot(C, seconds, linestyle="--", color=line.get_color(), alpha=0.7,
                   label=f"fit time{' ' + label if label else ''}")
        k = int(np.argmax(values) if higher_is_better else np.argmin(values))
        if best is None or (values[k] > best[1] if higher_is_better else values[k] < best[1]):
            best = (C[k], values[k])
    ax.axvline(best[0], color="grey", linestyle=":", linewidth=1)
    for axes in (ax, times):
        axes.set_xscale("log", base=2)
    times.set_yscale("log")
    ax.set_xlabel("C")
    ax.set_ylabel(axis_label)
    times.set_ylabel("fit time (s, dashed)")
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(title or f"best C = {best[0]:g}: {best[1]:.4g}{unit}", fontsize="medium")
    if len(curves) > 1:
        ax.legend(fontsize="small")
    return ax, times


# ------------------------------------------------------------ decision boundary


def capture_epochs(estimator, X, y, epochs):
    """Train a copy of a binary 2-D estimator, keeping its model at chosen epochs.

    Parameters
    ----------
    estimator : dualsvm.LinearSVC
        Unfitted settings; a clone is fitted with ``max_iter = max(epochs)`` and
        a ``callback`` that records (coef, intercept) (any callback of its own
        still runs).
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,), two classes
    epochs : iterable of int >= 1

    Returns
    -------
    list of (epoch, coef, intercept)
        One entry per requested epoch that was run, in order; if training
        converged before the last requested epoch, the final model is the last
        entry, with the epoch it was reached at.
    """
    from sklearn.base import clone

    epochs = sorted({int(e) for e in epochs})
    if not epochs or epochs[0] < 1:
        raise ValueError("epochs must be a non-empty list of integers >= 1")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"decision boundaries are drawn for 2-D data; X has shape {X.shape}")
    if len(np.unique(y)) != 2:
        raise ValueError("decision boundaries are drawn for binary problems")
    wanted = set(epochs)
    frames = []
    users = estimator.get_params()["callback"]

    def keep(record):
        if record["epoch"] in wanted:
            frames.append((record["epoch"], record["coef"], record["intercept"]))
        return bool(users(record)) if users is not None else False

    model = clone(estimator).set_params(callback=keep, max_iter=epochs[-1])
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # stopping early is the point
        model.fit(X, y)
    if not frames or frames[-1][0] != model.n_iter_:
        if model.n_iter_ < epochs[-1]:
            frames.append((model.n_iter_, model.coef_[0].copy(), float(model.intercept_[0])))
    return frames


def plot_decision_boundary(X, y, coef, intercept, *, ax=None, title=None, limits=None):
    """Draw 2-D data, the line f(x) = coef'x + b = 0, the margins f = +-1 and the
    support vectors (y_i f(x_i) <= 1, circled); return the Axes.

    ``y``'s larger class is the positive one. ``limits`` = ((x0, x1), (y0, y1))
    fixes the view (frames of an animation share it).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    classes = np.unique(y)
    sign = np.where(y == classes[-1], 1.0, -1.0)
    coef = np.asarray(coef, dtype=np.float64).ravel()
    ax = _new_axes(ax, figsize=(4.0, 4.0))
    if limits is None:
        limits = _limits(X)
    (x0, x1), (y0, y1) = limits
    for value, marker, color in ((-1.0, "o", "tab:blue"), (1.0, "s", "tab:red")):
        points = X[sign == value]
        ax.scatter(points[:, 0], points[:, 1], s=18, marker=marker, color=color,
                   label=f"class {classes[value > 0]}")
    support = sign * (X @ coef + intercept) <= 1.0
    ax.scatter(X[support, 0], X[support, 1], s=80, facecolors="none", edgecolors="k",
               linewidths=1.0, label="support vectors")
    for level, style in ((0.0, "-"), (-1.0, "--"), (1.0, "--")):
        xs, ys = _line(coef, intercept, level, limits)
        ax.plot(xs, ys, style, color="k", linewidth=1.5 if level == 0 else 1.0)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal", adjustable="box")
    if title:
        ax.set_title(title, fontsize="medium")
    return ax


def _limits(X, pad=0.1):
    low, high = X.min(axis=0), X.max(axis=0)
    span = np.maximum(high - low, 1e-12)
    return tuple((float(lo - pad * s), float(hi + pad * s)) for lo, hi, s in zip(low, high, span))


def _line(coef, intercept, level, limits):
    """Points of coef'x + b = level across the view (empty when coef = 0)."""
    (x0, x1), (y0, y1) = limits
    a, b = coef
    if abs(b) >= abs(a) and b != 0.0:
        xs = np.array([x0, x1])
        return xs, (level - intercept - a * xs) / b
    if a != 0.0:
        ys = np.array([y0, y1])
        return (level - intercept - b * ys) / a, ys
    return np.array([]), np.array([])


def decision_boundary_grid(estimator, X, y, epochs, *, ncols=3, frames=None):
    """A figure with one panel per captured epoch (see :func:`capture_epochs`).

    ``frames`` (the output of :func:`capture_epochs`) skips the training.
    Returns the matplotlib Figure.
    """
    _matplotlib()
    import matplotlib.pyplot as plt

    frames = capture_epochs(estimator, X, y, epochs) if frames is None else frames
    nrows = math.ceil(len(frames) / ncols)
    ncols = min(ncols, len(frames))
    figure, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 3.2 * nrows),
                                layout="constrained", squeeze=False)
    limits = _limits(np.asarray(X, dtype=np.float64))
    for ax, (epoch, coef, intercept) in zip(axes.flat, frames):
        plot_decision_boundary(X, y, coef, intercept, ax=ax, title=f"epoch {epoch}",
                               limits=limits)
    for ax in list(axes.flat)[len(frames):]:
        ax.set_visible(False)
    return figure


def decision_boundary_gif(estimator, X, y, epochs, path, *, fps=2, frames=None, dpi=80):
    """Write an animated GIF of the boundary at the captured epochs; return the frames.

    One GIF frame per entry of :func:`capture_epochs` (or ``frames``), drawn with
    matplotlib's PillowWriter.
    """
    _matplotlib()
    import matplotlib.pyplot as plt
    from matplotlib.animation import PillowWriter

    frames = capture_epochs(estimator, X, y, epochs) if frames is None else frames
    limits = _limits(np.asarray(X, dtype=np.float64))
    figure, ax = plt.subplots(figsize=(4.0, 4.0), layout="constrained")
    writer = PillowWriter(fps=fps)
    try:
        with writer.saving(figure, str(path), dpi):
            for epoch, coef, intercept in frames:
                ax.clear()
                plot_decision_boundary(X, y, coef, intercept, ax=ax, title=f"epoch {epoch}",
                                       limits=limits)
                writer.grab_frame()
    finally:
        plt.close(figure)
    return frames
