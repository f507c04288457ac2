"""Differential fuzzing of the svmlight reader against scikit-learn's.

Valid svmlight/LIBSVM texts, generated with labels, qid, comments, blank lines,
``\\r\\n``, huge and tiny values in many spellings, trailing white space and gz/bz2
compression, must read as exactly (bit for bit) the matrices of
:func:`sklearn.datasets.load_svmlight_file`. Corrupted texts (byte flips, truncation,
NUL bytes, invalid UTF-8, absurd or unsorted indices, a 10**6-character line, damaged
compressed streams) must give either our one-line :class:`DataError` naming the file
or, where scikit-learn reads them, its matrices; never another exception. The same
corruptions through the command line (one process for all) end in one error line each,
never a traceback or a crash of the process. Budgets: ``robustness.examples``.
"""

import bz2
import gzip
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from robustness import count, examples
from sklearn.datasets import load_svmlight_file

from dualsvm.data.svmlight import read_svmlight
from dualsvm.exceptions import DataError

SECTION = "fuzz"

# ----------------------------------------------------------------- valid texts

_finite = st.floats(allow_nan=False, allow_infinity=False)
_values = st.one_of(
    _finite,
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 2.2250738585072014e-308,
                     1.7976931348623157e308, -1.7976931348623157e308, 1e22, 1e23, 0.1]),
    st.integers(-10**6, 10**6).map(float),
)


@st.composite
def _number_text(draw, value):
    """One of the many ways to write a finite float that float() reads back exactly."""
    style = draw(st.sampled_from(["repr", "g17", "e", "E", "plus", "int", "lead0", "short"]))
    if style == "int" and value.is_integer() and abs(value) < 1e18:
        return str(int(value))
    if style == "g17":
        return "%.17g" % value
    if style == "e":
        return "%.16e" % value
    if style == "E":
        return ("%.16E" % value).replace("E+", "E")
    if style == "plus" and value >= 0 and not np.signbit(value):
        return "+" + repr(value)
    if style == "lead0" and repr(value).startswith("0."):
        return repr(value)[1:]  # .5 -> no leading zero
    if style == "short" and np.isfinite(float("%.3g" % value)):
        return "%.3g" % value  # fewer digits: another value, still valid text
    return repr(value)


@st.composite
def svmlight_rows(draw):
    """(text, compression) of a valid file with at least one sample."""
    n_rows = draw(st.integers(1, 12))
    width = draw(st.sampled_from([1, 3, 20, 1000, 10**6, 2**31 - 1]))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    for _ in range(n_rows):
        for _ in range(draw(st.integers(0, 1))):
            lines.append(draw(st.sampled_from(["", "   ", "\t", "# a comment", " # x:1 2:3",
                                               "#"])))
        label = draw(st.one_of(st.sampled_from([1.0, -1.0, 0.0, 2.0, 3.5]), _values))
        tokens = [draw(_number_text(label))]
        if draw(st.booleans()):
            tokens.append(f"qid:{draw(st.integers(0, 10**9))}")
        size = min(width, 8)
        indices = sorted(draw(st.sets(st.integers(1, width), max_size=size)))
        for index in indices:
            tokens.append(f"{index}:{draw(_number_text(draw(_values)))}")
        separators = [draw(st.sampled_from([" ", "  ", "\t", " \t"])) for _ in tokens]
        line = draw(st.sampled_from(["", " ", "\t"])) + "".join(
            t + s for t, s in zip(tokens, separators[:-1] + [""]))
        line += draw(st.sampled_from(["", " ", "\t ", " # trailing comment", "#c:1"]))
        lines.append(line)
    text = eol.join(lines) + draw(st.sampled_from([eol, "", eol + eol]))
    return text.encode("ascii"), draw(st.sampled_from(["", ".gz", ".bz2"]))


def _write(directory, content, suffix, compress=True):
    path = os.path.join(directory, "data" + suffix)
    if compress and suffix == ".gz":
        content = gzip.compress(content)
    elif compress and suffix == ".bz2":
        content = bz2.compress(content)
    with open(path, "wb") as f:
        f.write(content)
    return path


def _scikit_learn(path):
    try:
        return load_svmlight_file(path, zero_based=False)
    except Exception:  # noqa: BLE001 - any refusal of scikit-learn's counts as one
        return None


def _same(ours, theirs):
    (X, y), (X_ref, y_ref) = ours, theirs
    bits = lambda a: np.ascontiguousarray(a, dtype=np.float64).view(np.int64)  # noqa: E731
    return (X.shape == X_ref.shape and np.array_equal(bits(y), bits(y_ref))
            and all(np.array_equal(getattr(X, part), getattr(X_ref, part))
                    for part in ("indptr", "indices"))
            and np.array_equal(bits(X.data), bits(X_ref.data)))


@settings(max_examples=examples(60))
@given(svmlight_rows())
def test_valid_text_reads_as_scikit_learns_matrices(case):
    content, suffix = case
    with tempfile.TemporaryDirectory() as directory:
        path = _write(directory, content, suffix)
        X, y = read_svmlight(path)
        assert X.format == "csr" and X.dtype == np.float64
        assert _same((X, y), load_svmlight_file(path, zero_based=False)), content
    count(SECTION, f"reader: valid text{suffix or ' (plain)'}", "same as scikit-learn")


# ------------------------------------------------------------------ corruptions

_ABSURD = [b" 0:1", b" -3:1", b" 99999999999999999999:1", b" 2147483648:1", b" 2147483647:1",
           b" 1:1 1:2", b" 9:1 2:1", b" qid:1", b" 1:nan", b" 1:inf", b" 1:1e999", b" :",
           b" 1:", b" x:1", b" 1::1", b"1:1:1", b" +2:1", b" 2:1_0"]


