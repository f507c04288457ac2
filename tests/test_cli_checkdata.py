"""``dualsvm checkdata`` against Debian's svm-checkdata (LIBSVM's checkdata.py), and the
line checker it shares with the reader's error messages."""

import bz2
import re

import pytest

from dualsvm import cli
from dualsvm.data.svmlight import line_problems, read_svmlight
from dualsvm.exceptions import DataError
from libsvm_tools import plain_copy, run_tool

#: A line of every kind of problem (labels, pairs, order, duplicates, values, NaN and
#: infinity, empty lines, comments, qid, no final newline) and good lines of LIBSVM's
#: odd forms (index 0 of precomputed kernels, multi-label, tabs, CRLF).
ERROR_FILE = "checkdata_errors.txt"


def run(capsys, *argv):
    status = cli.main(["checkdata", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def problems_by_line(report):
    """{line number: number of problems} of a checkdata report, and its last line."""
    counts = {}
    lines = report.splitlines()
    for line in lines[:-1]:
        number = int(re.match(r"line (\d+): ", line).group(1))
        counts[number] = counts.get(number, 0) + 1
    return counts, lines[-1]


def test_error_file_flags_what_svm_checkdata_flags(capsys, data_dir):
    their_status, theirs, _ = run_tool("svm-checkdata", data_dir / ERROR_FILE)
    status, ours, err = run(capsys, data_dir / ERROR_FILE)
    assert status == their_status == 1 and err == ""
    our_counts, our_summary = problems_by_line(ours)
    their_counts, their_summary = problems_by_line(theirs)
    # the same lines, each with as many problems, and the same summary line
    assert our_counts == their_counts and our_summary == their_summary
    assert len(our_counts) >= 20 and our_summary == f"Found {len(our_counts)} lines with error."


@pytest.mark.parametrize("name", ["svmguide1", "a9a", "svmguide1.t"])
def test_good_files_have_no_error(capsys, tmp_path, data_dir, name):
    status, out, _ = run_tool("svm-checkdata", plain_copy(data_dir, name, tmp_path))
    assert (status, out) == (0, "No error.\n")
    assert run(capsys, data_dir / f"{name}.bz2") == (0, "No error.\n", "")


def test_compressed_file_is_checked_as_its_text(capsys, tmp_path, data_dir):
    packed = tmp_path / "errors.bz2"
    packed.write_bytes(bz2.compress((data_dir / ERROR_FILE).read_bytes()))
    assert run(capsys, packed) == run(capsys, data_dir / ERROR_FILE)


def test_the_reader_reports_the_first_problem_of_the_same_check(tmp_path, data_dir):
    """Every line of the error file that the reader refuses is refused with the first
    problem line_problems finds (in the reader's grammar: comments, qid, blank lines
    allowed; indices from 1), and its line number."""
    refused = 0
    for raw in (data_dir / ERROR_FILE).read_bytes().split(b"\n"):
        path = tmp_path / "one"
        path.write_bytes(b"1 1:1\n" + raw + b"\n")
        problems = line_problems(raw)
        if not problems:
            continue
        refused += 1
        with pytest.raises(DataError) as info:
            read_svmlight(path)
        assert str(info.value) == f"{path}: line 2: {problems[0]}"
    assert refused >= 12


@pytest.mark.parametrize("line, libsvm_problems, reader_problems", [
    (b"1 0:1 1:2\n", [], ["feature index 0 (indices start at 1)"]),
    (b"1 1:1 # note\n", ["expected index:value, got '#'", "expected index:value, got 'note'"], []),
    (b"1 qid:2 1:1\n", ["feature index 'qid' is not an integer"], []),
    (b"1,2 1:1\n", [], ["label '1,2' is not a number"]),
    (b"\n", ["no label (an empty line?)"], []),
    (b"1 1:1", ["no newline at the end of the line (the file's last line)"], []),
    (b"1 3:1 3:2\n", ["feature index 3 appears twice"], ["feature index 3 appears twice"]),
    # C's strtod: 1e999 overflows (svm-train refuses it; checkdata.py does not)
    (b"1 1:1e999 2:nan\n", ["feature value '1e999' is NaN or infinite",
                             "feature value 'nan' is NaN or infinite"], []),
])
def test_the_two_grammars(line, libsvm_problems, reader_problems):
    assert line_problems(line, libsvm=True) == libsvm_problems
    assert line_problems(line.rstrip(b"\n")) == reader_problems


def test_missing_file_and_directory_are_one_error_line(capsys, tmp_path):
    for path, words in ((tmp_path / "missing", "no such file"), (tmp_path, "is a directory")):
        status, out, err = run(capsys, path)
        assert status == 1 and out == "" and words in err and len(err.splitlines()) == 1


def test_binary_file_is_flagged_by_line(capsys, tmp_path):
    path = tmp_path / "binary"
    path.write_bytes(b"1 1:1\n\x7fELF\x00\x01\n\xff\xfe 1:1\n")
    status, out, _ = run(capsys, path)
    assert status == 1 and out.splitlines() == [
        "line 2: binary data, not svmlight/LIBSVM text",
        "line 3: not UTF-8 text (a binary file?)", "Found 2 lines with error."]
