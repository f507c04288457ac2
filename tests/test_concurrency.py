"""Concurrency: threads and processes sharing models, data and files.

* Threads fitting and predicting with every estimator of ``robustness.ESTIMATORS``
  at once (the compiled kernels release the GIL) give bit-identical models and
  predictions to serial runs with the same seeds.
* Two processes training on the same block directory at once give the model a
  single process gives.
* A process reading a directory that another is converting into sees either no
  dataset or the whole one, never a torn one.
* Processes saving different models to the same path while another loads it: every
  load is one of the models whole, never a torn file.
"""

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from robustness import ESTIMATORS, count, faults, same_fitted_attributes

from dualsvm.exceptions import DataError
from dualsvm.outofcore import DiskDataset
from dualsvm.outofcore import convert

SECTION = "concurrency"


def _fit_predict(factory, X, y, seed):
    model = factory(C=0.5, random_state=seed, max_iter=200).fit(X, y)
    return model, model.predict(X), model.decision_function(X)


@pytest.mark.filterwarnings("ignore:Training stopped before convergence")
def test_threads_fit_and_predict_as_serial_runs_do(load):
    X, y = load("heart_scale")
    X = X[:150]
    y = y[:150]
    jobs = [(name, factory, seed) for name, factory in ESTIMATORS for seed in (0, 1)][::2]
    serial = [_fit_predict(factory, X, y, seed) for _, factory, seed in jobs]
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        parallel = list(pool.map(lambda job: _fit_predict(job[1], X, y, job[2]), jobs))
    for (name, _, _), (a, pa, da), (b, pb, db) in zip(jobs, serial, parallel):
        assert same_fitted_attributes(a, b), name
        assert np.array_equal(pa, pb) and np.array_equal(da, db), name
        count(SECTION, f"threads: {name}", "bit-identical to serial")


_TRAIN = """
import sys
from dualsvm.cli import main
sys.exit(main(["train", "-q", "--method", "bm", "--memory", "0.05", "--seed", "3",
               "-e", "1e-4", sys.argv[1], sys.argv[2]]))
"""


@pytest.mark.slow  # in CI's slow step: this file's battery stays near a minute
def test_two_processes_train_on_one_block_directory(tmp_path, data_dir):
    from dualsvm.estimators.model_io import load_model

    dataset = tmp_path / "heart"
    convert(str(data_dir / "heart_scale"), dataset, block_mb=0.004)
    for k in range(faults(1)):
        models = [tmp_path / f"m{k}.{i}" for i in range(3)]
        processes = [subprocess.Popen([sys.executable, "-c", _TRAIN, str(dataset), str(m)])
                     for m in models[:2]]
        assert [p.wait(timeout=300) for p in processes] == [0, 0]
        assert subprocess.run([sys.executable, "-c", _TRAIN, str(dataset), str(models[2])],
                              timeout=300).returncode == 0
        first, second, alone = (load_model(m) for m in models)
        assert same_fitted_attributes(first, alone) and same_fitted_attributes(second, alone)
        count(SECTION, "two processes train on one block directory", "both as one alone")


_CONVERT = """
import sys
from dualsvm.outofcore import convert
convert(sys.argv[1], sys.argv[2], block_mb=0.01)
"""


@pytest.mark.slow  # in CI's slow step: this file's battery stays near a minute
def test_reading_a_directory_while_it_is_converted_into(tmp_path, data_dir):
    source = data_dir / "a9a.t.bz2"
    reference = tmp_path / "reference"
    convert(str(source), reference, block_mb=0.01)
    X0, y0 = DiskDataset(reference).load()
    for k in range(faults(1)):
        target = tmp_path / f"d{k}"
        process = subprocess.Popen([sys.executable, "-c", _CONVERT, str(source), str(target)])
        outcomes = set()
        while True:
            finished = process.poll() is not None
            try:
                X, y = DiskDataset(target).load()
            except DataError as e:
                assert str(target) in str(e) and "no such dataset directory" in str(e), str(e)
                outcomes.add("no dataset yet")
            else:
                assert np.array_equal(y, y0) and (X != X0).nnz == 0, "a torn dataset was read"
                outcomes.add("whole dataset")
            if finished:
                break
            time.sleep(0.01)
        assert process.returncode == 0 and "whole dataset" in outcomes
        for outcome in outcomes:
            count(SECTION, "read while another process converts", outcome)


_SAVE = """
import sys
from dualsvm.persistence.model_file import load_any_fit, save_fit
fit = load_any_fit(sys.argv[1])
for _ in range(int(sys.argv[3])):
    save_fit(fit, sys.argv[2])
"""


def test_processes_saving_to_one_path_never_tear_it(tmp_path, data_dir):
    from dualsvm import LinearSVC, save_model
    from dualsvm.data.svmlight import read_svmlight
    from dualsvm.estimators.model_io import load_model

    X, y = read_svmlight(data_dir / "heart_scale")
    sources = [tmp_path / "a", tmp_path / "b"]
    save_model(LinearSVC(C=0.1).fit(X, y), sources[0])
    save_model(LinearSVC(C=10.0, max_iter=50).fit(X, y), sources[1])
    originals = [load_model(s) for s in sources]
    target = tmp_path / "shared.model"
    save_model(originals[0], target)
    writers = [subprocess.Popen([sys.executable, "-c", _SAVE, str(s), str(target),
                                 str(30 * faults(1))]) for s in sources]
    while any(w.poll() is None for w in writers):
        loaded = load_model(target)
        assert any(same_fitted_attributes(loaded, o) for o in originals), "a torn model"
        count(SECTION, "two processes save to one path, a third loads", "loads a whole model")
    assert [w.returncode for w in writers] == [0, 0]
    assert any(same_fitted_attributes(load_model(target), o) for o in originals)
    assert [p for p in os.listdir(tmp_path) if p.startswith(".")] == []
