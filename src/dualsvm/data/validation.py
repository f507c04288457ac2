"""What every way of training shares: data checks, costs, class weights, the seed.

The estimators, the command line and out-of-core training all call these, so a
rule (what 'balanced' means, how a seed orders the rows, what a single-class
data set gets as an error) holds in one place. NumPy only, except
:func:`training_data` and :func:`regression_data`, the scikit-learn input validation
of the estimators.
"""

import functools

import numpy as np
import scipy.sparse as sp

from .svmlight import format_label

__all__ = ["ALL_WEIGHTS_ZERO", "balanced_class_weight", "canonical", "check_classes", "check_grid",
           "class_weights", "random_generator", "regression_data", "sample_costs",
           "sample_weights", "samples", "scaled_costs", "training_data"]


def random_generator(random_state):
    """The NumPy Generator that orders the rows, from an estimator's ``random_state``.

    None, an int or a ``numpy.random.RandomState`` (scikit-learn's convention:
    None draws from NumPy's global state); the same value gives the same
    generator, so the same seed visits rows in the same order in memory and out
    of core.
    """
    if random_state is None:
        seed = np.random.randint(_SEED_HIGH)  # NumPy's global RandomState, as scikit-learn uses
    elif isinstance(random_state, (int, np.integer)):
        seed = _seed_of(int(random_state))
    else:
        seed = random_state.randint(_SEED_HIGH)
    return np.random.default_rng(seed)


_SEED_HIGH = np.iinfo(np.int32).max


@functools.lru_cache(maxsize=256)
def _seed_of(random_state):
    """The generator's seed of an int ``random_state``, remembered: seeding a
    RandomState costs a tenth of a small fit, and a grid search repeats the seed."""
    return np.random.RandomState(random_state).randint(_SEED_HIGH)


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

    Rows of C_i = 0 are left out of training. Raises ValueError for sample weights
    of the wrong shape, NaN or infinite (see :func:`sample_weights`), and when no row
    is left (all weights zero or negative, sample_weight or class_weight).
    """
    index = np.searchsorted(classes, y)
    counts = np.bincount(index, minlength=len(classes))
    weights = sample_weights(sample_weight, len(y))
    cost = class_weights(class_weight, classes, counts)[index]
    if weights is not None:
        cost = cost * weights
    if not (cost > 0).any():
        raise ValueError(f"{ALL_WEIGHTS_ZERO} (sample_weight times class_weight): at least one "
                         "sample must weigh more than 0")
    return scaled_costs(cost, C)


def scaled_costs(unit_cost, C):
    """C times the costs at C = 1, the rows of cost 0 kept at 0 when C is infinite
    (the hard margin; inf * 0 would be NaN)."""
    unit_cost = np.asarray(unit_cost, dtype=np.float64)
    return np.multiply(C, unit_cost, out=np.zeros(unit_cost.shape), where=unit_cost > 0)


#: The start of the error for a data set whose every sample weighs 0 (scikit-learn's words).
ALL_WEIGHTS_ZERO = "Invalid input - all samples have zero or negative weights"


def sample_weights(sample_weight, n_samples):
    """``sample_weight`` checked, as a float64 array of n_samples (None stays None;
    a scalar is broadcast); negative weights become 0.

    A negative weight leaves its sample out, as a weight 0 does: scikit-learn's SVMs
    do so (its LIBSVM drops the rows of weight <= 0), and a negative C_i has no
    meaning in the dual (the box [0, C_i] would be empty).

    Raises ValueError for sample weights of the wrong shape, NaN or infinite, or
    none positive.
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
    weights = np.maximum(weights, 0.0)
    if not weights.any():
        raise ValueError(f"{ALL_WEIGHTS_ZERO} in sample_weight: at least one sample must "
                         "weigh more than 0")
    return weights


