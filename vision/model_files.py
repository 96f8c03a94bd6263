"""The models folder and everything read from it: the model cards, checked field by field and against
the SHA-256 they record, what runs the networks (`runtime`: onnxruntime, or OpenVINO where TAISHU_RUNTIME
asks for it), and its sessions on the files they name.

`models/model.json` is the detector's card; it also records the hashes of the crop classifier and of
`hand_finder.json` (the hand finder's fitted weights). `models/classifier.json` is what training wrote
beside the classifier. The detector (vision/detector.py), the crop classifier (vision/crop_classifier.py)
and the hand finder (vision/hand_finding.py) load their files here, so none of them imports another for
its loading. Every problem is a ModelError whose notice names the file and, for a card, the field: the
command lines exit 2 on it and the page shows it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

import numpy as np

from scoring.hand import brief
from vision.classes import CLASSES
from vision.notices import Notice, NoticeError

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
HAND_FINDER = MODELS_DIR / "hand_finder.json"
# The detector's input sides are multiples of its network's stride.
STRIDE = 32
# The largest max_side a model card may ask for: a read's 1 GB bound is measured at it (tests/test_detector.py).
MAX_SIDE_LIMIT = 1280


class ModelError(NoticeError, RuntimeError):
    """A model file or card is missing, broken or does not match its recorded hash (its notice says which)."""


class CardProblem(ValueError):
    """A field of a model card that is missing or unusable; the message names it."""


@dataclass(frozen=True)
class ModelCard:
    """`models/model.json`: which file to load, its SHA-256, and how it was trained to see tiles."""

    onnx: Path
    sha256: str
    imgsz: int  # first-pass input size (long side)
    tile_width: float  # median tile width (px, at network input) the model was trained around
    max_side: int  # cap on the second pass's input long side
    conf: float = 0.25  # a box is a tile when its best class scores this much (chosen per model)
    classifier: Path | None = None  # the crop classifier (second stage), when the card names one
    classifier_sha256: str | None = None
    # its share in each tile's class scores against the detector's (vision/crop_classifier.py): it
    # depends on how well this detector reads classes, so it is chosen per model, as conf is
    classifier_weight: float = 1.0

    @classmethod
    def load(cls, models_dir: Path = MODELS_DIR) -> ModelCard:
        """The card in `models_dir`; ModelError naming the field when one is missing or out of range (an
        input size of 0 made the first pass double it forever)."""
        path = models_dir / "model.json"
        meta = read_card(path, "model")
        try:
            onnx, name = card_file(meta, "onnx"), meta.get("classifier") and card_file(meta, "classifier")
            imgsz = int(card_number(meta, "imgsz", STRIDE, MAX_SIDE_LIMIT, integer=True))
            return cls(models_dir / onnx, card_hash(meta, onnx), imgsz,
                       tile_width=card_number(meta, "tile_width", 1, imgsz),
                       max_side=int(card_number(meta, "max_side", imgsz, MAX_SIDE_LIMIT, integer=True)),
                       conf=card_number(meta, "conf", 0.001, 0.999, default=0.25),
                       classifier=models_dir / name if name else None,
                       classifier_sha256=card_hash(meta, name) if name else None,
                       classifier_weight=card_number(meta, "classifier_weight", 0, 1, default=1.0))
        except CardProblem as exc:
            raise broken_card("model", path, exc) from exc


def classifier_card(models_dir: Path = MODELS_DIR) -> tuple[Path, str]:
    """The crop classifier `models_dir/classifier.json` names (what its training wrote) and its SHA-256."""
    path = models_dir / "classifier.json"
    card = read_card(path, "classifier")
    try:
        name = card_file(card, "onnx")
        digest = card.get("sha256")
        if not is_sha256(digest):
            raise CardProblem(f"'sha256' is {brief(digest)}, expected the SHA-256 of {name}")
    except CardProblem as exc:
        raise broken_card("classifier", path, exc) from exc
    return models_dir / name, digest


def hand_finder_card(path: Path = HAND_FINDER):
    """The hand finder's JSON, once its bytes match the SHA-256 that `model.json` beside it records (as
    the detector's files do): what a photo's read needs besides the two networks."""
    card_path = path.parent / "model.json"
    try:
        sha256 = card_hash(read_card(card_path, "model"), path.name)
    except CardProblem as exc:
        raise broken_card("model", card_path, exc) from exc
    return json.loads(checked_file(path, sha256, "hand finder").read_bytes())  # its bytes are the ones hashed


# Chooses what runs the two networks, for comparisons (`runtime`): one of RUNTIME_CHOICES for both, or
# "detector=CHOICE,classifier=CHOICE" (a network left out keeps DEFAULT_CHOICE). "openvino" is OpenVINO in f32,
# the precision that keeps the readings; "openvino-bf16" is bf16 where the CPU has bfloat16 instructions.
RUNTIME_VARIABLE = "TAISHU_RUNTIME"
RUNTIME_CHOICES = ("onnxruntime", "openvino", "openvino-f32", "openvino-bf16")
NETWORKS = ("detector", "classifier")
# Where nothing is forced: on the CPU measured, OpenVINO in f32 reads alike and is no faster (slower under load), and
# bf16 is faster only where it moves the readings (the detector's in either pass; the classifier's by a tile, and
# no faster in a read): docs/decisions/inference-runtime.md.
DEFAULT_CHOICE = "onnxruntime"


@dataclass(frozen=True)
class Engine:
    """What runs one network: onnxruntime or openvino (`name`), its version, and the precision of its arithmetic
    (f32, or bf16 where OpenVINO runs on a CPU with bfloat16 instructions)."""

    name: str
    version: str
    precision: str

    def __str__(self) -> str:
        return f"{self.name} {self.version} {self.precision}"

    def to_json(self) -> dict:
        return {"engine": self.name, "version": self.version, "precision": self.precision}


@dataclass(frozen=True)
class Runtime:
    """What runs the detector and what runs the crop classifier."""

    detector: Engine
    classifier: Engine

    def __str__(self) -> str:
        if self.detector == self.classifier:
            return str(self.detector)
        return f"detector {self.detector}, classifier {self.classifier}"

    def to_json(self) -> dict:
        return {"detector": self.detector.to_json(), "classifier": self.classifier.to_json()}


def runtime() -> Runtime:
    """What runs each network: as `$TAISHU_RUNTIME` says, else DEFAULT_CHOICE. ModelError for a value it does not
    read, or openvino asked for and not installed."""
    return Runtime(**{network: engine(choice) for network, choice in runtime_choices().items()})


def runtime_choices() -> dict[str, str]:
    """Each network's choice (one of RUNTIME_CHOICES), from `$TAISHU_RUNTIME` and DEFAULT_CHOICE."""
    value = os.environ.get(RUNTIME_VARIABLE, "").strip()
    parts = [p.partition("=") for p in value.split(",")] if "=" in value else [(n, "=", value) for n in NETWORKS]
    forced = {network.strip(): choice.strip() for network, _, choice in parts if value}
    if not set(forced) <= set(NETWORKS) or not set(forced.values()) <= set(RUNTIME_CHOICES):
        raise ModelError(Notice.of("runtime-unknown", value=value, variable=RUNTIME_VARIABLE,
                                   choices=", ".join(RUNTIME_CHOICES)))
    if any(c.startswith("openvino") for c in forced.values()) and importlib.util.find_spec("openvino") is None:
        raise ModelError(Notice.of("runtime-missing", value=value, variable=RUNTIME_VARIABLE))
    return dict.fromkeys(NETWORKS, DEFAULT_CHOICE) | forced


