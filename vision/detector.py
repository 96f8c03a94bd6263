"""The tile detector at read time: the committed ONNX model on onnxruntime, or OpenVINO where TAISHU_RUNTIME asks
for it (no torch needed; `vision.model_files.runtime`).

`TileDetector.detect` is one forward pass at a given input size. `TileDetector.read` is what a
photo gets: a first pass finds the tiles and their sizes; tiles of one size that lie together form a
cluster (a photo of a table holds near tiles several times the size of far ones), and each cluster
far from the size the model was trained on is read again, its region resized so its tiles come out at
that size, so a photo of a table reads as a close-up does. Its numbers are `DetectorSettings`
(vision/settings.py); why each: docs/decisions/detector-passes.md.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.boxes import intersection_over_area
from vision.crop_classifier import CROP_H, TileClassifier
from vision.detections import FLOWER_CLASSES, Detections
from vision.hand_finding import weights
from vision.model_files import MODELS_DIR, STRIDE, ModelCard, model_session, runtime
from vision.photo import READ_SIDE, Photo, resized
from vision.settings import DETECTOR_DEFAULT, DetectorSettings
from vision.stages import DETECT, DETECTOR_NETWORK, stage

LETTERBOX_GREY = (114, 114, 114)  # what the network saw around every training image: the padding of its input


def letterbox(image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """Resize so the long side is `long_side`, pad right/bottom to a multiple of the stride.

    Padding only right/bottom keeps the mapping back to photo pixels a pure scale.
    """
    h, w = image.shape[:2]
    scale = long_side / max(h, w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    ph, pw = -nh % STRIDE, -nw % STRIDE
    padded = cv2.copyMakeBorder(resized(image, (nw, nh)), 0, ph, 0, pw, cv2.BORDER_CONSTANT, value=LETTERBOX_GREY)
    return padded, scale


def decode(output: np.ndarray, conf: float, iou: float, flower_conf: float | None = None) -> Detections:
    """YOLO head output (4 + classes, anchors) → boxes after class-agnostic NMS; a box whose likeliest
    class is a flower is kept from `flower_conf` (when given and lower).

    Agnostic NMS: two boxes on one tile are one tile whatever their classes; the losing class
    survives as the runner-up score that correction can use.
    """
    pred = output.T  # (anchors, 4 + classes)
    scores = pred[:, 4:]
    top = scores.max(axis=1)
    keep = top >= conf
    if flower_conf is not None and flower_conf < conf:
        faint = np.flatnonzero((top >= flower_conf) & ~keep)  # the likeliest class of these only: a few of 5-20k
        keep[faint] = FLOWER_CLASSES[scores[faint].argmax(axis=1)]
        conf = flower_conf
    pred, scores = pred[keep], scores[keep]
    if not len(pred):
        return Detections.empty()
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    idx = cv2.dnn.NMSBoxes(np.stack([boxes[:, 0], boxes[:, 1], w, h], 1).tolist(),
                           scores.max(axis=1).tolist(), conf, iou)
    keep = np.asarray(idx, dtype=np.int64).reshape(-1)
    return Detections(boxes[keep].astype(np.float32), scores[keep].astype(np.float32))


def side_for(card: ModelCard, image: np.ndarray, tile_w: float) -> int:
    """The input size (long side) at which tiles `tile_w` px wide in `image` come out at the width the
    model was trained around, within the stride and the card's cap."""
    return int(np.clip(max(image.shape[:2]) * card.tile_width / tile_w, STRIDE, card.max_side))


def components(linked: np.ndarray) -> np.ndarray:
    """Each node's connected component under the symmetric (n, n) boolean `linked`, named by its least node."""
    label = -np.ones(len(linked), np.int64)
    for start in range(len(linked)):  # breadth first
        if label[start] >= 0:
            continue
        label[start], queue = start, [start]
        while queue:
            nxt = np.nonzero(linked[queue.pop()] & (label < 0))[0]
            label[nxt] = start
            queue += nxt.tolist()
    return label