def canonical(X):
    """CSR with sorted, unique column indices (pairwise row products need them)."""
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def samples(estimator, X, *, reset=True):
    """Validated X of an estimator without targets (``fit``, ``reset=True``) or of a
    prediction (``reset=False``): float64, C-ordered or canonical CSR, with
    scikit-learn's ``validate_data`` bookkeeping (``n_features_in_``, feature names)
    and its errors.

    X that ``validate_data`` would return as it is (a finite, non-empty float64
    C-ordered ndarray or canonical CSR matrix, no feature names) skips it: its
    checks cost more than LIBLINEAR's whole training of a small set (measurements:
    benchmarks/results/design_measurements.md, section data/validation.py). Anything
    else, and a prediction on a model fitted with feature names or of another width,
    goes through it, so every error is its own.
    """
    if _as_validated(X) and (reset or (not hasattr(estimator, "feature_names_in_")
                                       and getattr(estimator, "n_features_in_", None)
                                       == X.shape[1])):
        if reset:  # what validate_data records for data without feature names
            if hasattr(estimator, "feature_names_in_"):
                del estimator.feature_names_in_
            estimator.n_features_in_ = X.shape[1]
        return X
    from sklearn.utils.validation import validate_data

    return canonical(validate_data(estimator, X, accept_sparse="csr", dtype=np.float64,
                                   order="C", reset=reset))


def _as_validated(X):
    """Whether scikit-learn's validation would return X unchanged (see :func:`samples`)."""
    if type(X) is np.ndarray:
        data = X
        ready = X.ndim == 2 and X.flags.c_contiguous
    elif type(X) in (sp.csr_matrix, sp.csr_array):
        data = X.data
        ready = X.has_canonical_format
    else:
        return False
    return (ready and X.dtype == np.float64 and X.shape[0] > 0 and X.shape[1] > 0
            and bool(np.isfinite(data).all()))


def _as_validated_target(y, n_samples):
    """Whether scikit-learn's validation would return the targets y of n_samples rows
    unchanged: a 1-D numeric ndarray of that length (finite, for floats)."""
    return (type(y) is np.ndarray and y.ndim == 1 and len(y) == n_samples
            and y.dtype.kind in "iuf" and (y.dtype.kind != "f" or bool(np.isfinite(y).all())))


def training_data(estimator, X, y, *, check_X=True):
    """Validated (X, y) of a classifier's ``fit`` and its classes (at least two).

    X becomes float64, C-ordered or canonical CSR; scikit-learn's ``validate_data``
    records ``n_features_in_`` (and feature names) on the estimator.
    ``check_X=False`` (a callable kernel, which may take any samples, e.g. strings,
    as scikit-learn's SVC lets it): X is left as given, only its length checked.
    """
    # scikit-learn is slow to import: only the estimators pay for it
    from sklearn.utils.multiclass import check_classification_targets

    X, y = _checked(estimator, X, y, check_X)
    if not _class_labels(y):
        check_classification_targets(y)
    return X, y, check_classes(y)


def _class_labels(y):
    """Whether y is a 1-D ndarray of integer, boolean or integral finite float labels:
    those scikit-learn's ``check_classification_targets`` accepts (binary or
    multiclass), told without its ``type_of_target`` (a large share of a small fit's
    fixed cost; measurements: benchmarks/results/design_measurements.md, section
    data/validation.py)."""
    if type(y) is not np.ndarray or y.ndim != 1:
        return False
    if y.dtype.kind in "iub":
        return True
    return y.dtype.kind == "f" and bool(np.isfinite(y).all()) and bool((y == np.round(y)).all())


def regression_data(estimator, X, y, *, check_X=True):
    """Validated (X, y) of a regressor's ``fit``: X as :func:`training_data` makes
    it, y float64."""
    X, y = _checked(estimator, X, y, check_X, y_numeric=True)
    return X, np.ascontiguousarray(y, dtype=np.float64)


def _checked(estimator, X, y, check_X, **check):
    from sklearn.utils.validation import check_consistent_length, column_or_1d, validate_data

    if check_X and _as_validated(X) and _as_validated_target(y, X.shape[0]):
        # what validate_data would return unchanged (see samples): its checks are
        # skipped, a noticeable share of a small fit (measurements:
        # benchmarks/results/design_measurements.md, section data/validation.py)
        return samples(estimator, X), y
    if check_X:
        X, y = validate_data(estimator, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             **check)
        return canonical(X), y
    check_consistent_length(X, y)
    y = column_or_1d(y, warn=True)
    if check.get("y_numeric"):
        y = np.asarray(y, dtype=np.float64)
        if not np.isfinite(y).all():
            raise ValueError("y contains NaN or infinity")
    return X, y


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
