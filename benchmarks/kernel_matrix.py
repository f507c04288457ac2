"""The kernel benchmark's matrix of cache sizes and thread counts, summarised on one page.

Reads the runs of ``bench_kernel.py --part tuned`` (or ``default``) that a directory holds,
one subdirectory a configuration (``PART_<MB>mb_<T>thread``, as written by
``--output-dir DIR/PART_<MB>mb_<T>thread``), and writes ``DIR/README.md``: for each
configuration, ``SVC()`` against the fastest peer (median and largest over the sets),
and for each set and thread count ``SVC()``'s seconds at every cache size with their
ratio to its 100 MB time (issue #38's marks: <= 1.0 of the fastest peer everywhere,
<= 1.1 x the 100 MB time at 1000 MB)::

    python benchmarks/kernel_matrix.py benchmarks/results/kernel_matrix_avx512
"""

import argparse
import json
import re
import statistics
from pathlib import Path

CONFIG = re.compile(r"(?P<part>\w+?)_(?P<mb>\d+)mb_(?P<threads>\d+)thread$")


def runs(directory):
    """{(part, mb, threads): the run's JSON} of the configurations in ``directory``."""
    found = {}
    for sub in sorted(Path(directory).iterdir()):
        match = CONFIG.match(sub.name)
        files = list(sub.glob("kernel*.json"))
        if match and files:
            key = (match["part"], int(match["mb"]), int(match["threads"]))
            found[key] = json.loads(files[0].read_text())
    return found


def page(found):
    lines = ["# The kernel benchmark at every cache size and thread count", ""]
    machine = next(iter(found.values()))["machine"]
    lines += ["Made by `python benchmarks/kernel_matrix.py DIR` from the runs below (each run's "
              "date, git commit and versions are in its own page). Machine: "
              f"{machine['nproc']} CPUs, {machine['cpu']} ({' '.join(machine['cpu_flags'])}), "
              f"{machine['platform']}", "",
              "| configuration | command | sets | SVC() / fastest peer: median | largest |",
              "|---|---|---:|---:|---|"]
    for (part, mb, threads), record in sorted(found.items()):
        ratios = {r["dataset"]: r["dualsvm"]["ratio_fastest_peer"] for r in record["results"]}
        worst = max(ratios, key=ratios.get)
        lines.append(f"| {part}, {mb} MB, {threads} thread{'s' * (threads > 1)} | "
                     f"`{record.get('command', '')}` | {len(ratios)} | "
                     f"{statistics.median(ratios.values()):.2f} | {ratios[worst]:.2f} ({worst}) |")
    for part in sorted({p for p, _, _ in found}):
        for threads in sorted({t for p, _, t in found if p == part}):
            sizes = sorted(mb for p, mb, t in found if p == part and t == threads)
            lines += ["", f"## {part}, {threads} thread{'s' * (threads > 1)}: SVC() seconds "
                      "by cache size (ratio to its 100 MB time)", "",
                      "| data | " + " | ".join(f"{mb} MB" for mb in sizes) + " |",
                      "|---|" + "---:|" * len(sizes)]
            by_size = {mb: {r["dataset"]: r["dualsvm"]["seconds"]
                            for r in found[part, mb, threads]["results"]} for mb in sizes}
            for name in by_size[sizes[0]]:
                base = by_size.get(100, {}).get(name)
                cells = []
                for mb in sizes:
                    seconds = by_size[mb].get(name)
                    ratio = f" ({seconds / base:.2f})" if base and seconds and mb != 100 else ""
                    cells.append("" if seconds is None else f"{seconds:.2f}{ratio}")
                lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    args = parser.parse_args()
    (args.directory / "README.md").write_text(page(runs(args.directory)))
    print(f"wrote {args.directory / 'README.md'}")


if __name__ == "__main__":
    main()
