"""The one error type the whole project raises for bad input."""


class ScopaError(ValueError):
    """Bad input: the message is one line that names the card, side, field or file at fault."""
