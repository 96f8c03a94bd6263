"""Tiles on their way to a hand: the one module that turns them into the scorer's `Hand`.

A `Draft` is a hand not yet known to be one: the concealed tiles, the winning tile, the melds
(whose kind may still be unknown), the flowers. Each tile is a `Slot` holding its code (None while
unknown, e.g. a concealed kong shown face down) and the id of its row in a photo reading
(`vision.read.Row.id`; None for a tile typed or tapped in), so corrections can be written back as
labelled boxes. The photo reader proposes its readings as Drafts (`vision.read.Proposal.draft`), the
page and the player edit them (every edit returns a new Draft), the typed notation reads into one
(`from_text`); `to_hand` alone turns one into a `Hand`, under the situation of whoever scores it, and
`check_win` says whether its tiles make a legal win at a table whatever the situation.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from scoring.hand import Hand, HandError, Meld, Situation, Table
from scoring.melds import KongOrigin, MeldKind
from scoring.notation import format_compact, parse_hand
from scoring.ruleset import Ruleset
from scoring.tiles import FLOWERS, is_flower, is_honour, rank, suit
from scoring.validate import HAND_SIZE, check_hand

# The most tiles a hand shows: 16 held, the winning tile, one more for each of its kongs (a meld is 3 of the
# 16), the 8 flowers. A typed hand may hold twice as many (a hand pasted twice is read, and told its count);
# more is refused before it is laid out: the page lays out one widget per tile.
HAND_MOST = HAND_SIZE + 1 + HAND_SIZE // 3 + len(FLOWERS)
TYPED_MOST = 2 * HAND_MOST


@dataclass(frozen=True)
class Slot:
    code: str | None  # tile code, None while unknown
    det: int | None = None  # the id of its row in the photo reading (vision.read.Row), None for a tile entered by hand


# The kinds of meld the page offers, in order, by their tiles.
MELD_SIZE = {kind: kind.size for kind in MeldKind}


@dataclass(frozen=True)
class MeldDraft:
    kind: MeldKind | None  # None while the reading could not tell
    tiles: tuple[Slot, ...] = ()
    origin: KongOrigin | None = None  # an open kong's, where said (大明槓 / 加槓)

    def __post_init__(self) -> None:
        # given as codes too ("pon", "added"): held as the values of scoring.melds
        if self.kind is not None:
            object.__setattr__(self, "kind", MeldKind(self.kind))
        if self.origin is not None:
            object.__setattr__(self, "origin", KongOrigin(self.origin))


@dataclass(frozen=True)
class Draft:
    concealed: tuple[Slot, ...] = ()
    win: Slot | None = None
    melds: tuple[MeldDraft, ...] = ()
    flowers: tuple[Slot, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.concealed or self.win or self.melds or self.flowers)

    def slots(self, group: str) -> tuple[Slot, ...]:
        """The tiles of a group: "concealed", "win", "flowers" or "meld:<n>"."""
        if group == "win":
            return () if self.win is None else (self.win,)
        if group.startswith("meld:"):
            return self.melds[meld_index(group)].tiles
        return getattr(self, group)

    def groups(self) -> list[str]:
        return ["concealed", "win", *(f"meld:{m}" for m in range(len(self.melds))), "flowers"]

    def all_slots(self) -> list[Slot]:
        return [s for g in self.groups() for s in self.slots(g)]


def meld_index(group: str) -> int:
    return int(group.split(":", 1)[1])


def _with_slots(draft: Draft, group: str, slots: tuple[Slot, ...]) -> Draft:
    if group == "win":
        return replace(draft, win=slots[0] if slots else None)
    if group.startswith("meld:"):
        m = meld_index(group)
        melds = list(draft.melds)
        melds[m] = replace(melds[m], tiles=slots)
        return replace(draft, melds=tuple(melds))
    if group == "flowers":
        return replace(draft, flowers=slots)
    if group == "concealed":
        return replace(draft, concealed=slots)
    raise ValueError(f"no group of a draft: {group!r}")


# -- edits ---------------------------------------------------------------------------------------
def replace_tile(draft: Draft, group: str, index: int, code: str) -> Draft:
    """Change one tile. A flower goes to the flowers and a face out of them, keeping its box;
    in a concealed kong every tile changes (its tiles are one face, mostly shown face down)."""
    slots = list(draft.slots(group))
    slot = replace(slots[index], code=code)
    if is_flower(code) != (group == "flowers"):
        del slots[index]
        draft = _with_slots(draft, group, tuple(slots))
        target = "flowers" if is_flower(code) else "concealed"
        return _with_slots(draft, target, draft.slots(target) + (slot,))
    if group.startswith("meld:") and draft.melds[meld_index(group)].kind is MeldKind.ANKONG:
        slots = [replace(s, code=code) for s in slots]
    else:
        slots[index] = slot
    return _with_slots(draft, group, tuple(slots))


def remove_tile(draft: Draft, group: str, index: int) -> Draft:
    slots = list(draft.slots(group))
    del slots[index]
    return _with_slots(draft, group, tuple(slots))


def add_tile(draft: Draft, group: str, code: str, det: int | None = None) -> Draft:
    """Add a tapped tile to a group (`det`: its box, for a tile of the photo the reader set apart);
    a flower always goes to the flowers. A tile added as the winning one is the winning tile, and the
    previous winning tile joins the concealed, as `set_win` does: the reader names the row's last
    tile when none lies apart, so adding the winning tile it missed must not drop a tile of the hand."""
    if is_flower(code):
        group = "flowers"
    elif group == "flowers":
        group = "concealed"
    if group == "win":
        kept = () if draft.win is None else (draft.win,)
        return replace(draft, concealed=draft.concealed + kept, win=Slot(code, det))
    return _with_slots(draft, group, draft.slots(group) + (Slot(code, det),))


def set_win(draft: Draft, index: int) -> Draft:
    """Make concealed tile `index` the winning tile; the previous winning tile joins the concealed."""
    concealed = list(draft.concealed)
    chosen = concealed.pop(index)
    if draft.win is not None:
        concealed.insert(index, draft.win)
    return replace(draft, concealed=tuple(concealed), win=chosen)


def set_meld_kind(draft: Draft, m: int, kind: MeldKind | str, spare: int | None = None) -> Draft:
    """Change what a meld is (`kind`: a MeldKind or its code). Three alike turned into a kong get
    their fourth tile: the photo's tile `spare` (a box the reader set apart, `ui.photo.spare_for`)
    when it shows one, else a tile without a box. A tile whose box the draft already holds is never
    added twice. An open kong keeps its origin while it stays one."""
    meld, kind = draft.melds[m], MeldKind(kind)
    tiles = meld.tiles
    codes = {s.code for s in tiles}
    if kind.is_kong and len(tiles) == 3 and len(codes) == 1 and None not in codes:
        held = {s.det for s in draft.all_slots() if s.det is not None}
        tiles = tiles + (Slot(tiles[0].code, None if spare in held else spare),)
    melds = list(draft.melds)
    melds[m] = MeldDraft(kind, tiles, meld.origin if kind is MeldKind.KONG else None)
    return replace(draft, melds=tuple(melds))


def set_kong_origin(draft: Draft, m: int, origin: KongOrigin | str | None) -> Draft:
    """Say where open kong `m` came from (the scorer checks `origin`: an open kong's only)."""
    melds = list(draft.melds)
    melds[m] = replace(melds[m], origin=None if origin is None else KongOrigin(origin))
    return replace(draft, melds=tuple(melds))


def add_meld(draft: Draft, kind: MeldKind | str) -> Draft:
    return replace(draft, melds=draft.melds + (MeldDraft(MeldKind(kind)),))


def remove_meld(draft: Draft, m: int) -> Draft:
    return replace(draft, melds=draft.melds[:m] + draft.melds[m + 1:])


def meld_codes(code: str, kind: MeldKind) -> tuple[str, ...] | None:
    """The codes of the meld of `kind` that `code` makes: a chi's from `code` up (its lowest tile), three or four of
    `code` otherwise; None where there is none (a chi from an honour, or from an 8 or a 9)."""
    if kind is not MeldKind.CHI:
        return (code,) * kind.size
    if is_honour(code) or is_flower(code) or rank(code) > 7:
        return None
    return tuple(f"{rank(code) + k}{suit(code)}" for k in range(3))


def meld_from_concealed(draft: Draft, index: int, kind: MeldKind | str) -> Draft | None:
    """Concealed tile `index` and the concealed tiles it needs taken out as a meld of `kind` (a chi: `index` its
    lowest tile), boxes kept: a meld pushed against the row that the reader read into it, in one tap once a tile of
    it is selected. None where the concealed tiles do not hold it."""
    kind, code = MeldKind(kind), draft.concealed[index].code
    codes = None if code is None else meld_codes(code, kind)
    if codes is None:
        return None
    taken = [index]
    for wanted in codes[1:]:
        k = next((k for k, s in enumerate(draft.concealed) if k not in taken and s.code == wanted), None)
        if k is None:
            return None
        taken.append(k)
    melds = draft.melds + (MeldDraft(kind, tuple(draft.concealed[k] for k in taken)),)
    return replace(draft, concealed=tuple(s for k, s in enumerate(draft.concealed) if k not in taken), melds=melds)


def meld_to_concealed(draft: Draft, m: int) -> Draft:
    """Meld `m` is no meld: its tiles join the concealed tiles, boxes kept (three alike standing in the row, which
    the reader took for a pon, are a concealed 刻子 again in one tap). The winning tile stays the winning tile."""
    return replace(remove_meld(draft, m), concealed=draft.concealed + draft.melds[m].tiles)


# -- to and from the scorer -------------------------------------------------------------------------
def to_hand(draft: Draft, situation: Situation, table: Table | None = None) -> Hand:
    """The scorer's Hand; HandError (in words for the player) when a tile or a meld kind is missing."""
    if draft.empty:
        raise HandError("還沒有牌：拍照、上傳照片或輸入手牌")
    if draft.win is None:
        raise HandError("請選出胡的那張牌")
    melds = []
    for m, meld in enumerate(draft.melds, 1):
        if meld.kind is None:
            raise HandError(f"副露 {m}：請選擇是吃、碰、明槓還是暗槓")
        tiles = _named(meld.tiles)
        if tiles is None:
            raise HandError(f"副露 {m}：請選出是哪張牌")
        melds.append(Meld(meld.kind, tiles, meld.origin))
    concealed, win, flowers = _named(draft.concealed), draft.win.code, _named(draft.flowers)
    if concealed is None or win is None or flowers is None:
        raise HandError("有一張牌還沒選出是哪張")
    return Hand(concealed, win, tuple(melds), flowers, situation, table)


def _named(slots: tuple[Slot, ...]) -> tuple[str, ...] | None:
    """The slots' codes, None where one is not named yet."""
    codes = tuple(s.code for s in slots if s.code is not None)
    return codes if len(codes) == len(slots) else None


def whole_hand(draft: Draft, situation: Situation) -> Hand | None:
    """`to_hand`, or None where the draft is not a whole hand yet (a tile or a meld kind unsaid)."""
    try:
        return to_hand(draft, situation)
    except HandError:
        return None


def check_win(draft: Draft, rules: Ruleset | None = None) -> None:
    """Raise HandError unless the draft's tiles are a legal win at this table (default: the default
    table), in the plain situation: what a photo can tell of a hand, before anyone says how it was won."""
    check_hand(to_hand(draft, Situation()), rules)


def from_hand(hand: Hand) -> Draft:
    return Draft(
        concealed=tuple(Slot(t) for t in hand.concealed),
        win=Slot(hand.win),
        melds=tuple(_meld_draft(m) for m in hand.melds),
        flowers=tuple(Slot(t) for t in hand.flowers),
    )


def from_text(text: str) -> Draft:
    """A typed hand (`scoring.notation.parse_hand`: compact `123m 77z` or Chinese names, 和/胡 before
    the winning tile, 吃/碰/槓/暗槓 before a meld, 花 before flowers); without 和 the last tile wins.
    Raises HandError naming what it cannot read, or more than TYPED_MOST tiles."""
    written = parse_hand(text)
    count = len(written.concealed) + (written.win is not None) + len(written.flowers) \
        + sum(len(m.tiles) for m in written.melds)
    if count > TYPED_MOST:
        raise HandError(f"{count} tiles written: a hand has at most {HAND_MOST} ({HAND_SIZE} held, the winning tile, "
                        f"one more per kong, {len(FLOWERS)} flowers)",
                        f"寫了 {count} 張牌，一手牌最多 {HAND_MOST} 張（手上 {HAND_SIZE} 張、胡的那張、每槓多一張、"
                        f"{len(FLOWERS)} 張花）：一次輸入一手牌")
    concealed, win = list(written.concealed), written.win
    if win is None and concealed:
        win = concealed.pop()
    return Draft(tuple(Slot(t) for t in concealed), None if win is None else Slot(win),
                 tuple(_meld_draft(m) for m in written.melds),
                 tuple(Slot(t) for t in written.flowers))


def _meld_draft(meld: Meld) -> MeldDraft:
    return MeldDraft(meld.kind, tuple(Slot(t) for t in meld.tiles), meld.origin)


def to_text(draft: Draft) -> str:
    """The draft as `from_text` reads it back: `123m 456p 和5s 碰777z 加槓5z 花1f` (an open kong
    by its origin where said: scoring.melds names both)."""
    def known(slots) -> list[str]:
        return [s.code for s in slots if s.code is not None]

    words = [format_compact(known(draft.concealed))] if draft.concealed else []
    if draft.win is not None and draft.win.code is not None:
        words.append(f"和{draft.win.code}")
    words += [f"{(m.origin or m.kind).name_in('traditional')}{format_compact(known(m.tiles))}" for m in draft.melds
              if m.kind is not None and known(m.tiles)]
    if draft.flowers:
        words.append(f"花{format_compact(known(draft.flowers))}")
    return " ".join(words)
