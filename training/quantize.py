"""Post-training int8 quantization of the detector or the crop classifier, calibrated on real training photos only,
written as a models folder that `training.evaluate --models OUT` and `training.bench` judge beside the committed one.

    python -m training.quantize OUT --network detector|classifier [--by onnxruntime|nncf] [--photos 60]
                                [--calibration minmax|percentile]

The calibration photos are the first `--photos` of the shared folder's real training splits (`data/real-
labelled/*/images/train`, shuffled with a fixed seed; never a test or validation photo): the detector sees each at
its first pass's input, the classifier the crops of each photo's labelled tiles. `--by onnxruntime`: onnxruntime's
static quantization (QDQ, int8 weights per channel, uint8 activations), the detector's head after its last
convolutions left in f32 (boxes and class scores share one output, which one scale would crush); `--by nncf`: NNCF's
(`pip install nncf`, not a dependency of the project; its own calibration and bias correction), the same part of the
head left in f32, meant to run on OpenVINO (`TAISHU_RUNTIME=detector=openvino`). OUT holds the models folder's cards
with the quantized network in place of the f32 one and its hash; then each network's time, f32 and int8 in turn, on
onnxruntime and OpenVINO where installed (fastest of 15 runs, 2 threads, wall and CPU). Figures and the decision:
docs/decisions/inference-runtime.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import time
from pathlib import Path

import numpy as np

from datasets.shared import require_shared
from datasets.yolo import label_path_of
from vision.crop_classifier import cut_crops
from vision.detector import TileDetector
from vision.model_files import MODELS_DIR
from vision.photo import load_photo
from vision.settings import DETECTOR_DEFAULT

CARDS = ("model.json", "classifier.json", "hand_finder.json")


def training_photos(count: int) -> list[Path]:
    """The first `count` real training photos, shuffled with a fixed seed."""
    photos = sorted(require_shared("data", "real-labelled", needed_for="calibrating int8").glob("*/images/train/*"))
    random.Random(0).shuffle(photos)
    return photos[:count]


def calibration(network: str, photos: list[Path], detector: TileDetector) -> list[np.ndarray]:
    """The network's inputs: each photo at the first pass's input, or its labelled tiles' crops in batches of 64."""
    if network == "detector":
        return [detector.network_input(load_photo(p), detector.card.imgsz)[0] for p in photos]
    crops = []
    for photo in photos:
        image = load_photo(photo)
        h, w = image.shape[:2]
        rows = np.array([line.split()[1:5] for line in label_path_of(photo.parents[2], photo).read_text().splitlines()
                         if line.strip()], np.float64).reshape(-1, 4)
        boxes = np.stack([(rows[:, 0] - rows[:, 2] / 2) * w, (rows[:, 1] - rows[:, 3] / 2) * h,
                          (rows[:, 0] + rows[:, 2] / 2) * w, (rows[:, 1] + rows[:, 3] / 2) * h], axis=1)
        crops.append(cut_crops(image, boxes.astype(np.float32), DETECTOR_DEFAULT.halve_from))
    every = np.concatenate(crops)
    return [every[i:i + 64] for i in range(0, len(every), 64)]


def head_post_processing(onnx_path: Path) -> list[str]:
    """The detector's head after its last convolutions (ultralytics' `model.23`: decoding the boxes, the sigmoid)."""
    import onnx

    return [n.name for n in onnx.load(str(onnx_path)).graph.node
            if n.name.startswith("/model.23/") and (n.op_type != "Conv" or "/dfl/" in n.name)]


