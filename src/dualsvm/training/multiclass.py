"""One multi-class driver for every in-memory training: one-vs-rest and one-vs-one.

A multi-class problem is split into binary tasks (:func:`one_vs_rest` for linear
models, LIBLINEAR's split; :func:`one_vs_one` for kernel models, LIBSVM's), and
:func:`solve_tasks` trains them in turn through the solvers' driver
(:func:`dualsvm.solvers.run_epochs`). Ctrl-C stops the task running with its
current model; the tasks after it are not trained (no epoch: their certificate
is that of the starting point) and are marked 'interrupted' too, so a caller
sees one consistent status and can still save what it has.
"""

from dataclasses import dataclass, replace

import numpy as np

from ..data.svmlight import format_label
from ..solvers import run_epochs
from .fitted import class_pairs


@dataclass(eq=False)
class BinaryTask:
    """One binary problem of a multi-class split.

    ``rows``: the training rows it uses (None: all of them, in order); ``y``: their
    labels in {-1, +1}; ``positive`` / ``negative``: class indices (``negative``
    None for the rest); ``name``: how traces and reports name it.
    """

    positive: int
    negative: int | None
    rows: np.ndarray | None
    y: np.ndarray
    name: str


@dataclass
class Solved:
    """A trained task: its solver and problem after training, and the driver's Result."""

    task: BinaryTask
    problem: object
    solver: object
    result: object


def one_vs_rest(classes, y):
    """One task per class (a single one, for ``classes[1]``, with two classes)."""
    targets = [1] if len(classes) == 2 else range(len(classes))
    return [BinaryTask(k, None, None, np.where(y == classes[k], 1.0, -1.0),
                       f"class {format_label(classes[k])}") for k in targets]


def one_vs_one(classes, y, keep=None):
    """One task per pair of classes, in LIBSVM's order and with its row order
    (class i's rows, then class j's). ``keep``: rows to use (e.g. cost > 0)."""
    index = np.searchsorted(classes, y)
    members = [np.flatnonzero(index == c if keep is None else (index == c) & keep)
               for c in range(len(classes))]
    tasks = []
    for i, j in class_pairs(len(classes)):
        rows = np.concatenate((members[i], members[j]))
        signs = np.ones(len(rows))
        signs[len(members[i]):] = -1.0
        tasks.append(BinaryTask(i, j, rows, signs,
                                f"{format_label(classes[i])} vs {format_label(classes[j])}"))
    return tasks


def solve_tasks(tasks, build, stopping):
    """Train every task; return a list of :class:`Solved`.

    ``build(task) -> (problem, solver, max_epochs)``; ``stopping``: the
    :class:`dualsvm.solvers.Stopping` shared by all tasks (its deadline too),
    given each task's ``max_iter`` and, with several tasks, a trace label.
    """
    solved = []
    for task in tasks:
        problem, solver, max_epochs = build(task)
        interrupted = bool(solved) and solved[-1].result.status == "interrupted"
        label = f"{task.name}: " if len(tasks) > 1 else ""
        result = run_epochs(solver, problem, replace(
            stopping, max_iter=0 if interrupted else max_epochs, label=label))
        if interrupted:
            result.status = "interrupted"
        solved.append(Solved(task, problem, solver, result))
    return solved
