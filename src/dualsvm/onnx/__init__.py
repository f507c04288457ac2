"""ONNX models of dualsvm's estimators, for ONNX Runtime (C++, C#, Java, JavaScript, mobile).

Needs ``pip install 'dualsvm[onnx]'`` (skl2onnx, onnx, onnxruntime), imported on first use.
:func:`to_onnx` converts a fitted estimator; :func:`register_converters` registers
dualsvm's converters with skl2onnx, after which ``skl2onnx.to_onnx`` converts dualsvm's
estimators, and pipelines holding them (``make_pipeline(StandardScaler(), dualsvm.SVC())``),
as it converts scikit-learn's.

The graph computes in its input's dtype, float32 or float64, with standard ONNX
operators (:mod:`dualsvm.onnx.graphs`): a float64 graph gives dualsvm's decision values
to rounding (1e-15 relative), a float32 one rounds the data, the support vectors and
every sum to float32 (the docs' "Deploying a model" page measures what that costs).
ONNX Runtime takes dense arrays only: a sparse batch is passed as ``X.toarray()``, and
a model trained on sparse data holds its support vectors dense. Refused (ValueError):
kernel='precomputed' and callable kernels, labels that are neither integers nor
strings, and estimators without a converter (a search: convert its
``best_estimator_``; a Dask model: its ``to_local()``).
"""

__all__ = ["register_converters", "to_onnx"]


def register_converters():
    """Register dualsvm's converters with skl2onnx (``skl2onnx.to_onnx`` then converts
    LinearSVC, LinearSVR, LinearOneClassSVM, SVC, NuSVC, SVR, NuSVR, OneClassSVM,
    LowRankSVC and pipelines holding them). :func:`to_onnx` calls it."""
    from .converters import register

    register()


def to_onnx(model, X_sample, *, options=None, target_opset=None, name=None):
    """The ONNX model (``onnx.ModelProto``) of a fitted dualsvm estimator or pipeline.

    Parameters
    ----------
    model : estimator or Pipeline
        Fitted; a dualsvm estimator, or a scikit-learn pipeline holding some.
    X_sample : {array-like, sparse matrix} of shape (n_samples, n_features)
        Rows like those the model will predict; their dtype, float32 or float64, is
        the graph's input type and the precision it computes in.
    options : dict or None, default=None
        skl2onnx's options, by estimator class or ``id(estimator)``. For the
        classifiers: ``zipmap`` (default: True for probabilities in a float32 graph,
        as skl2onnx's; False gives the (n, n_classes) array) and ``raw_scores`` (the
        decision values instead of the probabilities).
    target_opset : int or None, default=None
        skl2onnx's default when None (opset 13 or later is needed).
    name : str or None, default=None
        The graph's name.

    Returns
    -------
    onnx.ModelProto
        Inputs ``X`` (n, n_features); outputs as skl2onnx names them for the
        scikit-learn estimator of the same name (see :mod:`dualsvm.onnx.converters`).

    Raises
    ------
    ValueError
        A model that cannot be converted (see the module's docstring), or X_sample
        not a float32 or float64 matrix.
    """
    import skl2onnx

    from .converters import model_fit, sample_input

    if not hasattr(model, "steps"):  # a pipeline's steps are checked as skl2onnx parses them
        model_fit(model)
    register_converters()
    return skl2onnx.to_onnx(model, sample_input(X_sample), options=options,
                            target_opset=target_opset, name=name)
