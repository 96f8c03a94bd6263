"""scoring.melds: the one vocabulary of meld kinds and kong origins, as the hand, the notation,
the checks and the CLI use it."""

import json
import subprocess
import sys

import pytest

from scoring.hand import Hand, HandError, Meld
from scoring.melds import GroupKind, GroupRole, KongOrigin, MeldKind, kong_origin, meld_kind
from scoring.notation import parse_hand
from scoring.tiles import SCRIPTS
from scoring.validate import check_hand


@pytest.mark.parametrize("kind", list(MeldKind))
@pytest.mark.parametrize("script", SCRIPTS)
def test_a_kinds_name_reads_back_as_that_kind(kind, script):
    tiles = ("2p", "3p", "4p") if kind is MeldKind.CHI else ("2p",) * kind.size
    written = parse_hand(f"123m 和1m {kind.name_in(script)}{''.join(t[0] for t in tiles)}p")
    assert [(m.kind, m.tiles, m.origin) for m in written.melds] == [(kind, tiles, None)]


@pytest.mark.parametrize("origin", list(KongOrigin))
@pytest.mark.parametrize("script", SCRIPTS)
def test_an_origins_name_reads_back_as_an_open_kong_of_that_origin(origin, script):
    (meld,) = parse_hand(f"123m 和1m {origin.name_in(script)}東").melds
    assert (meld.kind, meld.origin) == (MeldKind.KONG, origin)


def test_a_meld_given_codes_holds_the_kinds_and_writes_plain_json():
    meld = Meld("kong", ("5z",) * 4, "added")
    assert meld.kind is MeldKind.KONG and meld.origin is KongOrigin.ADDED
    assert meld == Meld(MeldKind.KONG, ("5z",) * 4, KongOrigin.ADDED)
    data = meld.to_json()
    assert data == {"type": "kong", "tiles": ["5z"] * 4, "origin": "added"}
    assert type(data["type"]) is str and type(data["origin"]) is str
    assert Meld.from_json(json.loads(json.dumps(data))) == meld


@pytest.mark.parametrize("kind", list(MeldKind))
def test_what_a_kind_says_is_what_the_scorer_checks(kind):
    """size: a meld of one tile fewer is refused; is_open: only an open meld breaks 门清."""
    tiles = ("3m", "4m", "5m") if kind is MeldKind.CHI else ("3m",) * kind.size
    rest = ["1p", "1p", "1p", "2p", "2p", "2p", "3p", "3p", "3p", "4p", "4p", "4p", "9s"]
    hand = Hand.from_json({"concealed": rest, "win": "9s", "seat": "E", "round": "E", "self_draw": True,
                           "melds": [{"type": kind.value, "tiles": list(tiles)}]})
    check_hand(hand)
    assert hand.melds[0].is_open is kind.is_open
    with pytest.raises(HandError, match=f"has {kind.size} tiles, not {kind.size - 1}"):
        check_hand(hand.replace(melds=(Meld(kind, tiles[:-1]),)))


@pytest.mark.parametrize("bad", ["x", "", ["chi"], 3, None, {"type": "pon"}])
def test_anything_else_is_no_kind_and_a_clear_error(bad):
    assert meld_kind(bad) is None and kong_origin(bad) is None
    with pytest.raises(HandError, match="is not one of chi, pon, kong, ankong"):
        Meld.from_json({"type": bad, "tiles": ["1m"] * 3})
    with pytest.raises(HandError, match="is not one of called, added"):
        Meld.from_json({"type": "kong", "tiles": ["1m"] * 4, "origin": bad or "?"})


@pytest.mark.parametrize("trad, label", [(False, "加杠"), (True, "加槓")])
def test_the_cli_names_a_kong_by_its_origin(trad, label):
    argv = [sys.executable, "-m", "scoring", "score", "123m 456p 789s 23s 99p 和1s 加槓中", "--self-draw"]
    out = subprocess.run(argv + (["--trad"] if trad else []), capture_output=True, text=True, check=True).stdout
    assert any(line.startswith(label) for line in out.splitlines()), out


def test_a_meld_read_again_is_the_same_value_and_a_wrong_one_is_refused_however_often_a_like_one_was_read():
    good = {"type": "kong", "tiles": ["3p"] * 4, "origin": "called"}
    assert Meld.from_json(good) == Meld.from_json(dict(good)) == Meld("kong", ("3p",) * 4, "called")
    assert Meld.from_json({"type": "chi", "tiles": ["3m", "1m", "2m"]}).tiles == ("3m", "1m", "2m")  # as written
    for wrong, message in (({**good, "colour": "red"}, "unknown key"), ({**good, "origin": "added!"}, "origin"),
                           ({**good, "type": "pon"}, "only an open kong"), ({**good, "tiles": ["3p"] * 3 + [[]]},
                                                                             r"tiles\[3\]")):
        with pytest.raises(HandError, match=message):
            Meld.from_json(wrong)
    assert Hand.from_json({"concealed": ["1m", "2m", "3m", "4p"], "win": "4p", "seat": "E", "round": "E",
                           "melds": [good] * 3 + [{"type": "pon", "tiles": ["5z"] * 3}]}).melds[:3] == (
        Meld.from_json(good),) * 3


def test_a_groups_kind_is_a_meld_kind_where_it_is_a_meld_and_writes_the_same_word():
    """One vocabulary from photo to ledger: a reading's group of a meld names the meld the hand holds."""
    assert {k.meld for k in GroupKind} - {None} == set(MeldKind)
    for kind in MeldKind:
        assert GroupKind(kind) == kind and GroupKind(kind).meld is kind and json.dumps(GroupKind(kind)) == f'"{kind}"'
    assert [k for k in GroupKind if k.meld is None] == [GroupKind.CONCEALED, GroupKind.FLOWERS, GroupKind.UNKNOWN]
    assert [r.value for r in GroupRole] == ["hand", "apart"]
