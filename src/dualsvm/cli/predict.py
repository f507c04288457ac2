"""``dualsvm predict``: labels of an svmlight file with a dualsvm or LIBLINEAR model
(values, for a regression model, with the error lines LIBSVM and LIBLINEAR print;
with ``-b 1``, LIBSVM's svm-predict -b 1 output: class probabilities, or the Laplace
model of a regression's error)."""

import numpy as np

from ..data.atomic_files import atomic_write
from ..data.svmlight import format_label, read_svmlight
from ..estimators.base import KernelMixin
from ..estimators.model_io import load_any_model
from .output_files import check_writable, write_error
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
    if isinstance(estimator, KernelMixin) and estimator.to_fit().classifies:
        # svm-predict's votes: a tie goes to the first class in LIBSVM's order
        fit = estimator.to_fit()
        predicted = fit.predict(X, fit.libsvm_order())
    else:
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
    """svm-predict -b 1: a header line, then the predicted label and the probability of
    every class per row: ``labels`` and the classes in the order of LIBSVM's model
    (C-SVC, nu-SVC), or ``label normal outlier`` and P(+1), P(-1) (one-class); for a
    regression model the values as without -b, after LIBSVM's line on the Laplace model
    of the error."""
    fit = estimator.to_fit() if isinstance(estimator, KernelMixin) else None
    regression = fit is not None and fit.kind in ("epsilon_svr", "nu_svr")
    if fit is None or not (fit.has_probabilities or (regression and fit.probA_ is not None)):
        raise CommandError(f"{args.model}: the model has no probability estimates; -b 1 "
                           "needs a kernel model trained with -b 1 (-s 0 to 4)")
    if regression:
        if not args.quiet:
            print(LAPLACE_LINE % fit.probA_[0])
        return _write_values(args, estimator.predict(X), y)
    proba = fit.predict_proba(X)
    if fit.kind == "one_class":
        # P(+1) first, then P(-1); the label is the sign of the decision, as LIBSVM's
        header, proba, predicted = "label normal outlier", proba[:, ::-1], estimator.predict(X)
    else:
        order = fit.libsvm_order()
        labels, proba = fit.classes_[order], proba[:, order]
        header = " ".join(["labels"] + [format_label(c) for c in labels])
        # svm_predict_probability: the most probable class, the first in its order on ties
        predicted = labels[np.argmax(proba, axis=1)]
    lines = [header] + [" ".join([format_label(label)] + ["%g" % p for p in row])
                        for label, row in zip(predicted, proba)]
    try:
        atomic_write(args.output, lambda f: f.write(("\n".join(lines) + "\n").encode("utf-8")))
    except OSError as e:
        raise write_error(args.output, "output file", e) from None
    if not args.quiet:
        correct = int(np.count_nonzero(predicted == y))
        print("Accuracy = %g%% (%d/%d)" % (100.0 * correct / len(y), correct, len(y)))
    return 0
