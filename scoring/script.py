"""The two scripts a player reads: text written in traditional characters, shown in simplified on
request, one character at a time. That is exact for the characters this project's messages use
(traditional → simplified is many-to-one): the app's labels, the scorer's `HandError.zh` and the
reader's notices (vision/notices.py) go through it."""

from __future__ import annotations

_TRAD = (
    "門風莊連聽槓搶槍數錢讀輸項誰額贏個張這擇選請將換刪設為組點紅沒過確認無檔當機傳網頁動轉資夾則規種麼後補"
    "僅體簡與還實際處問題錯誤訊練從開關萬條發蘭見現記錄們會時裡來應該給對於號頭邊區語寫內嗎畫並長狀況準備報總"
    "單雙離減樣顯識別類標籤儲據鍵輪態計結讓腦電話線獨撈魚貼價壓縮檢視歸屬帶隨統廣義圖鏡東擊攝儘斷湊續閒順齊"
    "牆訓啟稱經瀏覽許註變賽進環"
)
_SIMP = (
    "门风庄连听杠抢枪数钱读输项谁额赢个张这择选请将换删设为组点红没过确认无档当机传网页动转资夹则规种么后补"
    "仅体简与还实际处问题错误讯练从开关万条发兰见现记录们会时里来应该给对于号头边区语写内吗画并长状况准备报总"
    "单双离减样显识别类标签储据键轮态计结让脑电话线独捞鱼贴价压缩检视归属带随统广义图镜东击摄尽断凑续闲顺齐"
    "墙训启称经浏览许注变赛进环"
)
TO_SIMPLIFIED = str.maketrans(_TRAD, _SIMP)
TRADITIONAL_ONLY = frozenset(_TRAD)  # characters that a simplified text never holds


def in_script(text: str, script: str) -> str:
    return text.translate(TO_SIMPLIFIED) if script == "simplified" else text
