"""The page's chrome, the parts Streamlit draws itself, in the player's script and sized for a finger.

Streamlit has no setting for its own words (streamlit/streamlit#13500: the uploader's texts are
fixed in English), and many of them are attributes (aria-label, title, placeholder) that CSS
cannot change. So one small script, sent once per run with `st.html`, swaps each of Streamlit's
English texts that this app shows for the player's words (`WORDS`, `PATTERNS`) in the text and
those attributes, and again whenever Streamlit redraws them. The script is this module's own
constant text plus a JSON dictionary: nothing from the page or the player goes into it.

`page_script()` starts each run: the script the player chose is kept in the page's address
(`?script=simplified`), so a reload keeps it, beside `?table=`.
"""

from __future__ import annotations

import json

import streamlit as st

from ui.text import SCRIPTS, in_script

DEFAULT_SCRIPT = SCRIPTS[0]

# Streamlit's texts (exact, trimmed) → traditional; simplified through `in_script`.
WORDS = {
    # the page's frame
    "Skip to main content": "跳到主要內容",
    "Sidebar": "側邊欄",
    "Expand sidebar": "打開側邊欄",
    "Collapse sidebar": "收起側邊欄",
    "Main menu": "選單",
    "Link to heading": "連到這一段",
    "Running...": "計算中…",
    "Stop": "停止",
    "Connecting": "連線中",
    "Please wait...": "請稍候…",
    "Connection error": "連不上伺服器",
    "Is Streamlit still running? If you accidentally stopped Streamlit, just restart it in your terminal:":
        "伺服器可能停了。等它重新啟動後，這個網頁會自己連回去。",
    "Connection lost. Please wait for the app to reconnect, then try again.": "連線中斷了：等它連回去再試一次。",
    "Streamlit server is not responding. Are you connected to the internet?":
        "伺服器沒有回應：手機還連在牌桌的無線網路上嗎？",
    "Connection timed out.": "連線逾時。",
    "Dismiss": "知道了",
    "Close": "關閉",
    "This app has encountered an error. The original error message is redacted to prevent data leaks. Full "
    "error details have been recorded in the logs (if you're on Streamlit Cloud, click on 'Manage app' in the "
    "lower right of your app).": "出了問題，這一步沒有做完。請重新整理網頁再試；細節記在伺服器的日誌裡。",
    # the file uploader
    "Upload": "上傳",
    "Browse files": "選擇檔案",
    "Drag and drop file here": "把檔案拖到這裡",
    "Drag and drop files here": "把檔案拖到這裡",
    "file upload": "上傳檔案",
    "Add files": "加入檔案",
    "add icon": "加入",
    "Uploading...": "上傳中…",
    "Error:": "上傳失敗：",  # before the reason a file was refused (too big, another type), under the file
    # the camera
    "Take Photo": "拍照",
    "Clear photo": "清除照片",
    "Switch camera": "切換相機",
    "This app would like to use your camera.": "這個網頁要用你的相機：請在瀏覽器裡允許。",
    # inputs
    "Choose an option": "請選擇",
    "Open": "展開",
    "No results": "沒有符合的",
    "Clear all": "全部清除",
    "Decrement": "減少",
    "Increment": "增加",
    "Press Enter to apply": "按輸入鍵套用",
    "Press Enter to submit form": "按輸入鍵送出",
    "Show password": "顯示密碼",
    "Hide password": "隱藏密碼",
    # element toolbars: images, charts, tables, code
    "Fullscreen": "全螢幕",
    "Exit fullscreen": "離開全螢幕",
    "Close fullscreen": "離開全螢幕",
    "Show data": "看資料",
    "Download as CSV": "下載成 CSV",
    "Download as PNG": "下載成 PNG 圖",
    "Download as SVG": "下載成 SVG 圖",
    "Copy Vega-Lite spec": "複製圖表設定",
    "Search": "搜尋",
    "Show/hide columns": "顯示／隱藏欄",
    "Copy to clipboard": "複製",
    "Copied!": "已複製",
    "Copied": "已複製",
    "Vega visualization": "圖表",
    # what a drop-down's list says to a screen reader (react-aria's words, English on a phone set to English)
    "Show suggestions": "顯示選項",
    "Suggestions": "選項",
}

