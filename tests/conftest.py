import os
from pathlib import Path

import pytest
from sklearn.datasets import load_svmlight_file

DATA_DIR = Path(os.environ.get("DUALSVM_DATA", Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))


@pytest.fixture(scope="session")
def data_dir():
    """The benchmark data directory (environment variable DUALSVM_DATA)."""
    if not DATA_DIR.is_dir():
        pytest.skip(f"data directory {DATA_DIR} not found; set DUALSVM_DATA")
    return DATA_DIR


_cache = {}


@pytest.fixture(scope="session")
def load(data_dir):
    """load(name, n_features=None) -> (X, y), cached for the session."""
    def _load(name, n_features=None):
        key = (name, n_features)
        if key not in _cache:
            _cache[key] = load_svmlight_file(str(data_dir / name), n_features=n_features)
        return _cache[key]
    return _load
