"""Application layer of the Scopa score assistant: command line, storage, translations.

The libraries it calls are `scoring` (the pure rules engine), `vision` (recognition and the
40-card reconciliation) and `scopa_datasets` (synthetic training data, in the `datasets/` folder).
"""

__version__ = "0.1.0"