@st.composite
def corruptions(draw):
    """(content, suffix, compress?) of a damaged file."""
    content, suffix = draw(svmlight_rows())
    kind = draw(st.sampled_from(["flip", "nul", "utf8", "truncate", "absurd", "long line",
                                 "binary", "compressed"]))
    data = bytearray(content)
    at = draw(st.integers(0, len(data)))
    if kind == "flip" and data:
        for _ in range(draw(st.integers(1, 4))):
            position = draw(st.integers(0, len(data) - 1))
            data[position] ^= 1 << draw(st.integers(0, 7))
    elif kind == "nul":
        data[at:at] = b"\0"
    elif kind == "utf8":
        data[at:at] = draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80",
                                            b"\xc2\xa0", b"\x1c"]))
    elif kind == "truncate":
        del data[at:]
    elif kind == "absurd":
        line_end = data.find(b"\n", at)
        where = len(data) if line_end < 0 else line_end
        data[where:where] = draw(st.sampled_from(_ABSURD))
    elif kind == "long line":
        long = draw(st.sampled_from([b"1 1:" + b"1" * 10**6, b"1 " + b"7" * 10**6 + b":1",
                                     b"1 # " + b"c" * 10**6, b"1 " + b" " * 10**6 + b"1:2",
                                     b"1 1:0." + b"0" * 10**6 + b"1"]))
        data[at:at] = long + b"\n"
    elif kind == "binary":
        data[at:at] = bytes(draw(st.lists(st.integers(0, 255), min_size=1, max_size=64)))
    if kind != "compressed" or not suffix:
        return bytes(data), suffix, True, kind
    packed = gzip.compress(bytes(data)) if suffix == ".gz" else bz2.compress(bytes(data))
    packed = bytearray(packed)
    if draw(st.booleans()):
        del packed[draw(st.integers(0, len(packed) - 1)):]
    else:
        position = draw(st.integers(0, len(packed) - 1))
        packed[position] ^= 1 << draw(st.integers(0, 7))
    return bytes(packed), suffix, False, kind


def _outcome(path):
    """'same' (scikit-learn's matrices) or 'refused' (our one-line DataError)."""
    try:
        ours = read_svmlight(path)
    except DataError as e:
        message = str(e)
        assert message.startswith(path + ": ") and "\n" not in message, message
        return "refused with DataError"
    reference = _scikit_learn(path)
    assert reference is not None, "we read a file scikit-learn refuses"
    assert _same(ours, reference), "we read other matrices than scikit-learn"
    return "same as scikit-learn"


@settings(max_examples=examples(120))
@given(corruptions())
def test_corrupted_text_is_refused_or_read_as_scikit_learn_does(case):
    content, suffix, compress, kind = case
    with tempfile.TemporaryDirectory() as directory:
        path = _write(directory, content, suffix, compress)
        count(SECTION, f"reader: {kind}", _outcome(path))


@pytest.mark.slow  # in CI's slow step: this file's battery stays near a minute
def test_corrupted_files_through_the_command_line_end_in_one_error_line(tmp_path, data_dir):
    """Damaged copies of a shipped file, each through ``dualsvm train`` and ``predict`` in
    one Python process: an exit status of 0 or 1, one line on stderr, never a traceback;
    the process itself must survive them all."""
    rng = np.random.default_rng(16)
    source = (data_dir / "heart_scale").read_bytes()
    files = []
    for k in range(12):
        data = bytearray(source)
        kind = ["flip", "truncate", "nul", "long"][k % 4]
        at = int(rng.integers(len(data)))
        if kind == "flip":
            for position in rng.integers(len(data), size=3):
                data[position] ^= 1 << int(rng.integers(8))
        elif kind == "truncate":
            del data[at:]
        elif kind == "nul":
            data[at:at] = b"\0\xff"
        else:
            data[at:at] = b"1 " + b"9" * 10**6 + b":1\n"
        suffix = ["", ".gz", ".bz2"][k % 3]
        packed = gzip.compress(bytes(data)) if suffix == ".gz" else \
            bz2.compress(bytes(data)) if suffix == ".bz2" else bytes(data)
        if suffix and k % 2:
            packed = packed[: len(packed) * 2 // 3]
        path = tmp_path / f"bad{k}{suffix}"
        path.write_bytes(packed)
        files.append(str(path))
    model = tmp_path / "m"
    script = (
        "import sys\n"
        "from dualsvm.cli import main\n"
        "for f in sys.argv[2:]:\n"
        "    print(main(['train', '-q', f, f + '.model']),"
        " main(['predict', '-q', f, sys.argv[1], f + '.out']), flush=True)\n")
    from dualsvm.cli import main

    assert main(["train", "-q", str(data_dir / "heart_scale"), str(model)]) == 0
    done = subprocess.run([sys.executable, "-c", script, str(model), *files], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    statuses = [line.split() for line in done.stdout.splitlines()]
    assert len(statuses) == len(files)
    assert all(status in ("0", "1") for pair in statuses for status in pair), statuses
    errors = [line for line in done.stderr.splitlines() if line]
    assert len(errors) == sum(pair.count("1") for pair in statuses)
    assert all(line.startswith("dualsvm: error: ") for line in errors), errors
    for pair in statuses:
        for command, status in zip(("train", "predict"), pair):
            count(SECTION, f"command line: {command} a damaged data file",
                  "one error line" if status == "1" else "read and ran")
