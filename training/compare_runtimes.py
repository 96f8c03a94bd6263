"""Which runtime reads photos: the ONNX export on onnxruntime, or the .pt on ultralytics/torch? And on which
engine the two networks run fastest: onnxruntime, OpenVINO in f32, OpenVINO in bf16?

    python -m training.compare_runtimes
    python -m training.compare_runtimes --engines [--repeat 15] [--threads 2]

Measures, on the committed sample photos at the first-pass input size: start-up (a fresh
process importing the runtime and loading the model), median forward-pass latency, and the
installed size of each runtime's packages in this virtualenv; the figures are in docs/benchmarks.md.
`--engines` times each network alone on each engine (`vision.model_files.engine`), the engines in
turn so that a shared machine's load falls on all alike, each the fastest of `--repeat` runs: the detector at its
first pass's 512 px and at 1024 px, the crop classifier on a batch of its crops; docs/decisions/inference-runtime.md.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import importlib.util
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from vision.crop_classifier import BATCH, CROP_H, CROP_W
from vision.detector import TileDetector, letterbox
from vision.model_files import MODELS_DIR, ModelCard, classifier_card, engine, model_session, openvino_cpu_capabilities
from vision.photo import load_photo

REPO = Path(__file__).resolve().parents[1]
SAMPLES = sorted((REPO / "tests" / "data" / "samples").glob("*.jpg"))

STARTUP = {
    "onnxruntime": "from vision.detector import TileDetector; TileDetector()",
    "ultralytics": ("from training.ultralytics_env import load_ultralytics; load_ultralytics(); "
                    f"from ultralytics import YOLO; YOLO({str(MODELS_DIR / 'tiles.pt')!r})"),
}
PACKAGES = {
    "onnxruntime": ["onnxruntime", "numpy", "opencv-python-headless", "flatbuffers", "protobuf"],
    "ultralytics": ["ultralytics", "torch", "torchvision", "numpy", "opencv-python", "matplotlib", "polars",
                    "scipy", "pillow", "pyyaml", "psutil", "requests", "ultralytics-thop", "sympy", "networkx",
                    "jinja2", "fsspec", "filelock", "triton", "cuda-toolkit", "cuda-bindings"],
}


def installed_mb(names: list[str]) -> float:
    """Size on disk of these distributions and of the nvidia-* wheels torch pulls in."""
    wanted = {n.lower() for n in names}
    total = 0
    for dist in md.distributions():
        name = dist.metadata["Name"].lower()
        if name in wanted or ("torch" in wanted and name.startswith("nvidia-")):
            total += sum((dist.locate_file(f).stat().st_size for f in dist.files or []
                          if dist.locate_file(f).exists()), 0)
    return total / 2**20


def startup_s(code: str, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def engine_times(repeat: int, threads: int) -> None:
    """Print each network's fastest run on each engine (OpenVINO's where it is installed)."""
    choices = ["onnxruntime"] + (["openvino-f32", "openvino-bf16"] if importlib.util.find_spec("openvino") else [])
    engines = [engine(c) for c in choices]
    if len(engines) > 1:
        print(f"OpenVINO's CPU capabilities: {' '.join(openvino_cpu_capabilities())}")
    card, (onnx, sha256) = ModelCard.load(), classifier_card()
    rng = np.random.default_rng(0)
    cases = {f"detector {side} px": (card.onnx, card.sha256, "model", rng.random((1, 3, side, side), np.float32))
             for side in (card.imgsz, 1024)}
    cases[f"classifier {BATCH} crops"] = (onnx, sha256, "classifier",
                                          rng.integers(0, 256, (BATCH, CROP_H, CROP_W, 3), dtype=np.uint8))
    for name, (path, digest, what, x) in cases.items():
        sessions = [model_session(path, digest, what, e, threads) for e in engines]
        feeds = [{s.get_inputs()[0].name: x} for s in sessions]
        times = [[] for _ in sessions]
        for _ in range(repeat + 1):  # the first run of each is left out: OpenVINO compiles for a new shape then
            for session, feed, taken in zip(sessions, feeds, times, strict=True):
                start = time.perf_counter()
                session.run(None, feed)
                taken.append(time.perf_counter() - start)
        print(f"{name:22s} " + "  ".join(f"{e}: {1000 * min(t[1:]):6.1f} ms" for e, t in zip(engines, times,
                                                                                          strict=True)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.compare_runtimes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engines", action="store_true", help="time each network on each engine instead")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.engines:
        engine_times(args.repeat, args.threads)
        return
    from training.ultralytics_env import load_ultralytics

    load_ultralytics()
    from ultralytics import YOLO

    detector = TileDetector()
    model = YOLO(str(MODELS_DIR / "tiles.pt"))
    inputs = [letterbox(load_photo(p), detector.card.imgsz)[0] for p in SAMPLES]
    lat = {"onnxruntime": [], "ultralytics": []}
    for _ in range(3):
        for padded in inputs:
            start = time.perf_counter()
            detector.detect(padded, long_side=max(padded.shape[:2]))
            lat["onnxruntime"].append(time.perf_counter() - start)
            start = time.perf_counter()
            model.predict(padded, imgsz=list(padded.shape[:2]), agnostic_nms=True, device="cpu", verbose=False)
            lat["ultralytics"].append(time.perf_counter() - start)
    print(f"{'runtime':<12} {'start-up s':>10} {'latency ms':>11} {'installed MB':>13}")
    for name in ("onnxruntime", "ultralytics"):
        print(f"{name:<12} {startup_s(STARTUP[name]):>10.2f} {1000 * statistics.median(lat[name]):>11.1f} "
              f"{installed_mb(PACKAGES[name]):>13.0f}")


if __name__ == "__main__":
    main()
