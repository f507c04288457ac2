"""The ONNX nodes of a fitted model's decision function, labels and probabilities.

Every model is built from standard ONNX operators (MatMul, Add, Mul, Exp, Tanh, Pow,
Greater, ArgMax, Gather, Where, Loop), which ONNX Runtime computes in float32 or float64
alike: the graph computes in the dtype of its input. (The ONNX-ML ``SVMClassifier``
and ``SVMRegressor`` operators that skl2onnx uses for scikit-learn's SVMs hold their
coefficients as float32 and compute in float32 whatever the input.) The arithmetic
follows the NumPy code that dualsvm predicts with, operation for operation:

* kernel values from the dot products X SV' (:func:`dualsvm.kernels.kernel_from_dots`):
  linear x'z; poly (gamma x'z + coef0)^degree; sigmoid tanh(gamma x'z + coef0); RBF
  exp(-gamma max(||x||^2 + ||z||^2 - 2 x'z, 0));
* one-vs-one decision values K C' + b with C the (n_pairs, n_SV) coefficients of every
  pair (:func:`dualsvm.training.fitted.pair_coefficients`), LIBSVM's signs;
* votes: pair (i, j) votes i where its value is > 0, else j; the label is the first
  class with the most votes (LIBSVM's ties); break_ties: the largest one-vs-rest value;
* the one-vs-rest transform of scikit-learn's ``_ovr_decision_function``;
* probabilities as :mod:`dualsvm.training.probability` computes them: each pair's
  sigmoid 1 / (1 + exp(A f + B)) clipped to [1e-7, 1 - 1e-7]; two classes: that
  sigmoid; more: Wu, Lin and Weng's fixed-point iteration, a ``Loop`` whose rows stop
  on their own test as ``couple_rows``'s do; one-class: the density marks.

Sums along an axis are MatMul with a column of ones, so that no node depends on the
opset's form of the Reduce operators (whose axes became an input in opset 13 and 18).
:class:`Nodes` adds nodes to a skl2onnx container, or to the body of a Loop.
"""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from ..training.fitted import class_pairs, pair_coefficients
from ..training.probability import MIN_PROB, N_MARKS

#: The ONNX element type of each float dtype a graph computes in.
ELEMENT_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE}


class Nodes:
    """Adds nodes computing in ``dtype`` to a skl2onnx ``container`` (names from its
    ``scope``), or, with ``container=None``, collects them for a Loop body (constants
    as Constant nodes)."""

    def __init__(self, scope, container, dtype):
        self.scope = scope
        self.container = container
        self.dtype = np.dtype(dtype)
        self.element = ELEMENT_TYPES[self.dtype]
        self.body = []  # the nodes of a Loop body

    def name(self, prefix):
        return self.scope.get_unique_variable_name(prefix)

    def const(self, value, dtype=None, prefix="c"):
        """A constant: an initializer (a Constant node in a Loop body)."""
        value = np.asarray(value, dtype=self.dtype if dtype is None else dtype)
        name = self.name(prefix)
        if self.container is None:
            self.body.append(helper.make_node("Constant", [], [name],
                                              value=numpy_helper.from_array(value, name)))
        elif value.dtype.kind in "OU":  # strings: from_array would not keep them as raw data
            self.container.add_initializer(name, TensorProto.STRING, list(value.shape),
                                           [str(v).encode("utf-8") for v in value.ravel()])
        else:
            self.container.add_initializer(name, None, None, numpy_helper.from_array(value))
        return name

    def op(self, op_type, *inputs, output=None, **attrs):
        """The output name of a new node ``op_type(*inputs, **attrs)``."""
        output = self.name(op_type.lower()) if output is None else output
        if self.container is None:
            self.body.append(helper.make_node(op_type, list(inputs), [output], **attrs))
        else:
            self.container.add_node(op_type, list(inputs), [output],
                                    name=self.scope.get_unique_operator_name(op_type), **attrs)
        return output

    def row_sums(self, X, width):
        """(n, 1): the sum of every row of an (n, width) tensor."""
        return self.op("MatMul", X, self.const(np.ones((width, 1))))

    def cast(self, X, to=None):
        """X cast to the graph's dtype, or to the ONNX element type ``to``."""
        return self.op("Cast", X, to=self.element if to is None else to)


# ------------------------------------------------------------------ decision values


