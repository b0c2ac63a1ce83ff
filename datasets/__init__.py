"""Synthetic training data for the card detector and identifier (import name `scopa_datasets`).

`scenes` draws photos of captured piles on tables, `build` writes them as ultralytics datasets.
"""
