"""``dualsvm predict``: labels of an svmlight file with a dualsvm or LIBLINEAR model
(values, for a regression model, with the error lines LIBSVM and LIBLINEAR print)."""

import numpy as np

from ..data import format_label, read_svmlight
from ..files import atomic_write
from ..models import load_any_model
from .outputs import check_writable, write_error
from .train_svr import regression_scores


def run(args):
    check_writable(args.output, "output file")
    estimator = load_any_model(args.model)
    # a precomputed kernel: column 0 of LIBSVM's format holds the row ids
    precomputed = getattr(estimator, "kernel", None) == "precomputed"
    X, y = read_svmlight(args.test, n_features=estimator.n_features_in_, precomputed=precomputed)
    predicted = estimator.predict(X)
    if not hasattr(estimator, "classes_"):  # regression and one-class: no classes
        return _write_values(args, predicted, y)
    classes = estimator.classes_
    names = np.array([format_label(c) for c in classes], dtype=object)
    index = np.searchsorted(classes, predicted)
    lines = names[index]
    text = "\n".join(lines) + "\n"
    try:
        atomic_write(args.output, lambda f: f.write(text.encode("utf-8")))
    except OSError as e:
        raise write_error(args.output, "output file", e) from None
    if classes.dtype.kind in "biuf":
        correct = int(np.count_nonzero(predicted == y))
    else:
        truth = np.array([format_label(t) for t in y], dtype=object)
        correct = int(np.count_nonzero(lines == truth))
    total = len(y)
    if not args.quiet:
        print("Accuracy = %g%% (%d/%d)" % (float(correct) / total * 100, correct, total))
    return 0


def _write_values(args, predicted, y):
    """Regression values (%.17g) or one-class labels (+1 / -1), and the summary LIBSVM and
    LIBLINEAR print: mean squared error and squared correlation, or accuracy."""
    regression = predicted.dtype.kind == "f"
    lines = [f"{v:.17g}" if regression else format_label(v) for v in predicted]
    try:
        atomic_write(args.output, lambda f: f.write(("\n".join(lines) + "\n").encode("utf-8")))
    except OSError as e:
        raise write_error(args.output, "output file", e) from None
    if args.quiet:
        return 0
    if regression:
        mse, scc = regression_scores(predicted, y)
        print("Mean squared error = %g (regression)" % mse)
        print("Squared correlation coefficient = %g (regression)" % scc)
    else:
        total = len(y)
        correct = int(np.count_nonzero(predicted == y))
        print("Accuracy = %g%% (%d/%d)" % (float(correct) / total * 100, correct, total))
    return 0