def linear_decision(g, X, coef, intercept):
    """(n, k): X coef' + intercept."""
    coef = np.atleast_2d(np.asarray(coef, dtype=np.float64))
    return g.op("Add", g.op("MatMul", X, g.const(coef.T)),
                g.const(np.asarray(intercept, dtype=np.float64).reshape(1, -1)))


def kernel_decision(g, X, fit):
    """(n, n_pairs) LIBSVM's decision values of a KernelFit (one column for one-class
    and regression models)."""
    coef = pair_coefficients(fit.dual_coef_, fit.n_support_) if fit.classifies \
        else np.asarray(fit.dual_coef_, dtype=np.float64)
    return linear_decision(g, kernel_values(g, X, fit.kernel, fit.support_vectors_), coef,
                           fit.intercept_)


def kernel_values(g, X, kernel, points):
    """(n, m): K(X, points) of a Kernel and m points (dense or CSR)."""
    sv = np.asarray(points.toarray() if hasattr(points, "toarray") else points,
                    dtype=np.float64)
    dots = g.op("MatMul", X, g.const(sv.T, prefix="support_vectors"))
    if kernel.name == "rbf":
        sq_rows = g.row_sums(g.op("Mul", X, X), sv.shape[1])
        sq_cols = g.const(np.einsum("ij,ij->i", sv, sv).reshape(1, -1))
        distance = g.op("Add", g.op("Add", g.op("Mul", dots, g.const(-2.0)), sq_rows), sq_cols)
        distance = g.op("Max", distance, g.const(0.0))  # rounding can make ||x - x||^2 < 0
        values = g.op("Exp", g.op("Mul", distance, g.const(-kernel.gamma)))
    elif kernel.name in ("poly", "sigmoid"):
        values = g.op("Add", g.op("Mul", dots, g.const(kernel.gamma)), g.const(kernel.coef0))
        values = g.op("Pow", values, g.const(float(kernel.degree))) if kernel.name == "poly" \
            else g.op("Tanh", values)
    else:
        values = dots
    return values


def ovr_decision(g, dec, n_classes):
    """(n, k): scikit-learn's ``_ovr_decision_function(dec < 0, -dec, k)``: votes (pair
    (i, j) votes i where dec >= 0) plus the summed confidences mapped into (-1/3, 1/3)."""
    first, second = _pair_matrices(n_classes)
    votes = g.op("Add", g.op("MatMul", g.cast(g.op("GreaterOrEqual", dec, g.const(0.0))),
                             g.const(first)),
                 g.op("MatMul", g.cast(g.op("Less", dec, g.const(0.0))), g.const(second)))
    confidence = g.op("MatMul", dec, g.const(first - second))
    scale = g.op("Mul", g.const(3.0), g.op("Add", g.op("Abs", confidence), g.const(1.0)))
    return g.op("Add", votes, g.op("Div", confidence, scale))


def _pair_matrices(n_classes):
    """(n_pairs, k) matrices with a 1 at (p, i), and at (p, j), for pair p = (i, j)."""
    pairs = class_pairs(n_classes)
    first, second = np.zeros((len(pairs), n_classes)), np.zeros((len(pairs), n_classes))
    for p, (i, j) in enumerate(pairs):
        first[p, i] = second[p, j] = 1.0
    return first, second


# ------------------------------------------------------------------ labels


def vote_index(g, dec, n_classes):
    """(n,) int64: the class with the most one-vs-one votes (pair (i, j): i where its
    value is > 0, else j), the first of the tied ones."""
    if n_classes == 2:
        return g.cast(g.op("Reshape", g.op("LessOrEqual", dec, g.const(0.0)),
                           g.const([-1], np.int64)), TensorProto.INT64)
    first, second = _pair_matrices(n_classes)
    votes = g.op("Add", g.op("MatMul", g.cast(g.op("Greater", dec, g.const(0.0))),
                             g.const(first)),
                 g.op("MatMul", g.cast(g.op("LessOrEqual", dec, g.const(0.0))),
                      g.const(second)))
    return argmax(g, votes)


def argmax(g, scores):
    """(n,) int64: the column of the largest value, the first of ties (NumPy's argmax)."""
    return g.op("ArgMax", scores, axis=1, keepdims=0, select_last_index=0)


def positive_index(g, dec):
    """(n,) int64: 1 where the (n, 1) values are > 0, else 0."""
    return g.cast(g.op("Reshape", g.op("Greater", dec, g.const(0.0)),
                       g.const([-1], np.int64)), TensorProto.INT64)


