"""The `scopa` command line: a thin dispatcher over the libraries.

Each sub-command lives in `scopa/commands/<group>.py`, which exposes `register(subparsers)`;
a command's handler returns an exit status. Any `ScopaError` becomes a one-line message on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from scoring.errors import ScopaError

# Command groups, imported lazily so that `scopa score-hand` never pays for torch.
COMMAND_MODULES = ("score", "vision", "photos", "tournament")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scopa",
        description="Score assistant for Scopa and Scopa d'Assi.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"scopa.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except ScopaError as exc:
        print(f"scopa {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, RecursionError, MemoryError) as exc:
        # A last resort for bad input no check above named: one line, never a traceback.
        reason = (str(exc).strip().splitlines() or [""])[0]
        print(f"scopa {args.command}: error: {type(exc).__name__}: {reason}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"scopa {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
