"""Debian's libsvm-tools (svm-scale, svm-checkdata, ...), the peers of ``dualsvm scale``
and ``dualsvm checkdata``: a test that needs one is skipped when it is not installed,
and fails under CI (``.ci/run`` installs the package)."""

import bz2
import os
import shutil
import subprocess

import pytest


def libsvm_tool(name):
    """The path of Debian's ``name`` (e.g. ``svm-scale``); skip, or fail under CI, without it."""
    path = shutil.which(name)
    if path is None:
        message = f"{name} not installed (Debian's libsvm-tools: apt-get install libsvm-tools)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def run_tool(name, *args):
    """Run a libsvm tool: (exit status, stdout, stderr)."""
    done = subprocess.run([libsvm_tool(name), *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    return done.returncode, done.stdout, done.stderr


def plain_copy(data_dir, name, tmp_path):
    """tests/data/NAME.bz2 decompressed into tmp_path (the C tools read plain text only)."""
    target = tmp_path / name
    target.write_bytes(bz2.decompress((data_dir / f"{name}.bz2").read_bytes()))
    return target
