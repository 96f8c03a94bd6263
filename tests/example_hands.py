"""Hands shared by the scoring tests, in the JSON form of the examples file."""

# The rules page's first worked example (门清 + 平和 off a discard of 6s): concealed tiles before the win.
PLAIN = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "4s", "5s", "9s", "9s"]


def plain(**changes) -> dict:
    """The PLAIN hand as JSON, with some keys changed or added."""
    d = {"concealed": PLAIN, "win": "6s", "melds": [], "flowers": [], "seat": "E", "round": "E",
         "self_draw": False}
    d.update(changes)
    return d
