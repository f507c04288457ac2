"""Layer 7, the scikit-learn estimators (imported by :mod:`dualsvm` on first use).

:mod:`.base` (what they share: ``from_fit``, the kernel models' validation),
:mod:`.linear_svc`, :mod:`.linear_svr`, :mod:`.linear_one_class`, :mod:`.svc`
(``SVC``, ``NuSVC``), :mod:`.svr` (``SVR``, ``NuSVR``), :mod:`.one_class`
(``OneClassSVM``), :mod:`.low_rank` (``LowRankSVC``: a Nystroem map and the linear
dual on it); :mod:`.regularization_path` (``c_path``: warm-started fits over
C), :mod:`.model_selection` (``LinearSVCCV``, ``SVCCV``, ...: C and gamma by
cross-validation over those paths) and :mod:`.model_io` (``save_model``,
``load_model``, LIBLINEAR and LIBSVM text models of estimators).
"""
