"""The two scripts a player reads: text written in traditional characters as Taiwan writes it,
shown in simplified on request as a mainland player writes it: first Taiwan's words are swapped
for the mainland's (`PHRASES`: 檔案 is 文件 there, not 档案), then the rest goes one character at a
time (`TO_SIMPLIFIED`). The character map is exact for the characters this project's messages use
(traditional → simplified is many-to-one): the app's labels, the scorer's `HandError.zh`, the
reader's notices (vision/notices.py) and Streamlit's own words (ui/chrome.py) go through it."""

from __future__ import annotations

import re
from collections.abc import Callable

# Taiwan term → mainland term, found in the traditional text, longest first. Only real changes of
# word: a term whose characters simply simplify (上傳 → 上传) needs no line here.
PHRASES = {
    "環境變數": "环境变量",
    "資料夾": "文件夹",
    "資料集": "数据集",
    "資料庫": "数据库",
    "資料": "数据",
    "伺服器": "服务器",
    "檔案": "文件",
    "檔名": "文件名",
    "程式": "程序",
    "匯出": "导出",
    "儲存": "保存",
    "設定": "设置",
    "連線": "连接",
    "網路": "网络",
    "唯讀": "只读",
    "全螢幕": "全屏",
    "螢幕": "屏幕",
    "剪貼簿": "剪贴板",
    "搜尋": "搜索",
    "點選": "点击",
    "預設": "默认",
    "選單": "菜单",
    "重新整理": "刷新",
    "套用": "应用",
    "送出": "提交",
    "輸入鍵": "回车键",
    "逾時": "超时",
    "最相容": "兼容性最佳",  # the iPhone's camera format, as its mainland settings name it
}
_PHRASE = re.compile("|".join(sorted(map(re.escape, PHRASES), key=len, reverse=True)))

# 帳 is 账 (an account: 帳本, 總帳) in every use here; 帐 (a tent) never comes up. 著 is the particle
# (放著, 留著, 蓋著), written 着 on the mainland; 著 there is zhù (著名), which never comes up. Quotes: 「」 in
# Taiwan, “” on the mainland.
_TRAD = (
    "門風莊連聽槓搶槍數錢讀輸項誰額贏個張這擇選請將換刪設為組點紅沒過確認無檔當機傳網頁動轉資夾則規種麼後補"
    "僅體簡與還實際處問題錯誤訊練從開關萬條發蘭見現記錄們會時裡來應該給對於號頭邊區語寫內嗎畫並長狀況準備報總"
    "單雙離減樣顯識別類標籤儲據鍵輪態計結讓腦電話線獨撈魚貼價壓縮檢視歸屬帶隨統廣義圖鏡東擊攝儘斷湊續閒順齊"
    "牆訓啟稱經瀏覽許註變賽進環帳幾匯掃碼剛壞專庫徑敗檻測偵兩試說財較鎖間陣雞餅龍瀝盃蓋複製載螢權側欄閉細節誌隱灣礎學"
    "決罰詐響賠負場遲構憶舊滿佔寬約著裝費疊鄰卻"
    "「」『』"
)
_SIMP = (
    "门风庄连听杠抢枪数钱读输项谁额赢个张这择选请将换删设为组点红没过确认无档当机传网页动转资夹则规种么后补"
    "仅体简与还实际处问题错误讯练从开关万条发兰见现记录们会时里来应该给对于号头边区语写内吗画并长状况准备报总"
    "单双离减样显识别类标签储据键轮态计结让脑电话线独捞鱼贴价压缩检视归属带随统广义图镜东击摄尽断凑续闲顺齐"
    "墙训启称经浏览许注变赛进环账几汇扫码刚坏专库径败槛测侦两试说财较锁间阵鸡饼龙沥杯盖复制载萤权侧栏闭细节志隐湾础学"
    "决罚诈响赔负场迟构忆旧满占宽约着装费叠邻却"
    "“”‘’"
)
TO_SIMPLIFIED = str.maketrans(_TRAD, _SIMP)
TRADITIONAL_ONLY = frozenset(_TRAD)  # characters that a simplified text of this project never holds


def simplified(text: str) -> str:
    """`text` (traditional, Taiwan's words) as a mainland player writes it."""
    return _PHRASE.sub(lambda m: PHRASES[m.group()], text).translate(TO_SIMPLIFIED)


def in_script(text: str, script: str) -> str:
    return simplified(text) if script == "simplified" else text


def in_script_of(script: str) -> Callable[[str], str]:
    """`in_script` with the script fixed: what a page's piece writes its texts with."""
    return lambda text: in_script(text, script)
