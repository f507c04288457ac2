"""Model files, written from and read into fit objects (:mod:`dualsvm.training.fitted`).

* :mod:`.container`: the dualsvm model file (zip of ``.npy`` entries and JSON
  metadata, never pickle), shared by every model kind;
* :mod:`.linear`, :mod:`.kernel`, :mod:`.low_rank`: the entries of linear, kernel and
  low-rank models;
* :mod:`.liblinear`: LIBLINEAR's text models, export and import;
* :mod:`.libsvm`: LIBSVM's text models (kernel models), export and import;
* :mod:`.text`: what the two text formats share;
* :mod:`.model_file`: any model file, by the fit object's type or the file's content.

This package imports none of them, so training a linear model never loads the
kernel layer to save it.

The estimators' ``save_model`` / ``load_model`` (:mod:`dualsvm.estimators.model_io`) wrap
these; the command line uses them directly, without scikit-learn.
"""
