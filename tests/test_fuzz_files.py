"""Random damage to the files dualsvm writes: the on-disk block format and model files.

A damaged dataset directory (bits flipped, bytes cut, zeroed or appended in
``manifest.json`` or ``blocks.bin``) must be refused with a :class:`DataError` naming
it, by opening, loading or out-of-core training, or read as exactly the original
rows. A damaged model file of any format in ``robustness.MODEL_FILES`` must be refused
with a one-line :class:`ModelError` naming it, or load as exactly the original model
(the dualsvm container checks CRC-32s); a LIBLINEAR text model has no checksum, so a
changed digit can give another valid model: there it must at least load into a model
whose decisions are finite. Never another exception.
"""

import os
import shutil
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from robustness import MODEL_FILES, count, examples, same_fitted_attributes

from dualsvm.exceptions import DataError, ModelError
from dualsvm.outofcore import DiskDataset
from dualsvm.outofcore import convert
from dualsvm.outofcore import fit as fit_out_of_core

SECTION = "fuzz"


@st.composite
def damage(draw, size):
    """A list of (kind, position, argument) edits of a file of ``size`` bytes."""
    edits = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "flip", "flip", "zero", "truncate", "append",
                                     "delete"]))
        position = draw(st.integers(0, max(size - 1, 0)))
        argument = draw(st.integers(0, 7)) if kind == "flip" else draw(st.integers(1, 64))
        edits.append((kind, position, argument))
    return edits


def apply(path, edits):
    data = bytearray(open(path, "rb").read())
    for kind, position, argument in edits:
        position = min(position, max(len(data) - 1, 0))
        if kind == "flip" and data:
            data[position] ^= 1 << argument
        elif kind == "zero":
            data[position:position + argument] = bytes(len(data[position:position + argument]))
        elif kind == "truncate":
            del data[position:]
        elif kind == "append":
            data += bytes(range(argument))
        elif kind == "delete":
            del data[position:position + argument]
    with open(path, "wb") as f:
        f.write(data)
    return edits[0][0]


# ------------------------------------------------------------- the block format

@pytest.fixture(scope="module")
def dataset(tmp_path_factory, data_dir):
    """A dataset of heart_scale in 7 small blocks, with its rows."""
    path = tmp_path_factory.mktemp("blocks") / "heart"
    ds = convert(str(data_dir / "heart_scale"), path, block_mb=0.004, seed=3)
    assert ds.n_blocks > 4
    return path, ds.load()


def _same_rows(a, b):
    (X, y), (X0, y0) = a, b
    return (X.shape == X0.shape and np.array_equal(y, y0) and np.array_equal(X.indptr, X0.indptr)
            and np.array_equal(X.indices, X0.indices) and np.array_equal(X.data, X0.data))


@settings(max_examples=examples(60))
@given(file=st.sampled_from(["manifest.json", "blocks.bin"]), edits=damage(4000),
       method=st.sampled_from(["bm", "sbm", "dcl"]))
def test_damaged_dataset_is_refused_or_read_unchanged(dataset, file, edits, method):
    original, rows = dataset
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "copy")
        shutil.copytree(original, path)
        kind = apply(os.path.join(path, file), edits)
        try:
            ds = DiskDataset(path)
            loaded = ds.load()
            fit_out_of_core(ds, method=method, memory=0.05, max_iter=2, random_state=0)
        except DataError as e:
            message = str(e)
            assert path in message and "\n" not in message, message
            outcome = "refused with DataError"
        else:
            assert _same_rows(loaded, rows), "damaged data read as other rows"
            outcome = "read unchanged"
    count(SECTION, f"block format: {file} {kind}", outcome)


# ----------------------------------------------------------------- model files

@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    """{name: (path, load, the loaded original)} of every format in MODEL_FILES."""
    directory = tmp_path_factory.mktemp("models")
    files = {}
    for name, write, load in MODEL_FILES:
        path = directory / name
        write(path)
        files[name] = (path, load, load(path))
    return files


@settings(max_examples=examples(40))
@given(name=st.sampled_from([name for name, _, _ in MODEL_FILES]), edits=damage(3000))
def test_damaged_model_file_is_refused_or_loads_unchanged(model_files, data_dir, name, edits):
    original, load, model = model_files[name]
    X = _probe_rows(data_dir, model.n_features_in_)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model")
        shutil.copy(original, path)
        kind = apply(path, edits)
        try:
            loaded = load(path)
            decisions = loaded.decision_function(X)
        except ModelError as e:
            message = str(e)
            assert message.startswith(path + ": ") and "\n" not in message, message
            outcome = "refused with ModelError"
        else:
            assert np.isfinite(decisions).all()
            if same_fitted_attributes(loaded, model):
                outcome = "loads unchanged"
            else:
                # only a text format without a checksum may load as another model
                assert open(path, "rb").read(4) != b"PK\x03\x04", "damaged model loaded"
                outcome = "loads as another valid text model"
    count(SECTION, f"model file: {name} {kind}", outcome)


_probe_cache = {}


def _probe_rows(data_dir, n_features):
    if n_features not in _probe_cache:
        from dualsvm.data.svmlight import read_svmlight

        _probe_cache[n_features] = read_svmlight(data_dir / "heart_scale", n_features)[0][:20]
    return _probe_cache[n_features]
