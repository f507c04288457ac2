"""What every way of training shares: data checks, costs, class weights, the seed.

The estimators, the command line and out-of-core training all call these, so a
rule (what 'balanced' means, how a seed orders the rows, what a single-class
data set gets as an error) holds in one place. NumPy only, except
:func:`training_data`, the scikit-learn input validation of the estimators.
"""

import numpy as np
import scipy.sparse as sp

from .data import format_label

__all__ = ["balanced_class_weight", "canonical", "check_classes", "check_grid", "class_weights",
           "random_generator", "sample_costs", "sample_weights", "training_data"]


def random_generator(random_state):
    """The NumPy Generator that orders the rows, from an estimator's ``random_state``.

    None, an int or a ``numpy.random.RandomState`` (scikit-learn's convention:
    None draws from NumPy's global state); the same value gives the same
    generator, so the same seed visits rows in the same order in memory and out
    of core.
    """
    high = np.iinfo(np.int32).max
    if random_state is None:
        seed = np.random.randint(high)  # NumPy's global RandomState, as scikit-learn uses
    elif isinstance(random_state, (int, np.integer)):
        seed = np.random.RandomState(random_state).randint(high)
    else:
        seed = random_state.randint(high)
    return np.random.default_rng(seed)


def check_classes(y, source=None):
    """The sorted class labels of y; ValueError when there is only one.

    ``source``: the file the labels come from, named in the message.
    """
    classes = np.unique(y)
    if len(classes) < 2:
        where = f"{source}: " if source else ""
        raise ValueError(f"{where}all {len(y)} samples have the label "
                         f"{format_label(classes[0])}; the data contains only one class, and "
                         "training needs two classes or more (at least 2 classes)")
    return classes


def balanced_class_weight(labels, counts):
    """class_weight='balanced' as a dict label -> n_samples / (n_classes * count)."""
    counts = np.asarray(counts, dtype=np.float64)
    weights = counts.sum() / (len(labels) * counts)
    return dict(zip(np.asarray(labels).tolist(), weights.tolist()))


def class_weights(class_weight, classes, counts):
    """The weight of every class (array aligned with ``classes``).

    ``class_weight``: None (all 1), 'balanced' (:func:`balanced_class_weight` of
    the class ``counts``) or a dict label -> weight (labels not given weigh 1; a
    label that is not a class is an error).
    """
    if class_weight is None:
        return np.ones(len(classes))
    if isinstance(class_weight, str) and class_weight == "balanced":
        class_weight = balanced_class_weight(classes, counts)
    unknown = [label for label in class_weight if not np.isin(label, classes).any()]
    if unknown:
        raise ValueError(f"class_weight names labels that are not classes: {unknown!r}; "
                         f"the classes are {list(classes)!r}")
    return np.array([float(class_weight.get(c, 1.0)) for c in np.asarray(classes).tolist()])


def sample_costs(C, class_weight, y, classes, sample_weight=None):
    """C_i = C * class_weight[y_i] * sample_weight_i for every sample.

    Raises ValueError for sample weights of the wrong shape, negative, NaN or infinite,
    or all zero.
    """
    index = np.searchsorted(classes, y)
    counts = np.bincount(index, minlength=len(classes))
    cost = C * class_weights(class_weight, classes, counts)[index]
    weights = sample_weights(sample_weight, len(y))
    return cost if weights is None else cost * weights


def sample_weights(sample_weight, n_samples):
    """``sample_weight`` checked, as a float64 array of n_samples (None stays None;
    a scalar is broadcast).

    Raises ValueError for sample weights of the wrong shape, negative, NaN or infinite,
    or all zero.
    """
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.shape != (n_samples,):
        raise ValueError(f"sample_weight.shape == {weights.shape}, expected {(n_samples,)}")
    if not np.isfinite(weights).all():
        raise ValueError("sample_weight contains NaN or infinity")
    if (weights < 0).any():
        raise ValueError("Negative values in data passed to `sample_weight`")
    if not weights.any():
        raise ValueError("every sample has zero weight: sample_weight must contain at least "
                         "one non-zero number")
    return weights


def canonical(X):
    """CSR with sorted, unique column indices (pairwise row products need them)."""
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def training_data(estimator, X, y):
    """Validated (X, y) of a classifier's ``fit`` and its classes (at least two).

    X becomes float64, C-ordered or canonical CSR; scikit-learn's ``validate_data``
    records ``n_features_in_`` (and feature names) on the estimator.
    """
    # scikit-learn costs about 1.5 s to import: only the estimators pay it
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import validate_data

    X, y = validate_data(estimator, X, y, accept_sparse="csr", dtype=np.float64, order="C")
    check_classification_targets(y)
    return canonical(X), y, check_classes(y)


def check_grid(values, name="Cs"):
    """A grid of C values as a float64 array: finite, > 0 and strictly increasing
    (a path over C starts each fit from the smaller C before it)."""
    grid = np.asarray(values, dtype=np.float64)
    if grid.ndim != 1 or len(grid) == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of numbers, got {values!r}")
    if not np.isfinite(grid).all() or (grid <= 0).any():
        raise ValueError(f"{name} must hold finite values > 0, got {values!r}")
    if (np.diff(grid) <= 0).any():
        raise ValueError(f"{name} must be strictly increasing (a path starts every fit from "
                         f"the smaller C before it), got {values!r}; sort it")
    return grid
