"""Command line: `python -m scoring score …` for people, `python -m scoring score --json` for
programs (stdin: a JSON array of hands in the spec's form; stdout: one result per hand).

    python -m scoring score "一万二万三万四万五万六万七万八万九万二筒三筒四筒四条五条九条九条" \\
        --win 6s --winner E --round S --self-draw --base 50 --per-tai 20 --dealer S --streak 1

For people, who won, who dealt and who discarded are seats (E S W N: 东家 南家 西家 北家), as a
table says them; 门风 follows from the winner's seat and the dealer (`scoring.payout`). The JSON
form is the spec's, in winds.
    echo '[{...}, {...}]' | python -m scoring score --json
"""

from __future__ import annotations

import argparse
import json
import sys

from .hand import Hand, HandError, Meld, Situation, brief
from .melds import MeldKind
from .notation import HAND_GRAMMAR, format_chinese, format_compact, parse_hand, parse_tile, parse_tiles
from .payout import Deal, Result, Verdict, judge, seat_hand
from .ruleset import DEFAULT_RULESET, Ruleset, RulesetError, available_rulesets, load_ruleset
from .score import score
from .script import in_script
from .seats import SEATS, Seat, Wind, seat_wind
from .settle import settle
from .tiles import WINDS, sort_tiles


def score_json(hand_json, ruleset: Ruleset | str = DEFAULT_RULESET) -> dict:
    """The contract's result for one hand: items and total (and payments), or an error.
    A hand may name its ruleset (`"ruleset": "tw16-common"`, by file stem or id); the result
    then says which one scored it. An unknown ruleset is that hand's error."""
    try:
        named = None
        if isinstance(hand_json, dict) and "ruleset" in hand_json:
            hand_json = dict(hand_json)
            named = hand_json.pop("ruleset")
            if not isinstance(named, str):
                raise HandError(f"ruleset: expected a ruleset name, got {brief(named)} "
                                f"(available: {', '.join(available_rulesets())})")
            try:
                ruleset = load_ruleset(named)
            except RulesetError as e:
                return {"error": f"ruleset: {e}"}
        hand = Hand.from_json(hand_json)
        result = score(hand, ruleset)
        out = {"items": result.as_dict(), "total": result.total}
        if hand.table is not None:
            out["payments"] = settle(result, hand).net
        if named is not None:
            out["ruleset"] = result.ruleset
        return out
    except HandError as e:
        return {"error": str(e)}
    except Exception as e:  # noqa: BLE001 - one broken hand must not stop the others
        return {"error": f"internal error: {type(e).__name__}: {str(e)[:200]}"}


