"""Generated flower tiles in many designs (training/flower_faces.py): every design shows what identifies its
flower across sets, its character or its number (梅蘭菊竹 and 春夏秋冬 numbered 1-4), never another flower's;
the crops are the classifier's crops, reproducible from their seed; the command line refuses bad input."""

import os
import subprocess
import sys

import albumentations as A
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from datasets.tile_faces import FACE_H, FACE_W, FLOWER_CHARS, FONT_DIR, FONT_FILES
from training import flower_faces as ff
from training.font_subsets import DRAWN, write_subset
from vision.classes import CLASS_INDEX, CLASSES
from vision.crop_classifier import CROP_H, CROP_W

REPO = ff.Path(__file__).resolve().parents[1]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_a_design_shows_its_flowers_character_or_number_and_no_other(n, seed):
    design = ff.flower_design(f"{n}f", np.random.default_rng(seed))
    assert design["char"] is not None or design["number"] is not None
    if design["char"] is not None:
        assert design["char"] in {FLOWER_CHARS[n - 1], ff.SIMPLIFIED.get(FLOWER_CHARS[n - 1])}
    if design["number"] is not None:  # 梅1 蘭2 菊3 竹4, 春1 夏2 秋3 冬4, in any of the number forms
        assert design["number"] in {form[(n - 1) % 4] for form in ff.NUMBER_FORMS}


def test_the_eight_flowers_numbers_pair_each_group_of_four():
    numbers = {}
    for n in range(1, 9):
        rng = np.random.default_rng(n)
        digits = {d["number"] for d in (ff.flower_design(f"{n}f", rng) for _ in range(200)) if d["number"]}
        numbers[FLOWER_CHARS[n - 1]] = digits & set("1234")
    assert numbers == {"梅": {"1"}, "蘭": {"2"}, "菊": {"3"}, "竹": {"4"}, "春": {"1"}, "夏": {"2"}, "秋": {"3"},
                       "冬": {"4"}}


def test_designs_vary_in_font_layout_and_form():
    rng = np.random.default_rng(0)
    designs = [ff.flower_design("3f", rng) for _ in range(1000)]  # every one of 55 fonts drawn
    assert len({d["font"] for d in designs}) == len(ff.fonts())
    assert {d["layout"] for d in designs} == {0, 1, 2}
    circled = {"③"} if any(ff.drawable("③", font) for font in ff.fonts()) else set()  # not in the vendored fonts
    assert {d["number"] for d in designs} >= {"3", "三", None} | circled
    # each shows only what its font draws: without the machine's CJK fonts, 兰 and ③ fall back to 蘭 and 3
    assert all(ff.drawable(d[k], d["font"]) for d in designs for k in ("char", "number") if d[k])


def test_every_flower_face_is_drawn():
    rng = np.random.default_rng(1)
    for n in range(1, 9):
        face = ff.flower_face(f"{n}f", rng)
        assert face.shape == (FACE_H, FACE_W, 4)
        assert (face[:, :, 3] > 128).mean() > 0.03  # ink covers part of the face


def test_crops_cycle_the_eight_flowers_and_repeat_from_their_seed():
    x, y = ff.flower_crops(16, seed=3)
    assert x.shape == (16, CROP_H, CROP_W, 3) and x.dtype == np.uint8
    assert list(y) == [CLASS_INDEX[f"{n}f"] for n in range(1, 9)] * 2
    again, _ = ff.flower_crops(16, seed=3)
    other, _ = ff.flower_crops(16, seed=4)
    assert np.array_equal(x, again) and not np.array_equal(x, other)
    assert x.std() > 20  # a tile with ink on a table, not a blank crop