# Streamlit's texts with a part of our own (a label, a file name, a size): a JavaScript regular
# expression over the whole trimmed text, and what it becomes ($1: the first group).
PATTERNS = [
    (r"^Help for (.+)$", "說明：$1"),
    (r"^Fullscreen: (.+)$", "全螢幕：$1"),
    (r"^Remove (.+)$", "移除 $1"),
    (r"^(\d+(?:\.\d+)?)(B|KB|MB|GB) per file$", "每個檔案最多 $1$2"),
    (r"^File must be (.+) or smaller\.$", "檔案不能超過 $1。"),
    (r"^(.+) files are not allowed\.$", "不能上傳 $1 檔案。"),
    (r"^(\d+) options? available\.$", "有 $1 個選項。"),
    (r"^(.+), selected$", "$1，已選。"),
]

# Tap targets of at least 44 px (a fingertip; WCAG 2.5.5), the summary kept in view, and what
# Streamlit shows that a player has no use for: the main menu (print, record a screencast, developer settings), the
# camera's link to Streamlit's English help, the command line in the lost-connection dialog.
STYLE = """
[data-testid="stRadio"] [role="radiogroup"] label, [data-testid="stCheckbox"] label {
  min-height: 44px; display: flex; align-items: center; }
[data-testid="stRadio"] [role="radiogroup"] { column-gap: 12px; row-gap: 0; }
[data-testid="stButtonGroup"] button, [data-testid^="stBaseButton-"], [data-testid="stCameraInputButton"],
[data-testid="stNumberInputStepDown"], [data-testid="stNumberInputStepUp"], [data-testid="stExpandSidebarButton"],
[data-testid="stPopoverButton"] {
  min-height: 44px !important; min-width: 44px !important; }
[data-testid="stButtonGroup"] > div { gap: 8px; }
/* A phone's page: a tile or a seat a finger wide (seven tiles to a row at 390 px), a section's heading one line. */
[data-testid="stButtonGroup"] button { padding-left: 10px !important; padding-right: 10px !important; }
[data-testid="stHeading"] h3 { font-size: 1.25rem; padding: 0.5rem 0 0; }
[data-testid="stNumberInputContainer"], [data-testid="stSelectbox"] [data-baseweb="select"] > div,
[data-testid="stSelectbox"] button { min-height: 44px; }
/* The ⓘ beside a label: a 44 px box around the 16 px icon, the label's line left as it was. */
[data-testid="stTooltipHoverTarget"] > button {
  min-width: 44px; min-height: 44px; margin: -14px; display: flex; align-items: center; justify-content: center; }
[data-testid="stMainMenu"], [data-testid="stCameraInputWebcamComponent"] a, [role="dialog"] pre { display: none; }
[data-testid="stElementContainer"]:has(#taishu-chrome), [data-testid="stElementContainer"]:has(#taishu-top) {
  display: none; }
/* The evening's hands (ui/table_history.py) and each player's figures (ui/table_evenings.py) break lines only
   between words: at 390 px with players' names the dealer's column stood one character a line. A name too long
   for the width scrolls the table sideways. */
.st-key-hands [data-testid="stTable"] p, .st-key-figures [data-testid="stTable"] p { word-break: keep-all !important; }
/* Why the uploader refused a file (over 50 MB, another type) under its name, on the page: Streamlit says it in a
   tooltip shown on hover (no phone hovers) and in an alert drawn 1 px wide for screen readers only. */
[data-testid="stFileChip"]:has(> [role="alert"]) { flex-wrap: wrap; }
[data-testid="stFileChip"] > [role="alert"] { position: static; width: 100%; height: auto; margin: 0;
  overflow: visible; clip: auto; white-space: normal; font-size: 0.875rem; }
/* The hand's 台 and money (app.py's summary) stay in view, under Streamlit's header (3.75rem). */
[data-testid="stLayoutWrapper"]:has(> .st-key-summary) { position: sticky; top: 3.75rem; z-index: 99;
  background-color: rgb(255, 255, 255); padding: 4px 0; border-bottom: 1px solid rgba(49, 51, 63, 0.2); }
"""