def scale_clusters(dets: Detections, settings: DetectorSettings = DETECTOR_DEFAULT) -> list[np.ndarray]:
    """Indices of the boxes in clusters of one tile size, largest cluster first: two boxes are linked
    when their sizes differ by less than `cluster_size_ratio` and they lie within `cluster_reach` sizes."""
    size = np.minimum(dets.widths, dets.heights).astype(np.float64)
    centres = dets.centers.astype(np.float64)
    ratio = np.maximum(size[:, None], size[None, :]) / np.maximum(np.minimum(size[:, None], size[None, :]), 1e-6)
    distance = np.linalg.norm(centres[:, None] - centres[None, :], axis=2)
    linked = (ratio < settings.cluster_size_ratio) \
        & (distance < settings.cluster_reach * np.maximum(size[:, None], size[None, :]))
    label = components(linked)
    clusters = [np.nonzero(label == k)[0] for k in np.unique(label)]
    return sorted(clusters, key=len, reverse=True)


def aspect_restore(dets: Detections, settings: DetectorSettings = DETECTOR_DEFAULT) -> float:
    """What the photo's width should be multiplied by for its tiles to have a tile's shape: 1.0 when
    their median box is not squashed (or too few boxes say)."""
    if len(dets) < settings.min_for_aspect:
        return 1.0
    aspect = float(np.median(dets.widths / np.maximum(dets.heights, 1e-6)))
    return 1.0 if aspect >= settings.min_aspect else min(settings.upright_aspect / aspect, settings.max_restore)


def suppress_overlaps(dets: Detections, iou: float) -> Detections:
    """One box per tile where readings of overlapping regions found it twice (class-agnostic NMS)."""
    xywh = np.concatenate([dets.boxes[:, :2], dets.boxes[:, 2:] - dets.boxes[:, :2]], axis=1)
    keep = np.asarray(cv2.dnn.NMSBoxes(xywh.tolist(), dets.confidences.tolist(), 0.0, iou), np.int64).reshape(-1)
    return dets[np.sort(keep)]


def beside(boxes: np.ndarray, touch: float) -> tuple[np.ndarray, np.ndarray]:
    """(left, right): left[i, j] when box j touches box i on its left along a level row (their facing edges
    closer than `touch` of box i's width, neither covering a quarter of it: a box over the seam between two tiles
    covers each by a third or more; sharing half the shorter height), right[i, j] the same on its right."""
    x1, y1, x2, y2 = (boxes[:, k] for k in range(4))
    w = (x2 - x1)[:, None]
    level = np.minimum(y2[:, None], y2[None, :]) - np.maximum(y1[:, None], y1[None, :]) \
        >= 0.5 * np.minimum((y2 - y1)[:, None], (y2 - y1)[None, :])
    overlap_left = x2[None, :] - x1[:, None]  # box j's right edge past box i's left edge (negative: a gap)
    overlap_right = x2[:, None] - x1[None, :]
    left = level & (x1[None, :] < x1[:, None]) & (overlap_left > -touch * w) & (overlap_left < 0.25 * w)
    right = level & (x2[None, :] > x2[:, None]) & (overlap_right > -touch * w) & (overlap_right < 0.25 * w)
    return left, right


def in_flower_run(boxes: np.ndarray, flower: np.ndarray, faint: np.ndarray, touch: float) -> np.ndarray:
    """The `faint` boxes lying inside a run of flowers: a run of touching boxes (`beside`), each a `flower` or
    `faint`, holding two flowers or more, with a box of the run on each side of it."""
    if not faint.any():
        return faint
    inside = flower | faint
    left, right = beside(boxes, touch)
    both = inside[:, None] & inside[None, :]
    left, right = left & both, right & both
    run = components(left | right | left.T | right.T)
    flowers_in_run = np.bincount(run, weights=flower.astype(np.float64), minlength=len(boxes))
    return faint & left.any(axis=1) & right.any(axis=1) & (flowers_in_run[run] >= 2)


def held_score(dets: Detections, boxes: np.ndarray, inside_from: float) -> float:
    """The sum of `dets`' scores, those lying inside one of `boxes` (by `inside_from` of their area or more) counted
    once per box, as their best: slivers of a tile (its base, its face in parts) stand for one tile, not for as many
    as they are."""
    inside = intersection_over_area(dets.boxes, boxes) >= inside_from
    holder = np.where(inside.any(axis=1), inside.argmax(axis=1), -1 - np.arange(len(dets)))  # none: its own
    return float(sum(dets.confidences[holder == k].max() for k in np.unique(holder)))


