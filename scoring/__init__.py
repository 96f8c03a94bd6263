"""Scoring core for Taiwan 16-tile mahjong: tiles → hand → splits and waits → 台 entries →
ruleset tables → settlement.

Pure Python; imports nothing from vision, datasets or any CV/ML library.

    from scoring import Hand, score, settle
    hand = Hand.from_json({...})          # the spec's JSON form
    result = score(hand)                  # Score: items in display order, total, waits
    result.as_dict()                      # {"门清": 1, "平和": 2}
    settle(result, hand).net              # {"E": 810, "S": -310, ...} (needs hand.table)
"""

from .hand import Hand, HandError, Meld, Situation, Table
from .notation import format_chinese, format_compact, parse_tile, parse_tiles
from .random_hands import random_winning_hand
from .ruleset import DEFAULT_RULESET, Ruleset, available_rulesets, load_ruleset
from .score import Item, Score, score
from .validate import check_hand

__all__ = [
    "DEFAULT_RULESET", "Hand", "HandError", "Item", "Meld", "Ruleset", "Score", "Situation",
    "Table", "available_rulesets", "check_hand", "format_chinese", "format_compact",
    "load_ruleset", "parse_tile", "parse_tiles", "random_winning_hand", "score",
]