def labels(g, index, classes, output):
    """The class labels ``classes[index]`` into ``output``: int64 for integer labels,
    strings for strings (ValueError for other labels, which ONNX classifiers lack)."""
    values = label_values(classes)
    return g.op("Gather", g.const(values, values.dtype), index, axis=0, output=output)


def label_values(classes):
    """The labels as the ONNX graph outputs them: int64 or strings."""
    classes = np.asarray(classes)
    if classes.dtype.kind in "biu":
        return classes.astype(np.int64)
    if classes.dtype.kind == "f" and np.all(classes == np.round(classes)):
        return classes.astype(np.int64)
    if classes.dtype.kind in "OU" and all(isinstance(c, str) for c in classes):
        return classes.astype(object)
    raise ValueError(f"ONNX classifiers output integer or string labels; the classes "
                     f"{classes!r} are neither: relabel y with integers")


# ------------------------------------------------------------------ probabilities


def pairwise_probabilities(g, dec, prob_a, prob_b):
    """(n, n_pairs): each pair's 1 / (1 + exp(A f + B)), clipped to [1e-7, 1 - 1e-7]."""
    z = g.op("Add", g.op("Mul", dec, g.const(np.reshape(prob_a, (1, -1)))),
             g.const(np.reshape(prob_b, (1, -1))))
    e = g.op("Exp", g.op("Neg", g.op("Abs", z)))
    one_plus = g.op("Add", g.const(1.0), e)
    # e^-z / (1 + e^-z) for z >= 0, 1 / (1 + e^z) otherwise: no overflow
    p = g.op("Where", g.op("GreaterOrEqual", z, g.const(0.0)), g.op("Div", e, one_plus),
             g.op("Div", g.const(1.0), one_plus))
    return g.op("Min", g.op("Max", p, g.const(MIN_PROB)), g.const(1.0 - MIN_PROB))


def class_probabilities(g, dec, prob_a, prob_b, n_classes, output):
    """(n, k) into ``output``: two classes [p, 1 - p]; more: :func:`couple`."""
    pairwise = pairwise_probabilities(g, dec, prob_a, prob_b)
    if n_classes == 2:
        return g.op("Concat", pairwise, g.op("Sub", g.const(1.0), pairwise), axis=1,
                    output=output)
    return couple(g, pairwise, n_classes, output)


def couple(g, pairwise, k, output):
    """Wu, Lin and Weng's coupled probabilities (n, k) of pairwise ones (n, n_pairs), as
    :func:`dualsvm.training.probability.couple_rows` computes them: Q (n, k, k) with
    Q_tj = -r_jt r_tj, Q_tt = sum_j r_jt^2, p = 1/k, then max(100, k) sweeps of a Loop,
    each row left as it is once max_t |(Qp)_t - p'Qp| < 0.005 / k."""
    pairs = class_pairs(k)
    upper, lower = np.zeros((len(pairs), k * k)), np.zeros((len(pairs), k * k))
    for p, (i, j) in enumerate(pairs):
        upper[p, i * k + j] = lower[p, j * k + i] = 1.0
    # r[i, j] = r_ij (pair (i, j): its probability, (j, i): 1 minus it) and its transpose,
    # both by selection matrices: ONNX Runtime 1.19 fuses a Transpose followed by a
    # MatMul (even through a Mul) into an operator without float64
    complement = g.op("Sub", g.const(1.0), pairwise)
    shape = g.const([-1, k, k], np.int64)
    r = g.op("Reshape", g.op("Add", g.op("MatMul", pairwise, g.const(upper)),
                             g.op("MatMul", complement, g.const(lower))), shape)
    transposed = g.op("Reshape", g.op("Add", g.op("MatMul", pairwise, g.const(lower)),
                                      g.op("MatMul", complement, g.const(upper))), shape)
    off_diagonal = g.op("Neg", g.op("Mul", transposed, r))  # Q_tj = -r_jt r_tj
    diagonal = g.op("Reshape", g.op("MatMul", g.op("Mul", transposed, transposed),
                                    g.const(np.ones((k, 1)))),
                    g.const([-1, 1, k], np.int64))  # (n, 1, k): sum_j r_jt^2
    Q = g.op("Add", off_diagonal, g.op("Mul", g.const(np.eye(k)), diagonal))
    ones = g.op("Add", g.op("MatMul", pairwise, g.const(np.zeros((len(pairs), 1)))),
                g.const(1.0))  # (n, 1)
    p0 = g.op("MatMul", ones, g.const(np.full((1, k), 1.0 / k)))
    done0 = g.op("Less", ones, g.const(0.0))  # (n, 1) False
    g.container.add_node("Loop", [g.const(max(100, k), np.int64), g.const(True, bool), p0,
                                  done0, Q], [output, g.name("done"), g.name("Q")],
                         body=_coupling_sweep(g, k), name=g.scope.get_unique_operator_name("Loop"))
    return output


