"""Import ultralytics with every network path shut: no font, weight or asset downloads, no
auto-installs, no telemetry. Everything that trains, exports or evaluates goes through here."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def load_ultralytics():
    """Return the `ultralytics` module configured to stay offline (settings live in the repo's runs/)."""
    os.environ["YOLO_OFFLINE"] = "1"  # is_online() → False: no hub, no asset downloads attempted
    os.environ["YOLO_AUTOINSTALL"] = "false"  # never pip-install missing export dependencies
    os.environ.setdefault("YOLO_CONFIG_DIR", str(REPO / "runs" / "ultralytics-config"))
    Path(os.environ["YOLO_CONFIG_DIR"]).mkdir(parents=True, exist_ok=True)
    import ultralytics
    from matplotlib import font_manager
    from ultralytics.utils import SETTINGS, USER_CONFIG_DIR, torch_utils

    # Its dataset check looks for a plotting font and downloads one when missing, even offline:
    # give it matplotlib's DejaVu Sans under the names it asks for.
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (USER_CONFIG_DIR / name).exists():
            USER_CONFIG_DIR.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(font_manager.findfont("DejaVu Sans", fallback_to_default=True), USER_CONFIG_DIR / name)
    # ultralytics gives torch cores-1 threads on a CPU: one thread on a 2-core machine. Use them all.
    torch_utils.NUM_THREADS = os.cpu_count() or 1

    SETTINGS.update({"sync": False, "clearml": False, "comet": False, "dvc": False, "mlflow": False,
                     "raytune": False, "tensorboard": False, "wandb": False, "vscode_msg": False,
                     "openvino_msg": False, "weights_dir": str(REPO / "runs" / "weights"),
                     "runs_dir": str(REPO / "runs"), "datasets_dir": str(REPO / "data")})
    return ultralytics
