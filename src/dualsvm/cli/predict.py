"""``dualsvm predict``: labels of an svmlight file with a dualsvm or LIBLINEAR model
(values, for a regression model, with the error lines LIBSVM and LIBLINEAR print;
with ``-b 1``, LIBSVM's svm-predict -b 1 output: class probabilities, or the Laplace
model of a regression's error)."""

import numpy as np

from ..data import format_label, read_svmlight
from ..files import atomic_write
from ..models import load_any_model
from .outputs import check_writable, write_error
from .parser import CommandError
from .train_kernel import LAPLACE_LINE
from .train_svr import regression_scores


def run(args):
    check_writable(args.output, "output file")
    estimator = load_any_model(args.model)
    # a precomputed kernel: column 0 of LIBSVM's format holds the row ids
    precomputed = getattr(estimator, "kernel", None) == "precomputed"
    X, y = read_svmlight(args.test, n_features=estimator.n_features_in_, precomputed=precomputed)
    if args.probability:
        return _write_probabilities(args, estimator, X, y)
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


def _write_probabilities(args, estimator, X, y):
    """svm-predict -b 1: a ``labels`` line, then the most probable label and the
    probability of every class per row (C-SVC, nu-SVC); for a regression model the
    values as without -b, after LIBSVM's line on the Laplace model of the error."""
    fit = estimator.to_fit() if hasattr(estimator, "to_fit") else None
    probabilities = getattr(fit, "probA_", None) is not None
    if not probabilities:
        raise CommandError(f"{args.model}: the model has no probability estimates; -b 1 "
                           "needs a kernel model trained with -b 1 (-s 0, 1, 3 or 4)")
    if not fit.classifies:
        if not args.quiet:
            print(LAPLACE_LINE % fit.probA_[0])
        return _write_values(args, estimator.predict(X), y)
    classes = fit.classes_
    proba = fit.predict_proba(X)
    predicted = classes[np.argmax(proba, axis=1)]  # LIBSVM's svm_predict_probability
    order = np.arange(len(classes))
    if len(classes) == 2 and classes[0] == -1 and classes[1] == 1:
        order = order[::-1]  # LIBSVM keeps +1 first for -1/+1 labels (its group_classes)
    names = [format_label(c) for c in classes]
    lines = ["labels " + " ".join(names[j] for j in order)]
    lines += [" ".join([format_label(label)] + ["%g" % p for p in row[order]])
              for label, row in zip(predicted, proba)]
    try:
        atomic_write(args.output, lambda f: f.write(("\n".join(lines) + "\n").encode("utf-8")))
    except OSError as e:
        raise write_error(args.output, "output file", e) from None
    if not args.quiet:
        correct = int(np.count_nonzero(predicted == y))
        print("Accuracy = %g%% (%d/%d)" % (100.0 * correct / len(y), correct, len(y)))
    return 0
