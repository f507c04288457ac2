"""The errors dualsvm raises for bad files, and their one-line form."""


class DataError(ValueError):
    """A data file that cannot be read as svmlight/LIBSVM data (or a damaged dataset)."""


class ModelError(ValueError):
    """A model file that is not a valid model, or a model that cannot be written."""


def one_line(error):
    """An exception's message on one line (its type name when it has none)."""
    text = " ".join(str(error).split())
    return text or type(error).__name__
