"""Which runtime reads photos: the ONNX export on onnxruntime, or the .pt on ultralytics/torch?

    python -m training.compare_runtimes

Measures, on the committed sample photos at the first-pass input size: start-up (a fresh
process importing the runtime and loading the model), median forward-pass latency, and the
installed size of each runtime's packages in this virtualenv. The figures are in
docs/benchmarks.md.
"""

from __future__ import annotations

import importlib.metadata as md
import statistics
import subprocess
import sys
import time
from pathlib import Path

from vision.detector import TileDetector, letterbox
from vision.model_files import MODELS_DIR
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


def main() -> None:
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
