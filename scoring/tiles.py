"""Tile codes: 1m..9m 萬, 1p..9p 筒, 1s..9s 條, 1z..7z 東南西北中發白, 1f..8f 梅蘭菊竹春夏秋冬."""

SUITS = ("m", "p", "s")
NUMBERED = tuple(f"{n}{s}" for s in SUITS for n in range(1, 10))
HONOURS = tuple(f"{n}z" for n in range(1, 8))
FLOWERS = tuple(f"{n}f" for n in range(1, 9))
# The 42 faces in their canonical order (also the detector's class order, before `back`).
TILE_CODES = NUMBERED + HONOURS + FLOWERS
