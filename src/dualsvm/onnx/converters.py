"""dualsvm's converters, shape calculators and parser, registered with skl2onnx.

One converter serves every estimator: it reads the model's fit object
(``model.to_fit()``) and builds its graph (:mod:`.graphs`) in the input's dtype. The
outputs are those skl2onnx gives scikit-learn's estimator of the same name:

=====================  =========================================================
LinearSVC, LowRankSVC  label (n,), probabilities: the decision values (n, 1) for
                       two classes, else (n, k)
SVC, NuSVC             label (n,), probabilities: predict_proba (n, k) with
                       probability=True (option ``raw_scores``: the decision values
                       instead), else the decision values: (n, 2) [-f, f] for two
                       classes, (n, k) for 'ovr', (n, k (k - 1) / 2) for 'ovo'
LinearSVR, SVR, NuSVR  variable (n, 1)
OneClassSVM,           label (n, 1) (+1 inliers, -1 outliers, -1 where the decision
LinearOneClassSVM      is 0 as dualsvm predicts), scores (n, 1) the decision values;
                       a OneClassSVM trained with probability=True adds
                       probabilities (n, 2), P(-1) and P(+1)
=====================  =========================================================

A classifier's probabilities go through skl2onnx's ZipMap (a list of dicts) unless the
option ``zipmap`` is False, as scikit-learn's do; ZipMap takes float32 only, so a
float64 graph outputs the array (ValueError when ``zipmap=True`` is asked for there).
"""

import numpy as np
import scipy.sparse as sp
from skl2onnx import get_model_alias, update_registered_converter
from skl2onnx.common.data_types import (DoubleTensorType, FloatTensorType, Int64TensorType,
                                        StringTensorType)

# skl2onnx's ZipMap of a classifier's probabilities: no public equivalent (skl2onnx
# applies it in its own parser, which cannot describe our outputs)
from skl2onnx._parse import _apply_zipmap  # noqa: I001

from ..estimators.linear_one_class import LinearOneClassSVM
from ..estimators.linear_svc import LinearSVC
from ..estimators.linear_svr import LinearSVR
from ..estimators.low_rank import LowRankSVC
from ..estimators.one_class import OneClassSVM
from ..estimators.sklearn_export import exportable_fit
from ..estimators.svc import SVC, NuSVC
from ..estimators.svr import SVR, NuSVR
from ..training.fitted import KernelFit, LinearFit, LinearOneClassFit, LinearSVRFit
from ..training.low_rank import LowRankFit
from . import graphs

#: The estimators with a converter.
ESTIMATORS = (LinearSVC, LinearSVR, LinearOneClassSVM, SVC, NuSVC, SVR, NuSVR, OneClassSVM,
              LowRankSVC)
#: The options of the classifiers' converter ('nocl', labels replaced by their index,
#: is read by skl2onnx's ZipMap; it is not offered).
CLASSIFIER_OPTIONS = {"zipmap": [True, False, "columns"], "raw_scores": [True, False],
                      "nocl": [False]}
_DTYPES = {FloatTensorType: np.float32, DoubleTensorType: np.float64}


def register():
    """Register the converters of :data:`ESTIMATORS` with skl2onnx (again: harmless)."""
    for cls in ESTIMATORS:
        classifier = cls in (LinearSVC, SVC, NuSVC, LowRankSVC)
        update_registered_converter(cls, f"Dualsvm{cls.__name__}", _shapes, _convert,
                                    parser=_parse,
                                    options=CLASSIFIER_OPTIONS if classifier else None)


