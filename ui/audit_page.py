"""The app's data-set audit page: run `datasets.audit` over a folder of YOLO data (by default the
app's own saved corrections), then browse its images with their labels beside the model's reading,
filtered by class or by the kind of problem flagged. Its words are in the player's script, a flag's
too (`flag_words`: the report's own messages, `Flag.message`, are English)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

import vision.detector
import vision.model_files
from datasets.audit import KINDS, PHOTO, Audit, Flag, audit
from datasets.audit_report import code_name, confusion_picture, label_picture, reading_picture, thumbnail
from datasets.yolo import DATASET_FORMATS
from scoring.script import in_script_of
from ui.dataset import dataset_root
from ui.text import in_script
from vision.classes import CLASSES
from vision.photo import PhotoError, load_photo

ALL = "全部"
THUMBS = 10  # flag thumbnails under an image, most suspicious first
KIND_NAMES = {"mislabelled-photo": "整張標錯",
              "wrong-class": "讀成別的牌", "missed": "標了但沒找到", "unlabelled": "找到但沒標", "shifted": "框偏了"}


def flag_words(flag: Flag) -> str:
    """What a flag says, in traditional Chinese (the caller puts it in the player's script)."""
    labelled, read = code_name(flag.labelled), code_name(flag.read)
    many = len(flag.others) + 1
    if flag.kind == PHOTO:
        said = f"全標成 {labelled}" if flag.labelled_codes == 1 else f"標了 {flag.labelled_codes} 種牌"
        return (f"找到的 {flag.found} 個標註中有 {many} 個讀成別的牌（{said}，讀到 {flag.read_codes} 種）："
                "整張圖標錯了？")
    if flag.kind == "wrong-class":
        return f"標成 {labelled}，讀成 {read}（{flag.confidence:.2f}）"
    if flag.kind == "missed" and flag.others:
        return f"相鄰 {many} 個標註上都沒找到牌（其中一個是 {labelled}）：模型看不到的一區？"
    if flag.kind == "missed":
        return f"標成 {labelled}，那裡沒找到牌"
    if flag.kind == "unlabelled" and flag.others:
        return f"相鄰 {many} 張牌找到了卻沒標（其中一張是 {read}，{flag.confidence:.2f}）：漏標的一區？"
    if flag.kind == "unlabelled":
        return f"找到 {read}（{flag.confidence:.2f}）但沒標"
    return f"標成 {labelled}，找到 {read}（{flag.confidence:.2f}），重疊 {flag.iou:.2f}"


@st.cache_resource(show_spinner=False)
def _detector(models: str):
    return vision.detector.TileDetector(Path(models))


def _run(folder: str, models: str, conf: float, script: str) -> Audit | None:
    root = Path(folder).expanduser()
    if not root.is_dir():
        st.error(in_script("找不到資料夾 ", script) + str(root))
        return None
    try:
        detector = _detector(models)
    except vision.model_files.ModelError as exc:
        st.error(in_script("沒有可用的模型：", script) + exc.notice.text(script))
        return None
    checking = in_script("檢查中…", script)
    bar = st.progress(0.0, text=checking)
    result = audit(root, detector, conf,
                   lambda done, total: bar.progress(done / total, text=f"{checking} {done}/{total}"))
    bar.empty()
    if not result.images:
        st.warning(f"{root}" + in_script(" 裡沒有帶標註的圖片（images/… 與 labels/…，YOLO 格式）。", script))
        return None
    return result


def _summary(result: Audit, script: str) -> None:
    t = in_script_of(script)

    cols = st.columns(4)
    for col, (name, value) in zip(cols, [("mAP50", result.map50), ("mAP50-95", result.map50_95),
                                         (t("精確率"), result.precision), (t("召回率"), result.recall)], strict=True):
        col.metric(name, f"{value:.3f}")
    counts = result.to_json()["flag_counts"]
    st.caption(t(f"{len(result.images)} 張圖、{int(result.labels.sum())} 個標註、{int(result.detections.sum())} 個偵測"
                 f"（信心 ≥ {result.conf:g}）；可疑：" + "、".join(f"{KIND_NAMES[k]} {n}" for k, n in counts.items())))
    for image, why in result.skipped:
        st.warning(t("略過 ") + f"{image}：{why}")
    with st.expander(t("混淆矩陣（哪些牌被讀成哪些牌）")):
        st.image(confusion_picture(result), channels="BGR")
    with st.expander(t("各類別")):
        st.dataframe(result.class_rows(), hide_index=True)


def _browse(result: Audit, script: str) -> None:
    t = in_script_of(script)

    st.subheader(t("瀏覽"))
    left, right = st.columns(2)

    def kind_name(kind: str) -> str:  # ALL is a name already
        return t(KIND_NAMES.get(kind, kind))

    kind = left.selectbox(t("問題"), [ALL, *KINDS], key="audit_kind", format_func=kind_name)
    present = sorted({c for item in result.images for c in item.codes}, key=CLASSES.index)
    code = right.selectbox(t("牌"), [ALL, *present], key="audit_code",
                           format_func=lambda c: t(c if c == ALL else code_name(c)))

    def wanted(flag) -> bool:
        return (kind == ALL or flag.kind == kind) and (code == ALL or code in (flag.labelled, flag.read))

    flags = [f for f in result.flags if wanted(f)]
    if kind == ALL:
        first: dict[str, int] = {}  # each image at its first flag in the audit's ranking
        for rank, f in enumerate(result.flags):
            first.setdefault(f.image, rank)
        images = sorted((item for item in result.images if code == ALL or code in item.codes
                         or any(wanted(f) for f in item.flags)), key=lambda item: first.get(item.rel, len(first)))
    else:
        every = {item.rel: item for item in result.images}
        images = [every[rel] for rel in dict.fromkeys(f.image for f in flags)]
    st.caption(t(f"{len(flags)} 個可疑之處，{len(images)} 張圖（可疑的排前面）"))
    if flags:
        st.dataframe([{t("可疑度"): round(f.suspicion, 2), t("問題"): t(KIND_NAMES[f.kind]), t("圖"): f.image,
                       t("說明"): t(flag_words(f))}
                      for f in flags], hide_index=True, height=min(400, 38 + 35 * len(flags)))
    if not images:
        return
    by_rel = {i.rel: i for i in images}
    item = by_rel[st.selectbox(t("圖"), list(by_rel), key="audit_image",
                               format_func=lambda r: r + (t(f"（{n} 個可疑）") if (n := len(by_rel[r].flags)) else ""))]
    try:
        image = load_photo(item.path, DATASET_FORMATS)
    except PhotoError as exc:
        st.error(exc.notice.text(script))
        return
    left, right = st.columns(2)
    left.image(label_picture(image, item), channels="BGR", caption=t("標註（紅：可疑）"))
    right.image(reading_picture(image, item), channels="BGR", caption=t(f"模型讀到的（信心 ≥ {result.conf:g}）"))
    shown = sorted((f for f in item.flags if wanted(f)), key=lambda f: -f.suspicion)
    for flag in shown[:THUMBS]:
        st.image(thumbnail(image, item, flag), channels="BGR",
                 caption=t(f"{flag.suspicion:.2f} {KIND_NAMES[flag.kind]}：{flag_words(flag)}"))
    if len(shown) > THUMBS:
        st.caption(t(f"還有 {len(shown) - THUMBS} 個較不可疑的"))


def render(script: str = "traditional") -> None:
    t = in_script_of(script)

    st.title(t("資料集檢查"))
    st.caption(t("用模型檢查 YOLO 格式的牌資料集：讀得多準，以及哪些標註可能標錯了。"))
    # By default the folder the main page saves corrected photos to.
    st.text_input(t("資料集資料夾"), value=str(dataset_root()), key="audit_dir")
    with st.expander(t("設定")):
        st.text_input(t("模型資料夾"), value=str(vision.model_files.MODELS_DIR), key="audit_models")
        st.number_input(t("信心門檻"), min_value=0.01, max_value=0.95, value=0.05, step=0.01, key="audit_conf")
    if st.button(t("開始檢查"), key="audit_run", type="primary"):
        st.session_state.audit_result = _run(st.session_state.audit_dir, st.session_state.audit_models,
                                             st.session_state.audit_conf, script)
    result = st.session_state.get("audit_result")
    if result is not None:
        _summary(result, script)
        _browse(result, script)