def _run_json(args) -> int:
    rules = load_ruleset(args.ruleset)  # a broken --ruleset is the whole call's error, not each hand's
    if sys.stdin is None:  # started with standard input closed (`0<&-`)
        print("no input: --json reads a JSON array of hands on standard input, which is closed", file=sys.stderr)
        return 2
    text = sys.stdin.read()
    try:
        hands = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"input is not JSON: {e}", file=sys.stderr)
        return 2
    except ValueError:  # json refuses integers of more than 4,300 digits
        print("input is not JSON we read: a number in it has more than 4,300 digits", file=sys.stderr)
        return 2
    except RecursionError:
        print("input is not JSON we read: nested too deeply", file=sys.stderr)
        return 2
    if not isinstance(hands, list):
        print("input must be a JSON array of hands", file=sys.stderr)
        return 2
    results = [score_json(h, rules) for h in hands]  # the table found once, not per hand
    json.dump(results, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _meld(kind: MeldKind, text: str) -> Meld:
    tiles = parse_tiles(text)
    if len(tiles) == 1 and kind is not MeldKind.CHI:
        tiles = tiles * kind.size
    return Meld(kind, tiles)


def hand_from_args(args) -> Hand:
    """The hand line in the app's notation (`scoring.notation.parse_hand`), with the melds, flowers
    and winning tile the options add; without 和 or --win the last tile wins, as in the app. Its
    门风 is the winner's under the dealer; its table, when payments are asked, is `result_from_args`'."""
    try:
        written = parse_hand(args.hand)
    except HandError as e:
        raise HandError(f"{e}\n  expected {HAND_GRAMMAR}") from e
    concealed, win = list(written.concealed), written.win
    if args.win is not None:
        given = parse_tile(args.win)
        if win is not None and win != given:
            raise HandError(f"the hand says 和{win} but --win says {given}")
        win = given
    elif win is None and concealed:
        win = concealed.pop()
    if win is None:
        raise HandError("no winning tile: end the hand with 和<tile> or give --win")
    melds = [*written.melds, *(_meld(kind, t) for kind in MeldKind for t in getattr(args, kind) or ())]
    flowers = written.flowers + (parse_tiles(args.flowers) if args.flowers else ())
    situation = Situation(
        seat_wind=seat_wind(Seat(args.winner), Seat(args.dealer)).value, round=args.round, self_draw=args.self_draw,
        last_tile=args.last_tile, after_kong=args.after_kong, rob_kong=args.rob_kong, heavenly=args.heavenly,
        earthly=args.earthly, human=args.human, heavenly_ready=args.heavenly_ready,
        earthly_ready=args.earthly_ready, after_flower=args.after_flower,
    )
    return Hand(tuple(concealed), win, tuple(melds), flowers, situation)


def result_from_args(args) -> Result | None:
    """Who won and how, by seat, when payments are asked (--base and --per-tai); None otherwise."""
    given = [x is not None for x in (args.base, args.per_tai)]
    if not any(given):
        if args.discarder is not None:
            raise HandError("--discarder is for payments: give --base and --per-tai too")
        return None
    if not all(given):
        raise HandError("payments need both --base and --per-tai")
    if args.self_draw == (args.discarder is not None):
        raise HandError("payments need --self-draw or --discarder SEAT, one of them")
    deal = Deal(Wind(args.round), Seat(args.dealer), args.streak)
    return Result(deal, Seat(args.winner), None if args.discarder is None else Seat(args.discarder))


def _pad(text: str, width: int) -> str:
    """Pad to a display width, counting a CJK character as two columns."""
    shown = sum(2 if ord(c) > 0x2E7F else 1 for c in text)
    return text + " " * max(1, width - shown)


def _run_people(args) -> int:
    script = "traditional" if args.trad else "simplified"
    trad = args.trad
    try:
        hand, seated = hand_from_args(args), result_from_args(args)
        verdict: Verdict | None = None
        if seated is not None:
            verdict = judge(seat_hand(hand, seated, args.base, args.per_tai, args.ready), seated, args.ruleset)
            result = verdict.score
        else:
            result = score(hand, args.ruleset)
    except HandError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    rules = load_ruleset(args.ruleset)
    if rules.id != load_ruleset(DEFAULT_RULESET).id:
        print(f"{'規則' if trad else '规则'} {rules.id}  {rules.name}")
    print(f"{'手牌':<4} {format_chinese(sort_tiles(hand.concealed), script)} 和"
          f"{format_chinese([hand.win], script)}   "
          f"({format_compact(sort_tiles(hand.concealed))} + {hand.win})")
    for m in hand.melds:
        label = (m.origin or m.kind).name_in(script)  # an open kong by its origin, where said
        print(f"{label:<4} {format_chinese(m.tiles, script)}")
    if hand.flowers:
        print(f"{'花':<4} {format_chinese(sort_tiles(hand.flowers), script)}")
    waits = "、".join(format_chinese([t], script) for t in result.waits)
    print(f"{'聽' if trad else '听':<4} {waits}")
    print()
    for item in result.items:
        name = item.trad if trad else item.name
        print(f"  {_pad(name, 14)}{item.tai:>3} 台")
    if not result.items:
        print("  (屁胡: no entry)")
    print(f"  {_pad('合計' if trad else '合计', 14)}{result.total:>3} 台")
    if verdict is not None:
        _print_payout(verdict, args, script)
    return 0


def _print_payout(verdict: Verdict, args, script: str) -> None:
    """Who pays whom, by seat: 东家 付 170 (3 + 庄家 1 + 连庄 2 = 6 台)."""
    def seat(s: Seat) -> str:
        return in_script(s.zh, script)

    r, payout = verdict.result, verdict.payout
    print()
    print(in_script(f"底 {args.base} 每台 {args.per_tai}; 莊家 ", script) + seat(r.deal.dealer)
          + in_script(f", 連莊 {r.deal.streak}; ", script) + seat(r.winner)
          + in_script(f" 胡 (門風 {r.winner_wind.zh})", script))
    trad_names = {n: tr for n, tr in load_ruleset(args.ruleset).settlement.names.values()}
    for p in payout.payments:
        extras = "".join(f" + {trad_names.get(n, n) if args.trad else n} {v}" for n, v in p.extras)
        print(f"  {seat(p.payer)} 付 {p.amount}  ({verdict.score.total}{extras} = {p.tai} 台)")
    print("  " + "  ".join(f"{seat(s)} {payout.net[s]:+d}" if payout.net[s] else f"{seat(s)} 0" for s in SEATS))


def _run_rules(args) -> int:
    if args.list:
        for name in available_rulesets():
            r = load_ruleset(name)
            opts = f"  (options: {', '.join(r.available_options)})" if r.available_options else ""
            print(f"{_pad(name, 18)}{r.name}{opts}")
        return 0
    rules = load_ruleset(args.ruleset)
    print(f"{rules.id}: {rules.name or rules.title}")
    for e in rules.entries:
        name = e.trad if args.trad else e.name
        tai = f"{e.tai:>3}" if e.tai_open is None else f"{e.tai}/{e.tai_open}".rjust(3)
        ex = f"  (cancels {', '.join(e.excludes)})" if e.excludes else ""
        print(f"  {_pad(name, 12)}{tai} 台  {e.rule}{ex}")
        if e.decision:
            print(f"  {'':12}     decision: {e.decision}")
    if rules.settlement.rule:
        print(f"  settlement: {rules.settlement.rule}")
    if rules.min_tai:
        print(f"  起胡: at least {rules.min_tai} 台")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m scoring", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("score", help="score a hand (or, with --json, an array of hands)")
    s.add_argument("hand", nargs="?", help="concealed tiles: 一万二万… / 123m 456p 77z")
    s.add_argument("--json", action="store_true", help="read a JSON array of hands on stdin")
    s.add_argument("--win", help="the winning tile (6s, 六条)")
    seats = [s.code for s in SEATS]
    s.add_argument("--winner", choices=seats, default="E",
                   help="who won, a seat: E S W N = 东家 南家 西家 北家 (default E); 门风 follows from the dealer")
    s.add_argument("--round", choices=WINDS, default="E", help="圈风 (default E)")
    s.add_argument("--self-draw", action="store_true", help="自摸 (else off a discard)")
    for kind in MeldKind:
        s.add_argument(f"--{kind}", action="append", metavar="TILES",
                       help=f"a {kind} meld (repeatable): 123m / 一万二万三万; one tile for pon/kong")
    s.add_argument("--flowers", help="梅兰菊竹春夏秋冬 / 1f2f")
    s.add_argument("--last-tile", action="store_true", help="海底/河底")
    s.add_argument("--after-kong", action="store_true", help="杠上开花")
    s.add_argument("--rob-kong", action="store_true", help="抢杠")
    s.add_argument("--heavenly", action="store_true", help="天和")
    s.add_argument("--earthly", action="store_true", help="地胡 (non-dealer, self-drawn on the first draw)")
    s.add_argument("--human", action="store_true", help="人胡 (off a discard in the first go-round)")
    s.add_argument("--heavenly-ready", action="store_true", help="天听 declared")
    s.add_argument("--earthly-ready", action="store_true", help="地听 declared")
    s.add_argument("--after-flower", action="store_true",
                   help="self-drawn on the replacement after a flower (杠上开花 where the table counts it)")
    s.add_argument("--base", type=int, help="底")
    s.add_argument("--per-tai", type=int, help="每台")
    s.add_argument("--dealer", choices=seats, default="E", help="庄家, a seat (default E)")
    s.add_argument("--streak", type=int, default=0, help="连庄 count")
    s.add_argument("--discarder", choices=seats, help="who discarded the winning tile, a seat (payments)")
    s.add_argument("--ready", action="store_true", help="听牌 declared before winning")
    s.add_argument("--trad", action="store_true", help="print in traditional characters")
    s.add_argument("--ruleset", default=DEFAULT_RULESET,
                   help=f"one of {', '.join(available_rulesets())} (house options: NAME+OPTION)")

    r = sub.add_parser("rules", help="print the 台 table of a ruleset")
    r.add_argument("--ruleset", default=DEFAULT_RULESET)
    r.add_argument("--trad", action="store_true")
    r.add_argument("--list", action="store_true", help="list the rulesets")

    args = p.parse_args(argv)
    try:
        if args.command == "rules":
            return _run_rules(args)
        if args.json:
            return _run_json(args)
        if args.hand is None:
            p.error("score needs a hand (or --json); a flower win: '' --win 冬 --flowers …")
        return _run_people(args)
    except RulesetError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
