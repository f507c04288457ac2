"""Layer 5, training in memory: data and parameters in, plain fitted models out.

:mod:`.config` (``KernelTraining``, ``LinearTraining``: the parameters a fit reads, typed,
made once from the estimator's dict), :mod:`.multiclass` (the one one-vs-rest / one-vs-one
driver), :mod:`.linear`
(``fit_linear``: every linear model), :mod:`.kernel` (``fit_kernel``: every kernel
model), :mod:`.low_rank` (``fit_low_rank``: a Nystroem map, then ``fit_linear`` on
it; ``LowRankFit``), :mod:`.probability` (Platt's sigmoid, pairwise coupling, one-class density
marks) and :mod:`.fitted` (``LinearFit``, ``LinearSVRFit``, ``LinearOneClassFit``,
``KernelFit``: what training returns, model files hold and estimators take over).
They need NumPy and SciPy only, so the command line trains without scikit-learn.
"""
