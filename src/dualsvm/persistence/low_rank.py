"""Low-rank kernel models in the dualsvm model file (``estimator`` = ``"LowRankSVC"``).

Same container and safety as the other models (:mod:`.container`); the metadata has
the linear models' fields plus ``kernel`` (``{"kernel", "gamma", "degree", "coef0"}``,
gamma resolved to a number) and ``n_basis`` (int, B). The entries:

``classes_``
    1-D, sorted and unique; bool, integer, float64 or unicode strings.
``coef_``
    float64 (n_problems, k): the weights on phi (n_problems 1 for two classes, else
    n_classes).
``intercept_``
    float64 (n_problems,).
``normalization_``
    float64 (k, B): phi(x) = K(x, Z) @ normalization_.T.
``components_`` (float64 (B, n_features_in)) or ``components_data``,
``components_indices``, ``components_indptr`` (the CSR arrays; int64 indices)
    the basis rows Z.
``component_indices_`` (optional)
    int64 (B,): their training rows (``basis='uniform'``).
``feature_names_in_`` (optional)
    unicode, shape (n_features_in,).

Every entry's dtype and shape is checked on reading, and that all numbers are finite;
anything else is a :class:`~dualsvm.exceptions.ModelError`.
"""

import numpy as np
import scipy.sparse as sp

from ..exceptions import ModelError, one_line
from ..kernels import make_kernel
from ..training.low_rank import LOW_RANK_KERNELS, LowRankFit
from .container import certificate_to_json, params_to_json, write_container
from .linear import checked_arrays, read_linear

_ENTRIES = {"classes_", "coef_", "intercept_", "normalization_"}
_DENSE = {"components_"}
_CSR = {"components_data", "components_indices", "components_indptr"}
_OPTIONAL = {"component_indices_", "feature_names_in_"}


def save_low_rank(fit, path):
    """Save a :class:`~dualsvm.training.low_rank.LowRankFit` as a dualsvm model file
    (atomically).

    Raises
    ------
    ModelError
        Labels, coefficients or parameters that cannot be stored.
    OSError
        The file cannot be written.
    """
    coef, intercept, classes = checked_arrays(fit)
    meta = {"params": params_to_json(fit.params), "n_classes": int(len(classes)),
            "n_iter": None if fit.n_iter_ is None else int(fit.n_iter_),
            **certificate_to_json(fit)}
    arrays = {"coef_": coef, "intercept_": intercept, "classes_": classes}
    if fit.feature_names_in_ is not None:
        arrays["feature_names_in_"] = np.asarray(fit.feature_names_in_).astype(str)
    Z = fit.components_
    meta.update(kernel=fit.kernel.to_dict(), n_features_in=int(Z.shape[1]),
                n_basis=int(Z.shape[0]))
    normalization = np.asarray(fit.normalization_, dtype=np.float64)
    if not np.isfinite(normalization).all():
        raise ModelError("the model's normalization contains NaN or infinity")
    arrays["normalization_"] = normalization
    if sp.issparse(Z):
        Z = sp.csr_matrix(Z)
        arrays.update(components_data=Z.data, components_indices=Z.indices.astype(np.int64),
                      components_indptr=Z.indptr.astype(np.int64))
    else:
        arrays["components_"] = np.asarray(Z, dtype=np.float64)
    if fit.component_indices_ is not None:
        arrays["component_indices_"] = np.asarray(fit.component_indices_, dtype=np.int64)
    write_container(path, "LowRankSVC", meta, arrays)


def read_low_rank(path, meta, arrays):
    """The :class:`~dualsvm.training.low_rank.LowRankFit` of a low-rank model file's parts,
    all checked."""
    def bad(what):
        return ModelError(f"{path}: invalid model file ({what})")

    names = set(arrays)
    layout = _DENSE if "components_" in names else _CSR
    unknown, missing = names - _ENTRIES - layout - _OPTIONAL, (_ENTRIES | layout) - names
    if unknown or missing:
        raise bad(f"entries missing: {sorted(missing)}, unexpected: {sorted(unknown)}")
    normalization = arrays["normalization_"]
    k, B, d = normalization.shape[0], meta.get("n_basis"), meta.get("n_features_in")
    if not (isinstance(B, int) and B >= 1 and isinstance(d, int) and d >= 1):
        raise bad(f"n_basis={B!r}, n_features_in={d!r}")
    if normalization.dtype != np.float64 or normalization.ndim != 2 or \
            normalization.shape[1] != B or not np.isfinite(normalization).all():
        raise bad(f"normalization_ must be finite float64 of shape (k, {B})")
    # the linear model on phi, checked as a linear model file's (k features)
    linear = read_linear(path, {**meta, "n_features_in": k},
                         {name: arrays[name] for name in ("classes_", "coef_", "intercept_")})
    names_in = arrays.get("feature_names_in_")
    if names_in is not None:
        if names_in.dtype.kind != "U" or names_in.shape != (d,):
            raise bad(f"feature_names_in_ has dtype {names_in.dtype} and shape {names_in.shape}")
        names_in = names_in.astype(object)
    indices = arrays.get("component_indices_")
    if indices is not None and (indices.dtype != np.int64 or indices.shape != (B,)
                                or (indices < 0).any()):
        raise bad(f"component_indices_ has dtype {indices.dtype} and shape {indices.shape}")
    try:
        kernel = make_kernel(**meta.get("kernel", {}))
    except (TypeError, ValueError) as e:
        raise bad(f"kernel: {one_line(e)}") from None
    if kernel.name not in LOW_RANK_KERNELS:
        raise bad(f"kernel {kernel.name!r} (a low-rank model has one of {LOW_RANK_KERNELS})")
    return LowRankFit(params=linear.params, kernel=kernel,
                      components_=_components(arrays, B, d, bad), component_indices_=indices,
                      normalization_=normalization, linear=linear, feature_names_in_=names_in)


def _components(arrays, B, d, bad):
    """The basis rows (dense or CSR), checked."""
    if "components_" in arrays:
        Z = arrays["components_"]
        if Z.dtype != np.float64 or Z.shape != (B, d):
            raise bad(f"components_ has dtype {Z.dtype} and shape {Z.shape}")
    else:
        try:
            Z = sp.csr_matrix((arrays["components_data"], arrays["components_indices"],
                               arrays["components_indptr"]), shape=(B, d))
            Z.check_format(full_check=True)
        except (TypeError, ValueError) as e:
            raise bad(f"components: {one_line(e)}") from None
        if Z.data.dtype != np.float64:
            raise bad("components must be float64")
    if not np.isfinite(Z.data if sp.issparse(Z) else Z).all():
        raise bad("components contain NaN or infinity")
    return Z
