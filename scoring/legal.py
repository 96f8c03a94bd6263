"""Is this a winning hand, by its tile counts alone, in microseconds: for a search that asks it
of thousands of candidate hands (the photo reader), and the first test of `check_hand`.

    from scoring.legal import can_win
    from scoring.decompose import counts_of
    counts = counts_of([*concealed, win])            # 34 counts, tiles.PLAYING order
    can_win(counts, n_melds=1)                       # 5 sets and a pair, the default table
    can_win(counts, 0, load_ruleset("tw16-common").shapes)   # also 八對半 / 十三么 by count

The standard shape is read suit by suit from the memoised per-suit tables of
`scoring.decompose`. A special shape (`"pairs"`: seven pairs and one set; `"orphans"`: the
thirteen 么九 tiles, one twice, and one set; the set may be the one meld) is tested on the
counts only; what else its table's entry asks (瀝咕瀝咕's pung and 门清, 大车轮's 2-8筒) is
`check_hand`'s, as are the melds' own tiles (a fifth copy across hand and melds).
"""

from __future__ import annotations

from .decompose import is_complete
from .reading import special_shape_possible
from .tiles import COPIES

HAND_TILES = 17  # concealed tiles and the winning tile with no meld; each meld takes 3


def can_win(counts, n_melds: int, shapes: frozenset[str] = frozenset()) -> bool:
    """Whether 34 counts of the concealed tiles with the winning tile (`tiles.PLAYING` order)
    win beside `n_melds` melds: 5 sets and a pair, or a shape of `shapes` (a ruleset's
    `rules.shapes`; "flowers" is no shape of tiles and is ignored). A count over 4 never wins."""
    if len(counts) != 34 or not 0 <= n_melds <= 5 or sum(counts) != HAND_TILES - 3 * n_melds:
        return False
    if max(counts) > COPIES:
        return False
    if is_complete(counts):
        return True
    return bool(shapes) and n_melds <= 1 and special_shape_possible(list(counts), n_melds == 1, shapes)
