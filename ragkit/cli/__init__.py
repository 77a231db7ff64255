"""``python -m ragkit``: ingest files and URLs, inspect indexes, search, ask, and evaluate pipelines.

Every ``RagkitError`` is caught here and printed as one line on stderr; exit codes are 0 (ok),
1 (some input failed or an error occurred), 2 (bad command line), 130 (interrupted).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from ragkit import __version__
from ragkit.cli import eval_cmds, index_cmds, query_cmds, question_cmds, sweep_cmds
from ragkit.core.errors import RagkitError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ragkit", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"ragkit {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True)
    for commands in (index_cmds, query_cmds, eval_cmds, sweep_cmds, question_cmds):
        commands.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        return int(args.func(args) or 0)
    except RagkitError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: the index was left as it was before this command", file=sys.stderr)
        return 130
