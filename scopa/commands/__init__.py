"""Sub-commands of `scopa`; each module exposes `register(subparsers)`."""
