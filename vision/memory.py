"""A table's memory of its own tile set: examples of how this set's tiles look, to read its next photos by.

A table plays one set all evening, and every hand the players confirm is a labelled photo of that set.
The memory keeps, for each class, the embeddings of the newest PER_CLASS of its tiles (the crop
classifier's pooled features before its linear layer: `TileClassifier.read_crops`; a flower's `steadied` over
small moves of its crop), taught from a photo's boxes and the codes the players confirmed (`teach`). A photo
read with it (`read_photo(..., memory=)`, `TileDetector.read(..., memory=)`) has each tile's class
probabilities blended with how like the table's own examples its crop is (`blend_crops`, `blend`, by the
memory's `ReaderSettings`), and with what a linear probe fitted on those examples says (`fit_probe`: it tells
apart a set's alike tiles that a nearest example does not). Among the classes with no example yet the model
decides; where a crop is plainly of this set, they count as `similar` like it.

The memory is stored with the table (the ledger's SQLite, a file for `python -m vision`) as bytes
(`to_bytes` / `from_bytes`): JSON with a format name and version and the SHA-256 of the classifier whose
embeddings it holds, since another classifier's embeddings mean nothing to this one. A corrupt, foreign or
other-classifier memory is refused with a `TableMemoryError` that says which.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import cv2
import numpy as np

from scoring.tiles import FLOWERS
from vision.classes import CLASSES
from vision.crop_classifier import CROP_H, CROP_W, TileClassifier
from vision.detections import FLOWER_CLASSES
from vision.files import write_atomically
from vision.notices import Notice, NoticeError
from vision.settings import READER_DEFAULT, ReaderSettings

FORMAT, VERSION = "taishu-table-memory", 1
PER_CLASS = 4  # examples kept per class, the newest: a set's tiles of one code look alike, and lighting changes
# The most bytes a memory is (a full one is about 89 KB), the ledger's bound (`ledger.MAX_MEMORY_BYTES`, which
# cannot import vision): a memory file is refused beyond it before it is read.
MAX_BYTES = 512 * 1024
UNIT_TOLERANCE = 0.01  # a stored example's length off 1 (float16 rounding is about 0.001)


class TableMemoryError(NoticeError, ValueError):
    """A memory that cannot be used: corrupt, not a memory, of another version or another classifier."""


def unit(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1: the embeddings as the memory compares them (cosine similarity)."""
    vectors = np.asarray(vectors, np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


@dataclass
class TableMemory:
    classifier: str  # SHA-256 of the crop classifier whose embeddings these are
    per_class: int = PER_CLASS
    examples: dict[str, np.ndarray] = field(default_factory=dict)  # code → (k, D) unit embeddings, oldest first
    # how `blend` weighs the examples (`similar` … `probe_rate`): the reader's, not the table's, so not stored
    settings: ReaderSettings = READER_DEFAULT
    # the linear probe fitted on `examples` (`_probe_log_odds`): their digest, weights, bias
    _probe: tuple[bytes, np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def for_classifier(cls, classifier: TileClassifier, per_class: int = PER_CLASS,
                       settings: ReaderSettings = READER_DEFAULT) -> TableMemory:
        """An empty memory for this classifier's embeddings (refused when it gives none), weighed as `settings` say."""
        if not classifier.embeds:
            raise TableMemoryError(Notice.of("memory-no-embedding"))
        return cls(classifier.sha256, per_class, settings=settings)

    def __len__(self) -> int:
        return sum(len(v) for v in self.examples.values())

    def counts(self) -> dict[str, int]:
        """Examples kept per class, in the classes' order."""
        return {c: len(self.examples[c]) for c in CLASSES if c in self.examples}

    def reset(self) -> None:
        self.examples.clear()

    def check(self, classifier: TileClassifier) -> None:
        """Refuse to read with a memory of another classifier's embeddings (the models were replaced)."""
        if classifier.sha256 != self.classifier or not classifier.embeds:
            raise TableMemoryError(Notice.of("memory-other-classifier", made=self.classifier[:12],
                                             now=classifier.sha256[:12]))

    def add(self, embeddings: np.ndarray, codes: list[str]) -> None:
        """Keep these tiles' embeddings as examples of their codes, the oldest of a class dropped beyond
        `per_class`."""
        unknown = sorted(set(codes) - set(CLASSES))
        if unknown:
            raise ValueError(f"not tile classes: {unknown}")
        vectors = unit(embeddings)
        for code in dict.fromkeys(codes):
            new = vectors[[i for i, c in enumerate(codes) if c == code]]
            kept = self.examples.get(code, np.zeros((0, vectors.shape[1]), np.float32))
            self.examples[code] = np.concatenate([kept, new])[-self.per_class:]

    def teach(self, classifier: TileClassifier, image: np.ndarray, boxes: np.ndarray, codes: list[str]) -> None:
        """Learn this table's set from a photo: each box (xyxy, in `image`'s pixels) holds a tile of its code,
        as the players confirmed it."""
        self.check(classifier)
        if len(boxes) != len(codes):
            raise ValueError(f"{len(boxes)} boxes but {len(codes)} codes")
        if len(boxes):
            self.add(embed(classifier, image, boxes, codes, self.settings), list(codes))

    def blend_crops(self, classifier: TileClassifier, crops: np.ndarray, probs: np.ndarray,
                    embeddings: np.ndarray) -> np.ndarray:
        """`blend` for the tiles of these crops (`classifier`'s probabilities and embeddings of them), each crop
        the models hold likely a flower (`flower_views_from` of its probability or more) compared `steadied`, as
        the flowers taught are."""
        if not self.examples or not len(probs):
            return probs
        flowers = probs[:, FLOWER_CLASSES].sum(axis=1) >= self.settings.flower_views_from
        return self.blend(probs, steadied(classifier, crops, embeddings, flowers, self.settings.flower_view_shift))

    def blend(self, probs: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        """Each tile's class probabilities (N, 43) with the table's examples' word, weighed as `settings` say: a
        class with examples gains (or loses) log-odds by how much more (or less) like its nearest example the
        tile's crop is than `similar`, and, where the likest example is of this set (`same_set`), loses more the
        less like the crop it is than that one (`relative`) and by what the probe fitted on the examples says of
        it (`probe`). A class without examples counts as `similar` like the crop: the model's word stands among
        such classes, and where the crop is of this set they lose as a class whose nearest example is that like
        it (one set's flower the model reads as the bamboo bird, which the table has not shown yet, is the set's
        flower its examples say). An empty memory changes nothing."""
        if not self.examples or not len(probs):
            return probs
        rows, bank, kept = self._bank()
        # each tile's similarity to the nearest example of each class (a padding slot is no example)
        nearest = np.where(kept[:, :, None], bank @ unit(embeddings).T, -1.0).max(axis=1).T
        likest = nearest.max(axis=1, keepdims=True)
        s = self.settings
        own_set = likest >= s.same_set
        shift = np.where(own_set, s.relative * (s.similar - likest), 0.0).repeat(probs.shape[1], axis=1)
        shift[:, rows] = np.clip(s.strength * (nearest - s.similar), -s.max_down, s.max_shift) + np.where(
            own_set, s.relative * (nearest - likest) + s.probe * self._probe_log_odds(bank, kept, embeddings), 0.0)
        log_p = np.log(np.clip(probs, 1e-9, None)) + shift
        out = np.exp(log_p - log_p.max(axis=1, keepdims=True))
        return (out / out.sum(axis=1, keepdims=True)).astype(np.float32)

    def _probe_log_odds(self, bank: np.ndarray, kept: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        """(N, classes with examples): each class's log-probability less the likeliest's under the linear probe
        fitted on the examples (`fit_probe`, kept until they change); zeros while fewer than two classes have
        examples or the probe has no weight."""
        if self.settings.probe == 0 or len(bank) < 2:
            return np.zeros((len(embeddings), len(bank)))
        key = hashlib.blake2b(bank.tobytes() + kept.tobytes(), digest_size=16).digest()
        if self._probe is None or self._probe[0] != key:
            labels = np.repeat(np.arange(len(bank)), kept.sum(axis=1))
            self._probe = key, *fit_probe(bank[kept], labels, len(bank), self.settings)
        _, weights, bias = self._probe
        logits = unit(embeddings).astype(np.float64) @ weights.T + bias
        return logits - logits.max(axis=1, keepdims=True)

    def _bank(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The classes with examples (their indices), their examples as (classes, per_class, D) padded with
        zeros, and which slots hold one."""
        codes = [c for c in CLASSES if c in self.examples]
        bank = np.zeros((len(codes), self.per_class, self.examples[codes[0]].shape[1]), np.float32)
        kept = np.zeros(bank.shape[:2], bool)
        for k, code in enumerate(codes):
            bank[k, :len(self.examples[code])] = self.examples[code]
            kept[k, :len(self.examples[code])] = True
        return np.array([CLASSES.index(c) for c in codes]), bank, kept

    def to_bytes(self) -> bytes:
        """The memory as UTF-8 JSON: format, version, classifier, per class its examples (float16, base64)."""
        examples = {c: base64.b64encode(self.examples[c].astype(np.float16).tobytes()).decode("ascii")
                    for c in CLASSES if c in self.examples}
        dim = next(iter(self.examples.values())).shape[1] if self.examples else 0
        return json.dumps({"format": FORMAT, "version": VERSION, "classifier": self.classifier,
                           "per_class": self.per_class, "dim": dim, "examples": examples}).encode()

    @classmethod
    def from_bytes(cls, data: bytes, what: str = "the memory") -> TableMemory:
        """A memory from `to_bytes`; a TableMemoryError naming `what` (a file's name) if it is not one: its
        header (`per_class`, `dim`) must fit its examples, each of unit length (`add`), as many as it keeps."""
        if len(data) > MAX_BYTES:
            raise TableMemoryError(Notice.of("memory-too-big", name=what, limit=MAX_BYTES))
        try:
            card = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise TableMemoryError(Notice.of("memory-not-memory", name=what)) from None
        if not isinstance(card, dict) or card.get("format") != FORMAT:
            raise TableMemoryError(Notice.of("memory-not-memory", name=what))
        if card.get("version") != VERSION:
            raise TableMemoryError(Notice.of("memory-version", name=what, version=str(card.get("version")),
                                             expected=VERSION))
        try:
            dim, per_class, examples = int(card["dim"]), int(card["per_class"]), dict(card["examples"])
            # no more examples of a class than fit in a memory's bytes (float16: 2 bytes a number; an empty
            # memory has no width)
            if dim < 0 or not 1 <= per_class <= MAX_BYTES // (2 * max(dim, 1)):
                raise ValueError(dim, per_class)
            memory = cls(str(card["classifier"]), per_class)
            for code, text in examples.items():
                if code not in CLASSES:
                    raise ValueError(code)
                vectors = np.frombuffer(base64.b64decode(text, validate=True), np.float16)
                memory.examples[code] = vectors.reshape(-1, dim).astype(np.float32)
        except (KeyError, TypeError, ValueError, binascii.Error):
            raise TableMemoryError(Notice.of("memory-corrupt", name=what)) from None
        if not all(_fits(v, per_class) for v in memory.examples.values()):
            raise TableMemoryError(Notice.of("memory-corrupt", name=what))
        return memory


def _fits(vectors: np.ndarray, per_class: int) -> bool:
    """Examples as `add` keeps them: at most `per_class`, each of unit length (a zero embedding stays zero),
    so a `dim` other than the one they were cut by shows."""
    lengths = np.linalg.norm(vectors, axis=1)
    return len(vectors) <= per_class and bool(
        ((np.abs(lengths - 1) <= UNIT_TOLERANCE) | (lengths == 0)).all())


def fit_probe(examples: np.ndarray, labels: np.ndarray, classes: int,
              settings: ReaderSettings) -> tuple[np.ndarray, np.ndarray]:
    """A multinomial logistic regression of `labels` (0..classes-1) on `examples` (n, D unit embeddings) scaled
    by `probe_scale`: (classes, D) weights applying to unit embeddings, and (classes,) biases. Full-batch
    gradient descent from zero, `probe_steps` steps at `probe_rate`, L2 `probe_l2` on the weights: the same
    examples give the same probe."""
    x = examples.astype(np.float64) * settings.probe_scale
    target = np.eye(classes)[labels]
    weights, bias = np.zeros((classes, x.shape[1])), np.zeros(classes)
    for _ in range(settings.probe_steps):
        logits = x @ weights.T + bias
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        error = (p / p.sum(axis=1, keepdims=True) - target) / len(x)
        weights -= settings.probe_rate * (error.T @ x + settings.probe_l2 * weights)
        bias -= settings.probe_rate * error.sum(axis=0)
    return weights * settings.probe_scale, bias


def embed(classifier: TileClassifier, image: np.ndarray, boxes: np.ndarray, codes: list[str],
          settings: ReaderSettings = READER_DEFAULT) -> np.ndarray:
    """The embeddings a memory keeps of the tiles in these boxes (xyxy, `image`'s pixels) of these codes, the
    flowers' `steadied`: the costly part of teaching, which the app does before it takes the ledger's write lock
    to `add` them."""
    crops = classifier.crops(image, boxes)
    embeddings = cast(np.ndarray, classifier.read_crops(crops)[1])  # a memory's classifier embeds (`for_classifier`)
    return steadied(classifier, crops, embeddings, np.isin(list(codes), FLOWERS), settings.flower_view_shift)


def steadied(classifier: TileClassifier, crops: np.ndarray, embeddings: np.ndarray, which: np.ndarray,
             shift: int) -> np.ndarray:
    """`embeddings` (of `crops`, by `classifier`) with those of the crops `which` replaced by the sum of the unit
    embeddings of the crop and of the crop moved `shift` pixels left, right, up and down (its edge repeated):
    one set's flowers differ in a few strokes, and one crop's embedding moves with its box's error about as
    much (docs/decisions/flowers-steadied.md). The memory compares directions only, so a sum is the mean."""
    which = np.flatnonzero(which)
    if not len(which) or shift <= 0:
        return embeddings
    moves = [(shift, 0), (-shift, 0), (0, shift), (0, -shift)]
    views = np.concatenate([moved(crops[which], dx, dy) for dx, dy in moves])
    moved_embeddings = cast(np.ndarray, classifier.read_crops(views)[1])
    sums = unit(embeddings[which]) + unit(moved_embeddings).reshape(len(moves), len(which), -1).sum(0)
    out = embeddings.copy()
    out[which] = sums
    return out


def moved(crops: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """Each (CROP_H, CROP_W, 3) crop moved `dx` pixels right and `dy` down, the edge it leaves repeated."""
    shift = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    return np.stack([cv2.warpAffine(c, shift, (CROP_W, CROP_H), borderMode=cv2.BORDER_REPLICATE) for c in crops])


def load_memory(path: Path, classifier: TileClassifier) -> TableMemory:
    """The memory in file `path` for reading with `classifier`: an empty one when there is no such file;
    a TableMemoryError when it is not a memory this classifier can use."""
    if not path.exists():
        return TableMemory.for_classifier(classifier)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_BYTES + 1)  # enough to tell one too big (`from_bytes` refuses it) unread
    except OSError as exc:
        raise TableMemoryError(Notice.of("memory-not-memory", name=f"{path} ({exc.strerror})")) from None
    memory = TableMemory.from_bytes(data, str(path))
    memory.check(classifier)
    return memory


def save_memory(memory: TableMemory, path: Path) -> None:
    """Write the memory to `path` whole or not at all (a half-written memory would be refused as corrupt), and
    a failed write (a full disk) leaves nothing beside it."""
    write_atomically(path, memory.to_bytes())