def model_fit(model):
    """The fit object of a fitted estimator an ONNX graph can hold (ValueError why not)."""
    if not isinstance(model, ESTIMATORS):
        hint = (": convert its best_estimator_" if hasattr(model, "best_estimator_") else
                ": convert model.to_local()" if hasattr(model, "to_local") else "")
        raise ValueError(f"no ONNX converter for {type(model).__name__}{hint}; dualsvm converts "
                         f"{', '.join(cls.__name__ for cls in ESTIMATORS)}")
    if getattr(model, "kernel", None) == "precomputed":
        raise ValueError("an ONNX model cannot hold kernel='precomputed': its input would be "
                         "the kernel against the training samples, which the graph does not "
                         "have; train with kernel='linear', 'poly', 'rbf' or 'sigmoid'")
    fit = exportable_fit(model)
    if isinstance(fit, KernelFit) and fit.classifies:
        graphs.label_values(fit.classes_)  # ValueError for labels ONNX cannot output
        if model.break_ties and model.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
    if isinstance(fit, (LinearFit, LowRankFit)):
        graphs.label_values(fit.classes_)
    return fit


def task(fit):
    """'classifier', 'regressor' or 'outlier': what a fit object's model does."""
    if isinstance(fit, (LinearFit, LowRankFit)) or (isinstance(fit, KernelFit)
                                                     and fit.classifies):
        return "classifier"
    if isinstance(fit, LinearOneClassFit) or getattr(fit, "kind", None) == "one_class":
        return "outlier"
    return "regressor"


def _outputs(model, fit, raw_scores):
    """[(name, kind, columns)] of the model's outputs; kind 'label' (a classifier's
    (n,) labels), 'outlier' ((n, 1) int64 +1/-1) or 'value' (n, columns)."""
    if task(fit) == "regressor":
        return [("variable", "value", 1)]
    if task(fit) == "outlier":
        marks = getattr(fit, "prob_density_marks_", None)
        return [("label", "outlier", 1), ("scores", "value", 1)] + \
            ([("probabilities", "value", 2)] if marks is not None else [])
    k = len(fit.classes_)
    if isinstance(fit, (LinearFit, LowRankFit)):
        columns = np.atleast_2d(fit.coef_).shape[0]
    elif fit.probA_ is not None and not raw_scores:
        columns = k
    else:
        columns = 2 if k == 2 else k if model.decision_function_shape == "ovr" else k * (k - 1) // 2
    return [("label", "label", None), ("probabilities", "value", columns)]


def _input_dtype(variable, model):
    dtype = _DTYPES.get(type(variable.type))
    if dtype is None:
        raise ValueError(f"the input of an ONNX {type(model).__name__} must be float32 or "
                         f"float64 (FloatTensorType or DoubleTensorType), not "
                         f"{type(variable.type).__name__}")
    return dtype


def _parse(scope, model, inputs, custom_parsers=None):
    """Declare the operator and its outputs (and ZipMap, for a classifier's probabilities)."""
    fit = model_fit(model)
    dtype = _input_dtype(inputs[0], model)
    options = (scope.get_options(model, dict(zipmap=None, raw_scores=False))
               if task(fit) == "classifier" else dict(zipmap=False, raw_scores=False))
    operator = scope.declare_local_operator(get_model_alias(type(model)), model)
    operator.inputs = inputs
    value_type = FloatTensorType if dtype == np.float32 else DoubleTensorType
    for name, kind, columns in _outputs(model, fit, options["raw_scores"]):
        if kind == "label":
            strings = graphs.label_values(fit.classes_).dtype == object
            var_type = StringTensorType([None]) if strings else Int64TensorType([None])
        elif kind == "outlier":
            var_type = Int64TensorType([None, 1])
        else:
            var_type = value_type([None, columns])
        operator.outputs.append(scope.declare_local_variable(name, var_type))
    probabilities = ((isinstance(fit, KernelFit) and fit.classifies and fit.probA_ is not None
                      and not options["raw_scores"]))
    zipmap = options["zipmap"]
    if zipmap and dtype == np.float64:
        raise ValueError("zipmap applies to float32 probabilities (ONNX's ZipMap takes no "
                         "float64); pass options={'zipmap': False} for a float64 graph")
    if probabilities and dtype == np.float32 and zipmap is not False:
        return _apply_zipmap(True if zipmap is None else zipmap, scope, model, inputs[0].type,
                             operator.outputs)
    return operator.outputs