def engine(choice: str) -> Engine:
    """The engine `choice` (one of RUNTIME_CHOICES) means on this CPU."""
    if choice == "onnxruntime":
        return Engine("onnxruntime", importlib.metadata.version("onnxruntime"), "f32")
    bf16 = choice == "openvino-bf16" and "BF16" in openvino_cpu_capabilities()
    return Engine("openvino", importlib.metadata.version("openvino"), "bf16" if bf16 else "f32")


@functools.cache
def openvino_core():
    """OpenVINO's Core, imported without its usage telemetry: `import openvino` loads its converter, which
    loads `openvino_telemetry` when installed; the reader converts nothing and sends nothing."""
    sys.modules.setdefault("openvino_telemetry", None)  # None: its import fails, and the converter takes its stub
    import openvino

    return openvino.Core()


def openvino_cpu_capabilities() -> list[str]:
    return openvino_core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


def model_session(path: Path, sha256: str, what: str, chosen: Engine, threads: int | None = None):
    """A session on the CPU for the model file `path`, once it matches its SHA-256, on the engine `chosen`: an
    onnxruntime InferenceSession, or an `OpenVinoSession` that answers the same calls; `threads` bounds its
    threads (the engine's choice when None)."""
    checked_file(path, sha256, what)
    if chosen.name == "openvino":
        return OpenVinoSession(path, chosen.precision, threads)
    import onnxruntime as ort  # here: the scorer's command line and the data tools import vision without it

    return ort.InferenceSession(str(path), session_options(threads), providers=["CPUExecutionProvider"])


