"""One list of correction actions: the application's is the one the reconciler applies."""

from scopa.corrections import CORRECTION_ACTIONS
from vision.reconcile.results import ACTIONS


def test_the_stored_correction_actions_are_the_reconcilers():
    assert CORRECTION_ACTIONS == ACTIONS == ("add", "remove", "move", "confirm")
