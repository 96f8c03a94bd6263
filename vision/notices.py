"""What the reader tells the player: each warning, and each reason a photo or the model cannot be read,
is a `Notice` (a code and its parameters); its words live in one catalogue, in English (the command
line, the JSON), traditional and simplified characters (the app, in the player's script).

Parameters are rendered in the script asked for: a tile (BEFORE, AFTER, LEFT, RIGHT) by its name
(一萬 / 一万; its code in English), a nested Notice in the same script, a scorer message's
traditional words (`zh`) in simplified on request. A Chinese template may leave out a parameter
that only the English needs (a file name, an OS error).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from scoring.hand import HandError
from scoring.script import in_script
from scoring.tiles import tile_name

SCRIPTS = ("en", "traditional", "simplified")
TILE_PARAMS = frozenset({"before", "after", "left", "right", "tile"})
TILES_PARAMS = frozenset({"tiles"})  # several tiles: codes in English, names in Chinese
TRADITIONAL_PARAMS = frozenset({"zh"})  # words already in traditional characters: converted for simplified
MESSAGE_PARAMS = frozenset({"en", "zh"})  # a scorer message's own words: the JSON's "text" says them already


@dataclass(frozen=True)
class Words:
    en: str
    traditional: str
    simplified: str


# code → words; `{name}` placeholders are the notice's parameters (str.format syntax).
CATALOGUE: dict[str, Words] = {
    # vision/layout.py
    "tile-may-be-missing": Words(
        "room for {count} tile(s) between {left} and {right}: a tile may be missing",
        "{left}和{right}之間空得下 {count} 張牌：可能漏讀了牌",
        "{left}和{right}之间空得下 {count} 张牌：可能漏读了牌"),
    "rows-turned": Words(
        "rows run at {angle:.0f}°: check the reading order",
        "牌排得斜了 {angle:.0f}°：請檢查讀牌的順序",
        "牌排得斜了 {angle:.0f}°：请检查读牌的顺序"),
    # vision/groups.py
    "only-flowers": Words(
        "no tiles found besides flowers",
        "除了花牌沒有找到別的牌",
        "除了花牌没有找到别的牌"),
    "concealed-count-off": Words(
        "the concealed row has a tile too few or too many for a win",
        "手牌多一張或少一張，湊不成胡牌",
        "手牌多一张或少一张，凑不成胡牌"),
    "no-concealed-group": Words(
        "no group has the tile count of a concealed hand (17 − 3 per meld)",
        "沒有一組牌的張數像手牌（17 張減每組副露 3 張）",
        "没有一组牌的张数像手牌（17 张减每组副露 3 张）"),
    "win-not-apart": Words(
        "the winning tile is not set apart: taken as the last tile of the concealed row",
        "胡的那張沒有分開放：當作手牌的最後一張",
        "胡的那张没有分开放：当作手牌的最后一张"),
    "stray-group": Words(
        "a group of {count} tile(s) apart from the others is not a meld",
        "單獨放的 {count} 張牌不是一組副露",
        "单独放的 {count} 张牌不是一组副露"),
    "shown-not-set": Words(
        "some shown tiles do not form a set",
        "有些亮出來的牌不成一組",
        "有些亮出来的牌不成一组"),
    # vision/correction.py: no legal hand, and why
    "no-legal-hand": Words(
        "no legal winning hand is close to what was read ({reason})",
        "讀到的牌改幾張也湊不成合法的胡牌（{reason}）",
        "读到的牌改几张也凑不成合法的胡牌（{reason}）"),
    "no-concealed-tiles": Words(
        "no concealed tiles",
        "沒有手牌",
        "没有手牌"),
    "meld-size": Words(
        "a group of shown tiles is not a meld of 3 or 4",
        "有一組亮出來的牌不是 3 張或 4 張",
        "有一组亮出来的牌不是 3 张或 4 张"),
    "concealed-count": Words(
        "{count} concealed tiles with the winning tile; with {melds} meld(s) a winning hand has {expected}",
        "手牌連胡的那張有 {count} 張；{melds} 組副露時胡牌要有 {expected} 張",
        "手牌连胡的那张有 {count} 张；{melds} 组副露时胡牌要有 {expected} 张"),
    "too-many-flowers": Words(
        "{count} flowers; there are 8",
        "{count} 張花牌：花牌只有 8 張",
        "{count} 张花牌：花牌只有 8 张"),
    "not-a-hand": Words(  # the scorer's HandError for the likeliest reading (scoring/validate.py)
        "{en}",
        "{zh}",
        "{zh}"),
    # vision/read.py
    "no-tiles": Words(  # a hand across a tenth of a 12 MP photo's width is still found (tests/test_detector.py)
        "no tiles found in the photo (a hand is found when it spans a tenth of the photo's width or more: "
        "take it closer)",
        "照片裡沒有找到牌（手牌要佔照片寬度的十分之一以上才找得到：請靠近一點拍）",
        "照片里没有找到牌（手牌要占照片宽度的十分之一以上才找得到：请靠近一点拍）"),
    "tile-corrected": Words(
        "tile {number} read as {before}, corrected to {after} to make a legal hand",
        "第 {number} 張讀成{before}，為了湊成合法的胡牌改成{after}",
        "第 {number} 张读成{before}，为了凑成合法的胡牌改成{after}"),
    "tiles-small": Words(
        "the hand's tiles are about {size} pixels wide in this photo, and faces this small are often misread: "
        "check each tile, and take the next photo closer",
        "這張照片裡手牌每張只有約 {size} 像素寬，這麼小的牌面常會讀錯：請逐張檢查，下一張靠近一點拍",
        "这张照片里手牌每张只有约 {size} 像素宽，这么小的牌面常会读错：请逐张检查，下一张靠近一点拍"),
    "upside-down": Words(
        "the photo shows the tiles upside down (taken from across the table): read turned half a turn",
        "照片裡的牌是倒的（從對面拍的）：已轉半圈再讀",
        "照片里的牌是倒的（从对面拍的）：已转半圈再读"),
    # vision/read.py: the hand search (vision/search.py) and what it left out or supposed
    "no-hand-like-tiles": Words(
        "no tiles look like a hand",
        "沒有像手牌的牌",
        "没有像手牌的牌"),
    "no-close-codes": Words(
        "no tile codes close to the read ones make one",
        "讀到的牌換成相近的牌也不成胡牌",
        "读到的牌换成相近的牌也不成胡牌"),
    "tiles-set-apart": Words(
        "{count} tile(s) set apart as not the hand's (walls, discards, strays)",
        "{count} 張牌不算手牌（牌牆、打出的牌、散牌），放在一旁",
        "{count} 张牌不算手牌（牌墙、打出的牌、散牌），放在一旁"),
    "tile-supposed": Words(
        "a tile may be missing from the photo: supposed {tile} to make a legal hand",
        "照片裡可能少了一張牌：補上{tile}才成胡牌",
        "照片里可能少了一张牌：补上{tile}才成胡牌"),
    "kong-supposed": Words(
        "a concealed kong shows four backs: read as a kong of {tile} to make a legal hand; name its tile",
        "暗槓四張都蓋著：先當作{tile}的暗槓湊成胡牌，請點選它是哪張牌",
        "暗杠四张都盖着：先当作{tile}的暗杠凑成胡牌，请点选它是哪张牌"),
    # vision/read.py: how a runner-up hand differs from the best reading
    "alt-tile": Words(
        "tile {number}: {after} instead of {before}",
        "第 {number} 張{before}改成{after}",
        "第 {number} 张{before}改成{after}"),
    "alt-in-hand": Words(
        "also in the hand: {tiles}",
        "{tiles}也算手牌",
        "{tiles}也算手牌"),
    "alt-set-apart": Words(
        "set apart: {tiles}",
        "{tiles}不算",
        "{tiles}不算"),
    "alt-supposes": Words(
        "supposes a missed tile {tile}",
        "補上漏讀的{tile}",
        "补上漏读的{tile}"),
    "alt-no-supposed": Words(
        "supposes no missed tile",
        "不補牌",
        "不补牌"),
    "alt-wins-on": Words(
        "wins on {tile}",
        "胡{tile}",
        "胡{tile}"),
    "alt-no-melds": Words(
        "read with no meld shown",
        "當作沒有副露（門清）",
        "当作没有副露（门清）"),
    "alt-melds": Words(
        "read with {count} meld(s) shown",
        "當作副露 {count} 組（吃、碰、槓）",
        "当作副露 {count} 组（吃、碰、杠）"),
    # vision/photo.py: PhotoError
    "photo-cannot-open": Words(
        "cannot open {name}: {why}",
        "打不開這個檔案",
        "打不开这个档案"),
    "photo-empty": Words(
        "{name} is empty",
        "檔案是空的",
        "档案是空的"),
    "photo-not-image": Words(
        "{name} is not an image we can read (JPEG, PNG, WebP or HEIC)",
        "看不懂這個檔案：請傳 JPEG、PNG、WebP 或 HEIC 照片",
        "看不懂这个档案：请传 JPEG、PNG、WebP 或 HEIC 照片"),
    "photo-format": Words(
        "{name} is in {format} format, not a photo format we read: send it as JPEG, PNG, WebP or HEIC",
        "這是 {format} 格式的圖檔，讀不了：請傳 JPEG、PNG、WebP 或 HEIC 照片",
        "这是 {format} 格式的图档，读不了：请传 JPEG、PNG、WebP 或 HEIC 照片"),
    "photo-unreadable": Words(
        "{name} is not a readable image: {why}",
        "照片檔案壞了，讀不出來",
        "照片档案坏了，读不出来"),
    "photo-heic": Words(
        "{name} is a HEIC photo that could not be decoded (damaged, or a kind of HEIC we do not read): send it "
        "as a JPEG (on an iPhone: Settings › Camera › Formats › 'Most Compatible')",
        "這張 HEIC 照片讀不出來（檔案壞了或是讀不了的 HEIC）：請改傳 JPEG（iPhone：設定 › 相機 › 格式 選「最相容」）",
        "这张 HEIC 照片读不出来（文件坏了或是读不了的 HEIC）："
        "请改传 JPEG（iPhone：设置 › 相机 › 格式 选“兼容性最佳”）"),
    "photo-too-large": Words(
        "{name} is {width}x{height} pixels, too large to read (at most {limit} million)",
        "照片有 {width}×{height} 像素，太大了（最多 {limit} 百萬像素）",
        "照片有 {width}×{height} 像素，太大了（最多 {limit} 百万像素）"),
    # vision/model_files.py: ModelError
    "model-card-missing": Words(
        "no {what} card at {path}",
        "找不到模型說明檔 {path}",
        "找不到模型说明档 {path}"),
    "model-card-broken": Words(
        "the {what} card {path} is broken: {why} (restore it from git)",
        "模型說明檔 {path} 壞了：請從 git 還原",
        "模型说明档 {path} 坏了：请从 git 还原"),
    "hand-finder-features": Words(
        "{path} was fitted on other features than the reader's: refit it (python -m training.train_hand_finder)",
        "找手牌的模型檔 {path} 和程式對不上：請重新訓練它",
        "找手牌的模型档 {path} 和程序对不上：请重新训练它"),
    "model-classes-differ": Words(
        "{what} classes differ from vision.classes.CLASSES",
        "模型認得的牌和程式的不一樣",
        "模型认得的牌和程序的不一样"),
    "model-file-missing": Words(
        "{what} file {path} is missing",
        "模型檔 {path} 不見了",
        "模型档 {path} 不见了"),
    "model-corrupt": Words(
        "{name} has SHA-256 {actual}…, expected {expected}… (corrupt or replaced; restore it from git)",
        "模型檔 {name} 壞了或被換過（SHA-256 不符）：請從 git 還原",
        "模型档 {name} 坏了或被换过（SHA-256 不符）：请从 git 还原"),
    "runtime-unknown": Words(
        "{variable} is {value}: expected one of {choices}, or detector=CHOICE,classifier=CHOICE",
        "環境變數 {variable} 的值 {value} 不對：請改成 {choices} 其中之一",
        "环境变量 {variable} 的值 {value} 不对：请改成 {choices} 其中之一"),
    "runtime-missing": Words(
        "{variable} asks for {value}, which is not installed (pip install openvino, or unset {variable})",
        "環境變數 {variable} 要用的 {value} 沒有安裝：請先安裝，或取消這個設定",
        "环境变量 {variable} 要用的 {value} 没有安装：请先安装，或取消这个设定"),
    "model-input": Words(
        "{name} takes {shape} crops, expected {expected}",
        "模型檔 {name} 的輸入大小不對",
        "模型档 {name} 的输入大小不对"),
    # vision/memory.py: TableMemoryError
    "memory-not-memory": Words(
        "{name} is not a table memory (made by `python -m vision remember` or the app)",
        "這不是牌桌的記憶檔",
        "这不是牌桌的记忆档"),
    "memory-version": Words(
        "{name} is a table memory of format version {version}, this program reads version {expected}",
        "牌桌記憶的版本不對（第 {version} 版，這裡讀第 {expected} 版）：請重新教這副牌",
        "牌桌记忆的版本不对（第 {version} 版，这里读第 {expected} 版）：请重新教这副牌"),
    "memory-corrupt": Words(
        "{name} is a damaged table memory (reset it and teach the set again)",
        "牌桌記憶壞了：請清除後重新教這副牌",
        "牌桌记忆坏了：请清除后重新教这副牌"),
    "memory-too-big": Words(
        "{name} is larger than a table memory can be ({limit} bytes at most)",
        "牌桌記憶檔太大了，不是牌桌的記憶",
        "牌桌记忆档太大了，不是牌桌的记忆"),
    "memory-other-classifier": Words(
        "the table memory was made with crop classifier {made}…, the models now read with {now}…: "
        "reset it and teach the set again",
        "牌桌記憶是舊的模型做的：請清除後重新教這副牌",
        "牌桌记忆是旧的模型做的：请清除后重新教这副牌"),
    "memory-no-embedding": Words(
        "the crop classifier gives no embeddings, so no table memory can be taught "
        "(python -m training.export --classifier-only adds them)",
        "這個模型不能記住牌桌的牌",
        "这个模型不能记住牌桌的牌"),
    # vision/__main__.py remember: the tiles to teach
    "labels-unreadable": Words(
        "{name}: {why}",
        "標註檔讀不出來",
        "标注档读不出来"),
    "labels-outside-photo": Words(
        "{name}: box {line} lies outside the {width}x{height} photo (a label file of another photo?)",
        "標註的框超出照片：是別張照片的標註嗎？",
        "标注的框超出照片：是别张照片的标注吗？"),
    "labels-empty": Words(
        "{name} holds no tiles to teach",
        "標註檔裡沒有牌",
        "标注档里没有牌"),
    # app.py: the reader itself failed (a bug): its error, as Python says it
    "reading-failed": Words(
        "photo reading failed: {error}",
        "讀牌時出錯：{error}",
        "读牌时出错：{error}"),
}


@dataclass(frozen=True)
class Notice:
    code: str
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.code not in CATALOGUE:
            raise ValueError(f"no notice {self.code!r} in vision.notices.CATALOGUE")
        words = CATALOGUE[self.code]
        wanted = set().union(*(placeholders(getattr(words, script)) for script in SCRIPTS))
        if wanted != {name for name, _ in self.params}:
            raise ValueError(f"notice {self.code!r} takes {sorted(wanted)}, got {[n for n, _ in self.params]}")

    @classmethod
    def of(cls, code: str, **params: Any) -> Notice:
        return cls(code, tuple(params.items()))

    @classmethod
    def of_hand_error(cls, exc: HandError) -> Notice:
        """The scorer's refusal of a hand, in its words (English, and traditional where it gives them)."""
        return cls.of("not-a-hand", en=str(exc), zh=exc.for_player)

    def text(self, script: str = "en") -> str:
        template = getattr(CATALOGUE[self.code], script)
        return template.format(**{name: _shown(name, value, script) for name, value in self.params})

    def __str__(self) -> str:
        return self.text("en")

    def to_json(self) -> dict:
        """`{"code", "text"}` (English), with the parameters (a nested notice as its own JSON)."""
        params = {n: v.to_json() if isinstance(v, Notice) else v for n, v in self.params if n not in MESSAGE_PARAMS}
        return {"code": self.code, "text": self.text("en"), **({"params": params} if params else {})}


class NoticeError(Exception):
    """An error whose message is a Notice: `str(exc)` is its English (the command line), `notice` says
    it in the player's script."""

    def __init__(self, notice: Notice) -> None:
        super().__init__(notice.text("en"))
        self.notice = notice


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _shown(name: str, value: Any, script: str) -> Any:
    if isinstance(value, Notice):
        return value.text(script)
    if name in TILE_PARAMS and script != "en":
        return tile_name(value, script)
    if name in TILES_PARAMS:
        return " ".join(value) if script == "en" else "、".join(tile_name(t, script) for t in value)
    if name in TRADITIONAL_PARAMS:
        return in_script(value, script)
    return value