def session_options(threads: int | None):
    """onnxruntime options for our models: `threads` intra-op threads (None: one per core), which sleep
    between runs rather than spin. A read alternates two sessions (the detector's passes, the crop
    classifier) and the machine is shared: a pool spinning after its run takes a core from the other
    session and from every other job. Same kernels, same outputs; on this 2-core machine under load the
    detector's passes and the classifier took about half as long (docs/decisions/read-speed.md)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


@dataclass(frozen=True)
class Port:
    """An input or output of a network as onnxruntime describes one: its name and shape (None: any size)."""

    name: str
    shape: list[int | None]


class OpenVinoSession:
    """A model compiled by OpenVINO for the CPU in `precision` (f32 or bf16), answering the calls of an
    onnxruntime InferenceSession that the readers make (`get_inputs`, `get_outputs`, `run`). One inference
    request serves every run, one run at a time: the page's sessions share one detector."""

    def __init__(self, path: Path, precision: str, threads: int | None = None) -> None:
        core = openvino_core()
        config: dict[str, str | int] = {"INFERENCE_PRECISION_HINT": precision, "PERFORMANCE_HINT": "LATENCY"}
        if threads:
            config["INFERENCE_NUM_THREADS"] = threads
        self.compiled = core.compile_model(core.read_model(str(path)), "CPU", config)
        self.request = self.compiled.create_infer_request()
        self.lock = threading.Lock()

    def get_inputs(self) -> list[Port]:
        return [port_of(p) for p in self.compiled.inputs]

    def get_outputs(self) -> list[Port]:
        return [port_of(p) for p in self.compiled.outputs]

    def run(self, output_names: list[str] | None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """The outputs named (all when None) for the inputs `feeds`, as arrays of their own (copied out of the
        request, which the next run reuses)."""
        with self.lock:
            results = self.request.infer(feeds)
            names = output_names or [p.any_name for p in self.compiled.outputs]
            return [results[self.compiled.output(name)] for name in names]


def port_of(port) -> Port:
    return Port(port.any_name, [d.get_length() if d.is_static else None for d in port.partial_shape])


def broken_card(what: str, path: Path, problem: CardProblem) -> ModelError:
    return ModelError(Notice.of("model-card-broken", what=what, path=str(path), why=str(problem)))


def card_file(meta: dict, key: str) -> str:
    """A file the card names: a plain name inside the card's folder."""
    name = meta.get(key)
    if not isinstance(name, str) or not name or Path(name).name != name:
        raise CardProblem(f"{key!r} is {brief(name)}, expected a file name in the card's folder")
    return name


def is_sha256(digest: object) -> TypeGuard[str]:
    return isinstance(digest, str) and len(digest) == 64


def card_hash(meta: dict, name: str) -> str:
    digest = meta.get("sha256", {}).get(name) if isinstance(meta.get("sha256"), dict) else None
    if not is_sha256(digest):
        raise CardProblem(f"no SHA-256 for {name} under 'sha256'")
    return digest


def card_number(meta: dict, key: str, low: float, high: float, *, integer: bool = False,
                default: float | None = None) -> float:
    """A number of the card, refused outside low..high (nan, a string or a boolean too)."""
    value = meta.get(key, default)
    kinds = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
        raise CardProblem(f"{key!r} is {brief(value)}, expected {'an integer' if integer else 'a number'} "
                          f"from {low} to {high}")
    return value if integer else float(value)


def read_card(path: Path, what: str) -> dict:
    """A model's JSON card, refused unless it exists, is a JSON object and lists our classes in our order."""
    if not path.exists():
        raise ModelError(Notice.of("model-card-missing", what=what, path=str(path)))
    try:
        card = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: not JSON, or not UTF-8
        raise ModelError(Notice.of("model-card-broken", what=what, path=str(path),
                                   why=f"not JSON we read ({str(exc)[:100]})")) from exc
    if not isinstance(card, dict):
        raise ModelError(Notice.of("model-card-broken", what=what, path=str(path),
                                   why=f"a JSON {type(card).__name__}, not an object"))
    if card.get("classes") != list(CLASSES):
        raise ModelError(Notice.of("model-classes-differ", what=what))
    return card


def checked_file(path: Path, sha256: str, what: str) -> Path:
    """`path`, once it exists and matches its recorded SHA-256 (ModelError otherwise)."""
    if not path.is_file():
        raise ModelError(Notice.of("model-file-missing", what=what, path=str(path)))
    actual = sha256_of(path)
    if actual != sha256:
        raise ModelError(Notice.of("model-corrupt", name=path.name, actual=actual[:12], expected=sha256[:12]))
    return path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
