"""What the command line writes: messages, output files, and one reporter for every
kind of training (the 'optimization finished' lines, ``--trace`` and ``--json``)."""

import json
import sys

import numpy as np

from ..constants import FINISHED, STATUSES
from ..data.svmlight import format_label
from ..persistence.container import json_float
from ..problems.objectives import relative_gap
from ..training.fitted import KernelFit, LinearOneClassFit, LinearSVRFit, class_pairs
from .output_files import check_writable, write_error
from .parser import PROG


def label_json(label):
    """A class label as a JSON value: the number LIBLINEAR prints, or the string."""
    if isinstance(label, str):
        return label
    text = format_label(label)
    try:
        return int(text)
    except ValueError:
        return float(label)


def overall_status(statuses):
    """The worst of the binary problems' statuses (see :data:`dualsvm.constants.STATUSES`)."""
    return max(statuses, key=STATUSES.index)


class Reporter:
    """Messages of one command, and the reports of a training run.

    Messages go to stdout like LIBLINEAR's, or to stderr when stdout carries the
    ``--json`` summary; ``quiet`` silences messages and warnings, never errors.
    """

    def __init__(self, quiet, json_summary=False, trace=None):
        self.quiet = quiet
        self.json_summary = json_summary
        self.trace = trace
        self.stream = sys.stderr if json_summary else sys.stdout

    def __call__(self, text):
        if not self.quiet:
            print(text, file=self.stream)

    def warn(self, text):
        if not self.quiet:
            print(f"{PROG}: warning: {' '.join(text.split())}", file=sys.stderr)

    def check_outputs(self, model_path):
        """Check the model and trace paths before training."""
        if model_path is not None:
            check_writable(model_path, "model file")
        if self.trace:
            check_writable(self.trace, "trace file")

    def finished(self, fit, advice):
        """The early-stop warning (with ``advice``), then one line per binary problem."""
        interrupted = "interrupted" in fit.status_
        if fit.early_stop() and not interrupted:
            self.warn(f"{fit.early_stop()} {advice}")
        names = problem_names(fit)
        iterations = problem_iterations(fit)
        for k, status in enumerate(fit.status_):
            prefix = "" if len(names) == 1 else (
                f"{names[k]}: " if isinstance(fit, KernelFit) else f"class {names[k]}: ")
            # one problem over several intercepts (Crammer-Singer): no single b to show
            local = fit.cluster_models_[k] if getattr(fit, "cluster_models_", None) else None
            if local is not None:  # early prediction: each cluster's model has its own b
                offset = (f", early prediction by {local.clusters.n_clusters} cluster models "
                          f"(level {local.level})")
            elif isinstance(fit, LinearOneClassFit):
                offset = f", rho = {fit.offset_[k]:.10g}"
            elif len(fit.intercept_) == len(fit.status_):
                offset = f", b = {fit.intercept_[k]:.10g}"
            else:
                offset = ""
            self(f"{prefix}optimization finished, #iter = {iterations[k]}, "
                 f"primal = {fit.primal_[k]:.10g}, dual = {fit.dual_[k]:.10g}, "
                 f"gap = {fit.gap_[k]:.3e}{offset}"
                 + ("" if status in FINISHED else f" (stopped: {status})"))

    def save(self, fit, model_path, save):
        """``save(fit, model_path)`` (also after Ctrl-C, saying so), then the trace."""
        if "interrupted" in fit.status_:
            print(f"{PROG}: training was interrupted; saving the current model to {model_path} "
                  f"(relative duality gap {max(fit.gap_):.3g})", file=sys.stderr)
        try:
            save(fit, model_path)
        except OSError as e:
            raise write_error(model_path, "model file", e) from None
        if self.trace:
            self.write_trace(fit)

    def write_trace(self, fit):
        """The per-epoch history as JSON lines, each with its problem and class."""
        names = problem_names(fit)
        try:
            with open(self.trace, "w", encoding="utf-8") as f:
                for k, history in enumerate(fit.history_):
                    for record in history:
                        record = {key: json_float(v) if isinstance(v, float) else v
                                  for key, v in record.items()}
                        f.write(json.dumps({"problem": k, "class": names[k], **record}) + "\n")
        except OSError as e:
            raise write_error(self.trace, "trace file", e) from None

    def summary(self, fields, fit=None):
        """Print the ``--json`` summary: ``fields``, and the certificate of ``fit``."""
        if not self.json_summary:
            return
        if fit is not None:
            fields = {**fields, **certificate(fit)}
        print(json.dumps({"command": "train", **fields}))

    def cross_validation_accuracy(self, fields, predicted, y):
        """-v's accuracy (percent) of the cross-validated ``predicted`` labels, as
        LIBLINEAR and LIBSVM print it, or in the ``--json`` summary with ``fields``."""
        accuracy = 100.0 * float(np.mean(predicted == y))
        if self.json_summary:
            self.summary({**fields, "cross_validation_accuracy": accuracy})
        else:
            print("Cross Validation Accuracy = %g%%" % accuracy)

    def cross_validation_regression(self, fields, mse, scc):
        """-v's mean squared error and squared correlation coefficient of a regression,
        as LIBLINEAR and LIBSVM print them, or in the ``--json`` summary with ``fields``."""
        if self.json_summary:
            self.summary({**fields, "cross_validation_mean_squared_error": mse,
                          "cross_validation_squared_correlation": scc})
        else:
            print("Cross Validation Mean squared error = %g" % mse)
            print("Cross Validation Squared correlation coefficient = %g" % scc)


def problem_names(fit):
    """How reports name each binary problem: its class (one-vs-rest), or 'a vs b'
    (None for the one problem of a linear regression, a linear one-class SVM or
    Crammer and Singer's multi-class SVM; the kind of a kernel model's one problem:
    one-class, regression)."""
    if (isinstance(fit, (LinearSVRFit, LinearOneClassFit))
            or fit.params.get("multi_class") == "crammer_singer"):
        return [None]  # one problem: a regression, one-class, or Crammer and Singer's
    if isinstance(fit, KernelFit) and not fit.classifies:
        return [fit.kind]
    if isinstance(fit, KernelFit):
        return [f"{label_json(fit.classes_[i])} vs {label_json(fit.classes_[j])}"
                for i, j in class_pairs(len(fit.classes_))]
    targets = fit.classes_[1:] if len(fit.classes_) == 2 else fit.classes_
    return [label_json(c) for c in targets]


def problem_iterations(fit):
    """The iterations of each binary problem (kernel solvers count their own steps)."""
    if isinstance(fit, KernelFit):
        return [int(n) for n in fit.n_iter_]
    if len(fit.status_) == 1:
        return [int(fit.n_iter_)]
    return [len(history) for history in fit.history_]


def certificate(fit):
    """The summary's training outcome: status, iterations, objectives, per problem too."""
    primal, dual = float(sum(fit.primal_)), float(sum(fit.dual_))
    iterations = problem_iterations(fit)
    classes = {} if isinstance(fit, (LinearSVRFit, LinearOneClassFit)) else {
        "classes": [label_json(c) for c in fit.classes_]}
    return {
        **classes,
        "status": overall_status(fit.status_),
        "iterations": sum(iterations),
        "primal": json_float(primal),
        "dual": json_float(dual),
        "gap": json_float(relative_gap(primal, dual)),
        "problems": [
            {"class": name, "status": fit.status_[k], "iterations": iterations[k],
             "primal": json_float(fit.primal_[k]), "dual": json_float(fit.dual_[k]),
             "gap": json_float(fit.gap_[k])}
            for k, name in enumerate(problem_names(fit))
        ],
    }