def _shapes(operator):
    """The outputs' first dimension is the input's (their types are the parser's)."""
    n = operator.inputs[0].get_first_dimension()
    for variable in operator.outputs:
        variable.type.shape = [n] + list(variable.type.shape[1:])


def _convert(scope, operator, container):
    model = operator.raw_operator
    fit = model_fit(model)
    g = graphs.Nodes(scope, container, _input_dtype(operator.inputs[0], model))
    X = operator.inputs[0].full_name
    outputs = [variable.full_name for variable in operator.outputs]
    if isinstance(fit, (LinearFit, LowRankFit)):
        # a low-rank model: the kernel values of the basis rows times its weights on them
        dec = graphs.linear_decision(g, X, fit.coef_, fit.intercept_) \
            if isinstance(fit, LinearFit) else graphs.linear_decision(
                g, graphs.kernel_values(g, X, fit.kernel, fit.components_), fit.dual_coef_,
                fit.intercept_)
        index = graphs.positive_index(g, dec) if np.atleast_2d(fit.coef_).shape[0] == 1 \
            else graphs.argmax(g, dec)
        graphs.labels(g, index, fit.classes_, outputs[0])
        g.op("Identity", dec, output=outputs[1])
    elif isinstance(fit, LinearSVRFit):
        dec = graphs.linear_decision(g, X, np.reshape(fit.coef_, (1, -1)), fit.intercept_)
        g.op("Identity", dec, output=outputs[0])
    elif isinstance(fit, LinearOneClassFit):
        _outlier(g, graphs.linear_decision(g, X, fit.coef_, -np.asarray(fit.offset_)), outputs)
    elif fit.kind == "one_class":
        dec = graphs.kernel_decision(g, X, fit)
        _outlier(g, dec, outputs)
        if fit.prob_density_marks_ is not None:
            graphs.one_class_probabilities(g, dec, fit.prob_density_marks_, outputs[2])
    elif not fit.classifies:
        g.op("Identity", graphs.kernel_decision(g, X, fit), output=outputs[0])
    else:
        raw_scores = container.get_options(model, dict(raw_scores=False))["raw_scores"]
        _kernel_classifier(g, model, fit, graphs.kernel_decision(g, X, fit), outputs, raw_scores)


def _outlier(g, dec, outputs):
    """label +1 where the decision is > 0, else -1 (LIBSVM's and LIBLINEAR's); scores."""
    g.op("Where", g.op("Greater", dec, g.const(0.0)), g.const([[1]], np.int64),
         g.const([[-1]], np.int64), output=outputs[0])
    g.op("Identity", dec, output=outputs[1])


def _kernel_classifier(g, model, fit, dec, outputs, raw_scores):
    k = len(fit.classes_)
    ovr = None
    if model.decision_function_shape == "ovr" and k > 2:
        ovr = graphs.ovr_decision(g, dec, k)
    if model.break_ties and ovr is not None:
        index = graphs.argmax(g, ovr)
    else:
        index = graphs.vote_index(g, dec, k)
    graphs.labels(g, index, fit.classes_, outputs[0])
    if fit.probA_ is not None and not raw_scores:
        graphs.class_probabilities(g, dec, fit.probA_, fit.probB_, k, outputs[1])
    elif k == 2:  # skl2onnx's layout for scikit-learn's SVC: [-f, f], f = decision_function
        g.op("Concat", dec, g.op("Neg", dec), axis=1, output=outputs[1])
    else:
        g.op("Identity", dec if ovr is None else ovr, output=outputs[1])


def sample_input(X):
    """One dense row of X (dense or sparse) in X's float dtype: what declares the input."""
    if sp.issparse(X):
        X = X[:1].toarray()
    X = np.asarray(X)
    if X.ndim != 2 or X.dtype not in (np.float32, np.float64):
        raise ValueError(f"X_sample must be a 2-d float32 or float64 array or sparse matrix "
                         f"(its dtype sets the graph's), got {X.dtype} of shape {X.shape}")
    return X[:1]