SCRIPT = """
(() => {
  const state = window.taishuChrome = window.taishuChrome || {texts: new WeakMap(), attrs: new WeakMap()};
  state.words = new Map(Object.entries(__WORDS__));
  state.patterns = __PATTERNS__.map(([re, to]) => [new RegExp(re), to]);
  document.documentElement.lang = __LANG__;
  const ATTRS = ["aria-label", "title", "placeholder", "aria-description"];

  // What Streamlit wrote (`was`, kept while the node shows our words) in the player's words, or null.
  const swap = (was) => {
    const key = was.trim();
    if (!key || !/[A-Za-z]/.test(key)) return null;
    let to = state.words.get(key);
    for (const [re, into] of state.patterns) if (to === undefined && re.test(key)) to = key.replace(re, into);
    return to === undefined ? null : was.replace(key, to);
  };
  const text = (node) => {
    const seen = state.texts.get(node);
    const was = seen && seen.shown === node.nodeValue ? seen.was : node.nodeValue;
    const to = swap(was);
    if (to === null) return state.texts.delete(node);
    state.texts.set(node, {was, shown: to});
    if (node.nodeValue !== to) node.nodeValue = to;
  };
  const attr = (el, name) => {
    const value = el.getAttribute(name);
    if (value === null) return;
    const seen = (state.attrs.get(el) || {})[name];
    const was = seen && seen.shown === value ? seen.was : value;
    const to = swap(was);
    if (to === null) return;
    state.attrs.set(el, {...state.attrs.get(el), [name]: {was, shown: to}});
    if (value !== to) el.setAttribute(name, to);
  };
  const tree = (root) => {
    if (root.nodeType === Node.TEXT_NODE) return text(root);
    if (root.nodeType !== Node.ELEMENT_NODE) return;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) text(n);
    for (const el of [root, ...root.querySelectorAll("*")]) {
      for (const name of ATTRS) attr(el, name);
      // An icon is a word drawn by a font (keyboard_arrow_right): not for a screen reader.
      if (el.dataset && el.dataset.testid === "stIconMaterial") el.setAttribute("aria-hidden", "true");
    }
  };
  tree(document.body);
  if (!state.observer) {
    state.observer = new MutationObserver((changes) => {
      for (const c of changes) {
        if (c.type === "characterData") text(c.target);
        else if (c.type === "attributes") attr(c.target, c.attributeName);
        else c.addedNodes.forEach(tree);
      }
    });
    state.observer.observe(document.body, {subtree: true, childList: true, characterData: true,
                                           attributes: true, attributeFilter: ATTRS});
  }
})();
"""

LANGS = {"traditional": "zh-Hant-TW", "simplified": "zh-Hans-CN"}


def words(script: str) -> dict[str, str]:
    return {english: in_script(shown, script) for english, shown in WORDS.items()}


def patterns(script: str) -> list[tuple[str, str]]:
    return [(regex, in_script(shown, script)) for regex, shown in PATTERNS]


def dress(script: str) -> None:
    """Streamlit's own words in `script`, and the tap sizes, on this page."""
    code = (SCRIPT.replace("__WORDS__", json.dumps(words(script), ensure_ascii=False))
            .replace("__PATTERNS__", json.dumps(patterns(script), ensure_ascii=False))
            .replace("__LANG__", json.dumps(LANGS[script])))
    st.html(f'<style>{STYLE}</style><span id="taishu-chrome"></span><script>{code}</script>',
            unsafe_allow_javascript=True)


# Streamlit scrolls its main block, not the window.
TO_TOP = """<span id="taishu-top"></span><script>
document.querySelectorAll('[data-testid=stMain]').forEach((main) => main.scrollTo({top: 0}));
</script>"""


def to_top() -> None:
    """The page scrolled back to its top on this run (a hand recorded: the next one starts at the photo)."""
    st.html(TO_TOP, unsafe_allow_javascript=True)


def page_script() -> str:
    """The player's script for this run, with the page dressed in it: `?script=` in the address
    (how a reload keeps it), else the page's own choice, else 繁體. A script the app does not know
    in the address is dropped from it."""
    ss = st.session_state
    asked = st.query_params.get("script")
    if asked in SCRIPTS:
        ss.script = asked
    elif asked is not None:
        del st.query_params["script"]
    ss.setdefault("script", DEFAULT_SCRIPT)
    dress(ss.script)
    return ss.script


# Widgets under one key whose options are shown in the player's script. Streamlit keeps the
# value of a selectbox, a radio or pills as the label the browser showed, which is no option once
# the labels change: when the script changes, their values are set again from the session
# (app.py's seat choices keep one widget per script instead).
SCRIPT_LABELLED = ("page",)


def on_script_change() -> None:
    """The script radio's callback: the choice into the address (the default leaves it out), and
    the script-labelled widgets held to their values."""
    ss = st.session_state
    for key in SCRIPT_LABELLED:
        if key in ss:
            ss[key] = ss[key]
    if ss.script == DEFAULT_SCRIPT:
        st.query_params.pop("script", None)
    else:
        st.query_params["script"] = ss.script