def test_a_sets_eight_flowers_share_one_design_and_differ_in_their_own_marks():
    """`flower_set`: one body, font, layout and number form for the eight, each flower its own face; the same
    seed draws the same set."""
    sprites = ff.flower_set(np.random.default_rng(5))
    assert len(sprites) == 8 and len({s.shape for s in sprites}) == 1
    corner = {tuple(s[3, sprites[0].shape[1] // 2]) for s in sprites}  # the body's edge, above the face
    assert len(corner) == 1
    faces = [s[:, :, :3].astype(np.int16) for s in sprites]
    assert all(np.abs(faces[i] - faces[j]).mean() > 1 for i in range(8) for j in range(i + 1, 8))
    design = int(np.random.default_rng(5).integers(2**63))
    drawn = [ff.flower_design(f"{n}f", np.random.default_rng([design, 1])) for n in range(1, 9)]
    assert len({(d["layout"], d["font"]) for d in drawn}) == 1
    assert all(np.array_equal(a, b) for a, b in zip(sprites, ff.flower_set(np.random.default_rng(5)), strict=True))


def test_set_crops_come_set_by_set_each_flower_seen_in_several_views():
    x, y, group = ff.flower_set_crops(3, seed=2, views=2)
    assert x.shape == (48, CROP_H, CROP_W, 3) and x.dtype == np.uint8
    assert list(y[:16]) == [CLASS_INDEX[f"{n}f"] for n in range(1, 9) for _ in range(2)]
    assert list(group) == [k for k in range(3) for _ in range(16)]
    assert not np.array_equal(x[0], x[1])  # two views of one tile
    again = ff.flower_set_crops(3, seed=2, views=2)[0]
    assert np.array_equal(x, again)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_photographed_tile_keeps_its_box_about_it(seed):
    """`photographed` tilts, turns and lights the canvas; the box it gives is the tile's as the photo shows it:
    it holds all of the tile and little else."""
    image = np.zeros((120, 150, 3), np.uint8)
    image[30:90, 50:100] = 255
    out, box = ff.photographed(image, np.float32([50, 30, 100, 90]), np.random.default_rng(seed), A.Compose([]))
    assert out.shape == image.shape and out.dtype == np.uint8
    x1, y1, x2, y2 = box
    assert 0 <= x1 < x2 <= 150 and 0 <= y1 < y2 <= 120
    tile = out[:, :, 0] > 127
    inside = tile[int(np.floor(y1)):int(np.ceil(y2)) + 1, int(np.floor(x1)):int(np.ceil(x2)) + 1].sum()
    assert inside >= 0.99 * tile.sum() and inside >= 0.6 * (x2 - x1) * (y2 - y1)


def test_the_command_writes_sets_with_their_group_and_refuses_honours_among_them(tmp_path):
    out = tmp_path / "s.npz"
    done = subprocess.run([sys.executable, "-m", "training.flower_faces", "--sets", "2", "--views", "3", "--out",
                           str(out)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = np.load(out)
    assert data["x"].shape[0] == 48 and list(np.bincount(data["group"])) == [24, 24]
    refused = subprocess.run([sys.executable, "-m", "training.flower_faces", "--sets", "2", "--honours", "0.2",
                              "--out", str(tmp_path / "t.npz")], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "--honours goes with --count" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "t.npz").exists()


def test_honours_drawn_the_same_way_are_the_flowers_foils():
    """With `honours`, that share of the crops are 東南西北中發 in the flowers' fonts and inks (a large character
    alone is an honour, not a flower), and every flower still comes in turn."""
    x, y = ff.flower_crops(48, seed=1, honours=0.25)
    codes = [CLASSES[int(c)] for c in y]
    assert sorted(set(codes)) == sorted([f"{n}f" for n in range(1, 9)] + [f"{n}z" for n in range(1, 7)])
    assert sum(c.endswith("z") for c in codes) == 12 and all(codes.count(f"{n}f") >= 4 for n in range(1, 9))
    for n in range(1, 7):
        face = ff.honour_face(f"{n}z", np.random.default_rng(n))
        assert (face[:, :, 3] > 128).mean() > 0.01  # its character is drawn (in a light face, thin)


def test_the_command_writes_crops_and_a_sheet(tmp_path):
    out, sheet = tmp_path / "f.npz", tmp_path / "f.png"
    done = subprocess.run([sys.executable, "-m", "training.flower_faces", "--count", "10", "--out", str(out),
                           "--sheet", str(sheet)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = np.load(out)
    assert data["x"].shape == (10, CROP_H, CROP_W, 3) and sheet.stat().st_size > 1000


def test_the_command_refuses_a_count_below_one(tmp_path):
    done = subprocess.run([sys.executable, "-m", "training.flower_faces", "--count", "0", "--out",
                           str(tmp_path / "f.npz")], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "--count must be at least 1" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "f.npz").exists()


def test_a_font_subset_draws_the_characters_the_whole_font_draws(tmp_path):
    whole, cut = str(FONT_DIR / FONT_FILES[0]), tmp_path / "cut.otf"
    write_subset(FONT_DIR / FONT_FILES[0], cut)
    for char in DRAWN:
        assert ff.drawable(char, (str(cut), 0)) == ff.drawable(char, (whole, 0)), char
        if ff.drawable(char, (whole, 0)):
            a, b = ff.glyph(char, (whole, 0)).astype(float), ff.glyph(char, (str(cut), 0)).astype(float)
            assert a.shape == b.shape and np.abs(a - b).sum() <= 0.05 * a.sum(), char
    assert not ff.drawable("萬", (str(cut), 0))  # in the whole font, not drawn by flower_faces: cut


def test_the_setting_names_the_fonts_to_draw_with_and_the_command_cuts_them(tmp_path):
    """A machine without the fonts (a lent GPU) gets subsets at the fonts' relative paths under TAISHU_FONTS."""
    root, out = tmp_path / "root", tmp_path / "cut"
    name = next(path for path, faces in ff.SYSTEM_FONTS if faces == (0,))  # a font of one face
    placed = root / name
    placed.parent.mkdir(parents=True)
    placed.write_bytes((FONT_DIR / FONT_FILES[1]).read_bytes())
    env = {**os.environ, "TAISHU_FONTS": str(root)}
    done = subprocess.run([sys.executable, "-m", "training.font_subsets", str(out)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (out / name).exists() and "1 of" in done.stdout
    env["TAISHU_FONTS"] = str(out)
    listed = subprocess.run([sys.executable, "-c", "from training.flower_faces import fonts; print(fonts())"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert listed.stdout.strip() == str(((str(out / name), 0),))
    env["TAISHU_FONTS"] = str(tmp_path / "none")
    refused = subprocess.run([sys.executable, "-m", "training.font_subsets", str(tmp_path / "x")], cwd=REPO, env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "none of the fonts" in refused.stderr and "Traceback" not in refused.stderr