def _coupling_sweep(outer, k):
    """The Loop body: (iteration, condition, p, done, Q) -> (condition, p, done, Q)."""
    g = Nodes(outer.scope, None, outer.dtype)
    element = ELEMENT_TYPES[g.dtype]
    names = [g.name(n) for n in ("iteration", "condition", "p_in", "done_in", "Q_in")]
    iteration, condition, p_in, done_in, Q = names
    Qp = g.op("Reshape", g.op("MatMul", Q, g.op("Reshape", p_in, g.const([-1, k, 1], np.int64))),
              g.const([-1, k], np.int64))
    pQp = g.row_sums(g.op("Mul", p_in, Qp), k)
    violation = g.op("Abs", g.op("Sub", Qp, pQp))
    unsettled = g.row_sums(g.cast(g.op("Not", g.op("Less", violation, g.const(0.005 / k)))), k)
    done = g.op("Or", done_in, g.op("Less", unsettled, g.const(0.5)))
    p = p_in
    for t in range(k):
        column = g.const([t], np.int64)
        Q_row = g.op("Gather", Q, g.const(t, np.int64), axis=1)  # (n, k): Q[:, t, :]
        Q_tt = g.op("Gather", Q_row, column, axis=1)
        Qp_t = g.op("Gather", Qp, column, axis=1)
        diff = g.op("Div", g.op("Add", g.op("Neg", Qp_t), pQp), Q_tt)
        p = g.op("Add", p, g.op("Mul", diff, g.const(np.eye(k)[t:t + 1])))
        one_plus = g.op("Add", g.const(1.0), diff)
        change = g.op("Mul", diff, g.op("Add", g.op("Mul", diff, Q_tt),
                                        g.op("Mul", g.const(2.0), Qp_t)))
        pQp = g.op("Div", g.op("Div", g.op("Add", pQp, change), one_plus), one_plus)
        Qp = g.op("Div", g.op("Add", Qp, g.op("Mul", diff, Q_row)), one_plus)
        p = g.op("Div", p, one_plus)
    p_out = g.op("Where", done, p_in, p)
    # rows still running (ReduceSum over all axes takes the same form in every opset,
    # and is 0 for no rows, where ONNX Runtime 1.19's ReduceMax fails)
    running = g.op("ReduceSum", g.cast(g.op("Not", done)), keepdims=0)
    condition_out = g.op("Greater", running, g.const(0.5))
    Q_out = g.op("Identity", Q)
    inputs = [helper.make_tensor_value_info(iteration, TensorProto.INT64, []),
              helper.make_tensor_value_info(condition, TensorProto.BOOL, []),
              helper.make_tensor_value_info(p_in, element, [None, k]),
              helper.make_tensor_value_info(done_in, TensorProto.BOOL, [None, 1]),
              helper.make_tensor_value_info(Q, element, [None, k, k])]
    outputs = [helper.make_tensor_value_info(condition_out, TensorProto.BOOL, []),
               helper.make_tensor_value_info(p_out, element, [None, k]),
               helper.make_tensor_value_info(done, TensorProto.BOOL, [None, 1]),
               helper.make_tensor_value_info(Q_out, element, [None, k, k])]
    return helper.make_graph(g.body, g.name("coupling_sweep"), inputs, outputs)


def one_class_probabilities(g, dec, marks, output):
    """(n, 2) into ``output``: [1 - P(+1), P(+1)], P(+1) from the density marks: 0.001
    below the first, i / 10 from mark i, 0.999 from the last on."""
    below = g.row_sums(g.cast(g.op("LessOrEqual", g.const(np.reshape(marks, (1, -1))), dec)),
                       N_MARKS)  # the marks <= f
    inlier = g.op("Where", g.op("Less", below, g.const(0.5)), g.const(0.001),
                  g.op("Where", g.op("Greater", below, g.const(N_MARKS - 0.5)), g.const(0.999),
                       g.op("Div", below, g.const(float(N_MARKS)))))
    return g.op("Concat", g.op("Sub", g.const(1.0), inlier), inlier, axis=1, output=output)
