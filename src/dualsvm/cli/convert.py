"""``dualsvm convert``: svmlight files into an on-disk dataset for out-of-core training."""

import os

from ..outofcore import convert
from .parser import CommandError
from .report import Reporter


def run(args):
    if os.path.exists(args.directory) and not (os.path.isdir(args.directory)
                                               and not os.listdir(args.directory)):
        raise CommandError(f"{args.directory}: exists and is not an empty directory")
    say = Reporter(args.quiet)
    dataset = convert(args.inputs, args.directory, block_mb=args.block_mb, poly2=args.poly2,
                      replicas=args.replicas, perturbation=args.perturbation,
                      shuffle=args.shuffle, seed=args.seed,
                      n_features=args.n_features, progress=None if args.quiet else say)
    say(f"{dataset}: {dataset.disk_nbytes / 2**20:.1f} MB on disk, "
        f"{dataset.nbytes / 2**20:.1f} MB in memory")
    return 0