def by_onnxruntime(source: Path, out: Path, inputs: list[np.ndarray], name: str, exclude: list[str],
                   method: str) -> None:
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Feed(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = iter(inputs)

        def get_next(self) -> dict | None:
            batch = next(self.left, None)
            return None if batch is None else {name: batch}

    prepared = out.with_suffix(".pre.onnx")
    quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
    chosen = {"minmax": (CalibrationMethod.MinMax, {}),
              "percentile": (CalibrationMethod.Percentile, {"CalibPercentile": 99.999})}[method]
    quantize_static(str(prepared), str(out), Feed(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, nodes_to_exclude=exclude,
                    calibrate_method=chosen[0], extra_options=chosen[1])
    prepared.unlink()


def by_nncf(source: Path, out: Path, inputs: list[np.ndarray], name: str, network: str) -> None:
    try:
        import nncf
    except ImportError as exc:
        raise SystemExit("error: --by nncf needs NNCF: pip install nncf") from exc
    import onnx

    ignored = nncf.IgnoredScope(names=head_post_processing(source)) if network == "detector" else None
    quantized = nncf.quantize(onnx.load(str(source)), nncf.Dataset(inputs, lambda batch: {name: batch}),
                              preset=nncf.QuantizationPreset.MIXED, ignored_scope=ignored, subset_size=len(inputs))
    onnx.save(quantized, str(out))


def models_folder(out: Path, network: str, quantized: Path) -> None:
    """OUT as a models folder: the committed cards and networks, the quantized one in place with its hash."""
    card = json.loads((MODELS_DIR / "model.json").read_text())
    key = "onnx" if network == "detector" else "classifier"
    for name in [*CARDS, card["onnx"], card["classifier"]]:
        if name != card[key]:
            shutil.copy(MODELS_DIR / name, out / name)
    quantized.replace(out / card[key])
    card["sha256"][card[key]] = hashlib.sha256((out / card[key]).read_bytes()).hexdigest()
    (out / "model.json").write_text(json.dumps(card, indent=1) + "\n")


def timed(run, feed: dict) -> tuple[float, float]:
    """The fastest of 15 runs: wall and CPU seconds."""
    best = (float("inf"), float("inf"))
    for _ in range(15):
        wall, cpu = time.perf_counter(), time.process_time()
        run(feed)
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def speeds(networks: dict[str, Path], name: str, feed: np.ndarray) -> None:
    """Each network's time on `feed`, in turn on onnxruntime and OpenVINO (where installed), 2 threads."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = 2, 1
    runners = {f"onnxruntime {label}": ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"]).run
               for label, path in networks.items()}
    try:
        import openvino

        core = openvino.Core()
        for label, path in networks.items():
            compiled = core.compile_model(str(path), "CPU", {"INFERENCE_NUM_THREADS": 2,
                                                             "INFERENCE_PRECISION_HINT": "f32"})
            runners[f"OpenVINO {label}"] = lambda feed, compiled=compiled: compiled(feed)
    except ImportError:
        pass
    for label, run in runners.items():
        wall, cpu = timed(run if label.startswith("OpenVINO") else lambda feed, run=run: run(None, feed),
                          {name: feed})
        print(f"{label:28s}: {wall * 1000:6.1f} ms wall, {cpu * 1000:6.1f} ms CPU (input {list(feed.shape)})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.quantize", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the models folder to write (made if missing)")
    parser.add_argument("--network", choices=("detector", "classifier"), required=True)
    parser.add_argument("--by", choices=("onnxruntime", "nncf"), default="onnxruntime")
    parser.add_argument("--photos", type=int, default=60, help="real training photos to calibrate on")
    parser.add_argument("--calibration", choices=("minmax", "percentile"), default="minmax",
                        help="onnxruntime's activation ranges: the extremes seen, or their 99.999th percentiles")
    args = parser.parse_args(argv)
    detector = TileDetector(classifier=args.network == "classifier")
    session = detector.session if args.network == "detector" else detector.classifier.session
    source = detector.card.onnx if args.network == "detector" else detector.card.classifier
    name = session.get_inputs()[0].name
    inputs = calibration(args.network, training_photos(args.photos), detector)
    args.out.mkdir(parents=True, exist_ok=True)
    quantized = args.out / "int8.onnx"
    if args.by == "nncf":
        by_nncf(source, quantized, inputs, name, args.network)
    else:
        exclude = head_post_processing(source) if args.network == "detector" else []
        by_onnxruntime(source, quantized, inputs, name, exclude, args.calibration)
    models_folder(args.out, args.network, quantized)
    print(f"{args.out}: the committed models with the {args.network} quantized to int8 by {args.by}, calibrated "
          f"on {args.photos} real training photos")
    speeds({"f32": source, "int8": args.out / source.name}, name, inputs[0])


if __name__ == "__main__":
    main()