class TileDetector:
    """The detector, and the crop classifier when the model card names one (`classifier=False` leaves it
    out): `read` then takes each tile's class scores from its crop (vision/crop_classifier.py). Its passes,
    faint flowers and crops are as `settings` say."""

    def __init__(self, models_dir: Path = MODELS_DIR, threads: int | None = None, classifier: bool = True,
                 settings: DetectorSettings = DETECTOR_DEFAULT) -> None:
        self.card = ModelCard.load(models_dir)
        self.settings = settings
        self.runtime = runtime()  # what runs this network, and the classifier
        self.session = model_session(self.card.onnx, self.card.sha256, "model", self.runtime.detector, threads)
        weights()  # what every read needs besides the detector: refused here rather than at the first photo
        self.input_name = self.session.get_inputs()[0].name
        self.classifier = None
        if classifier and self.card.classifier and self.card.classifier_sha256:
            self.classifier = TileClassifier(self.card.classifier, self.card.classifier_sha256, threads,
                                             self.card.classifier_weight, settings.halve_from,
                                             self.runtime.classifier)

    def detect(self, image: np.ndarray, long_side: int | None = None, conf: float | None = None,
               faint_flowers: bool = False) -> Detections:
        """One pass over the whole BGR `image` resized to `long_side`; boxes in `image` pixels (and faint
        flowers, from `faint_flower`, with `faint_flowers`)."""
        blob, scale = self.network_input(image, long_side or self.card.imgsz)
        with stage(DETECTOR_NETWORK):
            output = self.session.run(None, {self.input_name: blob})[0][0]
        return decode(output, self.card.conf if conf is None else conf, self.settings.nms_iou,
                      self.settings.faint_flower if faint_flowers else None).scaled(scale)

    def network_input(self, image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
        """The network's input for `image` letterboxed to `long_side` (NCHW RGB float32 in [0, 1]), and the scale."""
        padded, scale = letterbox(image, long_side)
        blob: np.ndarray = cv2.dnn.blobFromImage(padded, 1.0, swapRB=True)  # NCHW RGB float32 in one pass (3x numpy's)
        blob /= 255.0
        return blob, scale

    @stage(DETECT)
    def look(self, photo: Photo, conf: float | None = None) -> tuple[int, tuple[Detections, int]]:
        """The reduction the photo's read needs its pixels at (`Photo.pixels`), and its first pass on them (`find`),
        for `read`. A JPEG of at least four times the first pass's input is decoded at the largest reduction that
        leaves it twice that input (`Photo.covering`; a 12 MP photo at 1/2), the size `resized` halves it to before
        its last shrink, for the first pass; then at the reduction that keeps its smallest sure tile `reduced_decode`
        crop heights tall, which its second passes and its tiles' crops are cut from (the whole photo where the first
        pass finds no tiles, or too small ones: `find` then looks larger)."""
        coarse = photo.covering(2 * self.card.imgsz) if self.settings.reduced_decode > 0 else 1
        if coarse == 1:
            return 1, self.find(photo.pixels(), conf)
        seen = photo.pixels(coarse)
        found = self.detect(seen, self.card.imgsz, conf, faint_flowers=True)
        sure = self.sure(found, conf)
        reduction = coarse
        small = not len(sure) or float(np.median(np.minimum(sure.widths, sure.heights))) * self.card.imgsz \
            < self.settings.min_found_tile * max(seen.shape[:2])
        least = 0.0 if small else float(sure.heights.min()) * photo.height / seen.shape[0]  # in the photo's pixels
        while reduction > 1 and least < reduction * self.settings.reduced_decode * CROP_H:
            reduction //= 2
        image = photo.pixels(reduction)
        found = found.scaled((seen.shape[1] / image.shape[1], seen.shape[0] / image.shape[0]))
        return reduction, self.find(image, conf, found)

    @stage(DETECT)
    def read(self, image: np.ndarray, conf: float | None = None, memory=None,
             first: tuple[Detections, int] | None = None) -> Detections:
        """Find the tiles; each cluster of tiles of one size (the hand near the camera, the discards
        farther off) that came out far from the trained tile size is read again, its region resized so
        its tiles match that size; with a classifier, each tile's scores then come from its crop. A photo
        whose tiles come out squashed is read with its width restored (`aspect_restore`). A table's `memory`
        of its own tiles (vision/memory.py) joins the classifier in reading each tile's face. `first`: the first
        pass on `image` (`find`) where the caller made it (`look`)."""
        found, long_side = first or self.find(image, conf)
        restore = aspect_restore(self.sure(found, conf), self.settings)
        if restore == 1.0:
            return self.read_found(image, found, long_side, conf, memory)
        h, w = image.shape[:2]
        # Widened 6x, a 12 MP photo would be 24000 px wide (220 MB, and as much again per copy): the
        # restored photo keeps the reader's largest side, giving up height instead.
        shrink = min(1.0, READ_SIDE / (w * restore))
        size = (round(w * restore * shrink), max(1, round(h * shrink)))
        restored = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR if shrink == 1.0 else cv2.INTER_AREA)
        found, long_side = self.find(restored, conf)
        return self.read_found(restored, found, long_side, conf, memory).scaled((size[0] / w, size[1] / h))

    def read_found(self, image: np.ndarray, first: Detections, long_side: int, conf: float | None,
                   memory=None) -> Detections:
        """`read` after the first pass (`find`) gave `first` at input size `long_side`."""
        if not len(first):
            return first
        faint = first[np.flatnonzero(first.confidences < self.threshold(conf))]
        first = self.sure(first, conf)  # a faint flower sizes no second pass
        if not len(first):
            return first
        parts, settings = [], self.settings
        for rank, members in enumerate(scale_clusters(first, settings)):
            group = first[members]
            tile_w = float(np.median(np.minimum(group.widths, group.heights)))
            scale = tile_w * long_side / max(image.shape[:2]) / self.card.tile_width  # its tiles at the input
            if rank >= settings.max_second_passes or settings.same_scale_from <= scale <= settings.same_scale_to \
                    or long_side < self.card.imgsz:  # a close-up, read shrunk amid grey (`close_up`): read so best
                parts.append(group)  # at the trained scale already (or one pass too many): keep as found
                continue
            second = self.read_region(image, group.boxes, tile_w, conf)
            # A first pass that boxed several tiles as one sizes the second pass wrong: keep whichever
            # reading is surer of more tiles, never less than the first pass found.
            parts.append(second if second.confidences.sum() >= group.confidences.sum() else group)
        dets = suppress_overlaps(Detections.concat(parts + [faint]), settings.nms_iou) \
            if len(parts) > 1 or len(faint) else parts[0]
        surely = dets.confidences >= self.threshold(conf)
        if self.classifier is None:  # nothing says whether a faint box is a flower
            return dets[np.flatnonzero(surely)]
        dets = self.classifier.rescore(image, dets, memory)
        flowers = dets.scores[:, FLOWER_CLASSES].sum(axis=1) / np.maximum(dets.presence, 1e-9)
        kept = surely | (flowers >= settings.faint_flower_sure)
        kept |= in_flower_run(dets.boxes, kept & (flowers >= 0.5), ~kept, settings.flower_run_touch)
        return dets[np.flatnonzero(kept)]

    def threshold(self, conf: float | None) -> float:
        """The score from which a box is a tile (the card's, unless the caller says)."""
        return self.card.conf if conf is None else conf

    def sure(self, dets: Detections, conf: float | None) -> Detections:
        """The boxes scored a tile surely (not the faint flowers kept beside them: `faint_flower`)."""
        return dets[np.flatnonzero(dets.confidences >= self.threshold(conf))]

    def read_region(self, image: np.ndarray, boxes: np.ndarray, tile_w: float, conf: float | None) -> Detections:
        """The region around `boxes` (with a margin of `region_margin` tile widths) resized so tiles `tile_w` wide
        come out at the trained tile width, read in one pass; boxes in photo pixels."""
        pad = self.settings.region_margin * tile_w
        h, w = image.shape[:2]
        x1, y1 = np.maximum(boxes[:, :2].min(axis=0) - pad, 0).astype(int)
        x2, y2 = np.minimum(boxes[:, 2:].max(axis=0) + pad, [w, h]).astype(int)
        region = image[y1:y2, x1:x2]
        found = self.detect(region, long_side=side_for(self.card, region, tile_w / self.settings.second_pass_scale),
                            conf=conf, faint_flowers=True)
        return Detections(found.boxes + np.array([x1, y1, x1, y1], np.float32), found.scores)

    def find(self, image: np.ndarray, conf: float | None, found: Detections | None = None) -> tuple[Detections, int]:
        """First pass: the whole photo at the model's size, then at 2x, 4x… while the tiles come out
        too small to be found reliably (a 17-tile row across a third of a 12 MP photo is ~8 px wide
        at 512), until the photo's own size, never past `first_pass_max` times the card's `max_side`
        (the cap). A size whose double would pass the cap is skipped for the cap itself (on a 12 MP
        photo 512, 1024, then 2560): a pass just under the cap finds no smaller tiles. A close-up is read shrunk
        after the first pass instead (`close_up`). Returns the detections (faint flowers among them, which `sure`
        leaves out) and the input size that found them (a close-up's: the photo's long side amid the grey).
        `found`: the pass at the model's size where the caller made it (`look`), in `image`'s pixels."""
        long_side, photo_side = self.card.imgsz, max(image.shape[:2])
        cap = self.settings.first_pass_max * self.card.max_side
        largest = min(photo_side * self.settings.first_pass_enlarge, cap)
        while True:
            if found is None or long_side != self.card.imgsz:
                found = self.detect(image, long_side=long_side, conf=conf, faint_flowers=True)
            sure = self.sure(found, conf)
            near = self.close_up(image, sure, conf) if long_side == self.card.imgsz else None
            if near is not None:
                return near
            input_tile = float(np.median(np.minimum(sure.widths, sure.heights))) * long_side / photo_side \
                if len(sure) else 0.0
            if input_tile >= self.settings.min_found_tile or long_side >= largest:
                return found, long_side
            doubled = 2 * long_side
            long_side = cap if 2 * doubled > cap and doubled < largest else doubled

    def close_up(self, image: np.ndarray, sure: Detections, conf: float | None) -> tuple[Detections, int] | None:
        """The photo read shrunk (`read_shrunk`) where the first pass at the model's size found no sure box, or a
        few (`close_up_boxes`), unsure (`close_up_unsure`), not too small to be found there (`min_found_tile`): a
        tile photographed close up, larger than the detector was trained on, is found as nothing, as slivers (its
        base, a neighbour's edge, its face in parts), or unsurely. The shrunk reading is kept where its tiles are
        close-ups (`close_up_share` of the photo's short side at the median) and it is surer of them than the first
        pass (the sum of their scores, slivers of one of its tiles counted as their surest: `held_score`); a photo
        of tiles far away finds none in it and is read larger as before. None where the photo is no close-up."""
        settings = self.settings
        if len(sure) > settings.close_up_boxes or len(sure) and (sure.confidences.max() >= settings.close_up_unsure
                or float(np.median(np.minimum(sure.widths, sure.heights))) * self.card.imgsz / max(image.shape[:2])
                < settings.min_found_tile):
            return None
        near, side = self.read_shrunk(image, conf)
        surely = self.sure(near, conf)
        if not len(surely) or np.median(np.minimum(surely.widths, surely.heights)) \
                < settings.close_up_share * min(image.shape[:2]):
            return None
        held = held_score(sure, surely.boxes, settings.sliver_inside)
        return (near, side) if surely.confidences.sum() > held else None

    def read_shrunk(self, image: np.ndarray, conf: float | None) -> tuple[Detections, int]:
        """One pass over the photo shrunk to `close_up_side` of the model's input size, in the middle of a grey
        canvas of that size (the letterbox's grey: a tile as large as the frame is read best with room around it);
        boxes in photo pixels (faint flowers among them), and the photo's long side in the canvas."""
        imgsz, (h, w) = self.card.imgsz, image.shape[:2]
        side = round(self.settings.close_up_side * imgsz)
        scale = side / max(h, w)
        nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
        x0, y0 = (imgsz - nw) // 2, (imgsz - nh) // 2
        canvas = np.full((imgsz, imgsz, 3), LETTERBOX_GREY, np.uint8)
        canvas[y0:y0 + nh, x0:x0 + nw] = resized(image, (nw, nh))
        found = self.detect(canvas, long_side=imgsz, conf=conf, faint_flowers=True)
        found = found.scaled(scale, (-x0 / scale, -y0 / scale))
        boxes = np.clip(found.boxes, 0, [w, h, w, h]).astype(np.float32)  # a box into the grey ends at the edge
        inside = (boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])
        return Detections(boxes, found.scores, found.data)[np.flatnonzero(inside)], side
