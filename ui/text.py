"""Words on the screen: written in traditional characters, shown in simplified on request.

The app's own labels are traditional; `in_script` turns them (and anything else mixed in, such as
a tile name or a scorer message) into simplified one character at a time, which is exact for the
characters this app uses (traditional → simplified is many-to-one).
"""

from __future__ import annotations

from scoring.tiles import WINDS, tile_name

SCRIPTS = ("traditional", "simplified")
SCRIPT_LABELS = {"traditional": "繁體", "simplified": "简体"}

_TRAD = (
    "門風莊連聽槓搶槍數錢讀輸項誰額贏個張這擇選請將換刪設為組點紅沒過確認無檔當機傳網頁動轉資夾則規種麼後補"
    "僅體簡與還實際處問題錯誤訊練從開關萬條發蘭見現記錄們會時裡來應該給對於號頭邊區語寫內嗎畫並長狀況準備報總"
    "單雙離減樣顯識別類標籤儲據鍵輪態計結讓腦電話線獨撈魚貼價壓縮檢視歸屬帶隨統廣義圖鏡東擊攝儘斷湊續閒順齊牆"
)
_SIMP = (
    "门风庄连听杠抢枪数钱读输项谁额赢个张这择选请将换删设为组点红没过确认无档当机传网页动转资夹则规种么后补"
    "仅体简与还实际处问题错误讯练从开关万条发兰见现记录们会时里来应该给对于号头边区语写内吗画并长状况准备报总"
    "单双离减样显识别类标签储据键轮态计结让脑电话线独捞鱼贴价压缩检视归属带随统广义图镜东击摄尽断凑续闲顺齐墙"
)
TO_SIMPLIFIED = str.maketrans(_TRAD, _SIMP)

WIND_NAMES = dict(zip(WINDS, "東南西北", strict=True))


def in_script(text: str, script: str) -> str:
    return text.translate(TO_SIMPLIFIED) if script == "simplified" else text


def tile_label(code: str | None, script: str) -> str:
    """一萬 / 一万, 紅中, 梅 …; a tile not known yet is ？."""
    return "？" if code is None else tile_name(code, script)


def seat_label(wind: str, script: str) -> str:
    """東家 / 东家."""
    return in_script(f"{WIND_NAMES[wind]}家", script)
