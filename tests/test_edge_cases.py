"""Numerical edge cases for every estimator of ``robustness.ESTIMATORS``.

All-zero rows, duplicated rows (also with conflicting labels), one feature, 10**6
features with few non-zeros, C from 1e-8 to 1e8, labels that are strings, 0/1 or
floats, float32 and non-contiguous input, heavy imbalance, sample weights with zeros:
each fit gives a model whose coefficients, certificate and decisions are finite and
whose predictions are among the classes, or a ValueError with a message; never NaN.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from robustness import ESTIMATORS, count

SECTION = "edge case"


def _base(n=60, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def _case(name):
    """(X, y, fit parameters, fit keyword arguments) of an edge case."""
    X, y = _base()
    if name == "all-zero rows":
        X[::6] = 0.0
    elif name == "duplicated rows":
        X, y = np.vstack([X, X]), np.concatenate([y, y])
    elif name == "duplicated rows, conflicting labels":
        X, y = np.vstack([X, X]), np.concatenate([y, -y])
    elif name == "one feature":
        X = X[:, :1]
    elif name == "10**6 features, 3 non-zeros a row":
        rng = np.random.default_rng(1)
        columns = rng.integers(0, 10**6, size=(len(y), 3))
        columns[:, 0] = np.where(y > 0, 7, 11)
        X = sp.csr_matrix((rng.uniform(0.5, 1.5, columns.size), columns.ravel(),
                           np.arange(0, columns.size + 1, 3)), shape=(len(y), 10**6))
        X.sort_indices()
    elif name == "labels strings":
        y = np.where(y > 0, "spam", "ham")
    elif name == "labels 0/1":
        y = (y > 0).astype(int)
    elif name == "labels floats":
        y = np.where(y > 0, 2.5, -0.125)
    elif name == "float32":
        X = X.astype(np.float32)
    elif name == "non-contiguous":
        X = np.asfortranarray(np.repeat(X, 2, axis=1))[:, ::2]
    elif name == "imbalance 58:2":
        y = -np.ones(len(y), dtype=int)
        y[[3, 40]] = 1
    elif name == "sample weights with zeros":
        weights = np.ones(len(y))
        weights[::2] = 0.0
        return X, y, {}, {"sample_weight": weights}
    elif name in ("C=1e-8", "C=1e8"):
        return X, y, {"C": float(name[2:])}, {}
    return X, y, {}, {}


CASES = ["all-zero rows", "duplicated rows", "duplicated rows, conflicting labels",
         "one feature", "10**6 features, 3 non-zeros a row", "C=1e-8", "C=1e8",
         "labels strings", "labels 0/1", "labels floats", "float32", "non-contiguous",
         "imbalance 58:2", "sample weights with zeros"]


@pytest.mark.filterwarnings("ignore:Training stopped before convergence")
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("estimator", [name for name, _ in ESTIMATORS])
def test_edge_case_gives_a_finite_model_or_a_clear_error(estimator, case):
    X, y, params, fit_options = _case(case)
    factory = dict(ESTIMATORS)[estimator]
    model = factory(**{"C": 1.0, "max_iter": 50, "random_state": 0, **params})
    try:
        model.fit(X, y, **fit_options)
    except ValueError as e:
        assert str(e).strip(), "an error without a message"
        count(SECTION, estimator, "clear error")
        return
    decisions = model.decision_function(X)
    assert np.isfinite(decisions).all(), "NaN or infinite decisions"
    for name in ("coef_", "intercept_", "dual_coef_", "primal_", "dual_", "gap_"):
        value = getattr(model, name, None)
        if value is not None:
            value = value.toarray() if sp.issparse(value) else np.asarray(value, dtype=float)
            assert np.isfinite(value).all(), f"{name} is not finite: {value}"
    assert np.isin(model.predict(X), np.unique(y)).all()
    np.testing.assert_array_equal(model.classes_, np.unique(y))
    count(SECTION, estimator, "finite model")
