#!/usr/bin/env bash
# One training session on a lent GPU machine (the `device` tool: python3 with torch + CUDA, 16 cores,
# no package registry). Run from the repository root there, with these prepared here first:
#   .whl/                      wheels of what the machine lacks (ultralytics, albumentations …; docs/data-and-training.md)
#   data/real-train/           python -m datasets real-train data/real-train
#   runs/transplant/peer43.pt  python -m training.transplant runs/transplant/peer43.pt
# It generates the scenes on the machine's cores (they are too many to carry), then trains two detectors
# side by side for the same time on the same mix, one continuing from the committed weights (v2), one from
# the peer's real-photo weights, and beside them the crop classifier on crops of the same scenes and of
# the real photos (those twice). It leaves both detectors' last checkpoints, the classifier and one
# archive of the logs, results and recipes in $OUT (the device tool brings back at most 8 files).
#   OUT=dir training/train_gpu.sh SECONDS SCENES [generate options]
# SECONDS is the whole run's budget: training gets what the scenes leave, less the time to save and pack.
set -uo pipefail
budget=${1:-540}
scenes=${2:-6000}
shift 2 || true
out=${OUT:-runs/gpu}
mkdir -p "$out"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi -L
# Fail in seconds, not after the scenes, when something is missing on the machine.
python3 -c "import torch, ultralytics, albumentations; from datasets.generate import generate; \
from training.train import mixed_data; assert torch.cuda.is_available(); print('torch', torch.__version__)" || exit 1
cores=$(nproc)
start=$(date +%s)
since_start() { echo $(( $(date +%s) - start )); }
python3 -m datasets generate data/gen-v3 --count "$scenes" --seed 3 --size 512 --val-fraction 0.02 \
    --workers "$cores" "$@" > "$out/generate.log" 2>&1 || { tail -20 "$out/generate.log"; exit 1; }
echo "scenes: $(ls data/gen-v3/images/train | wc -l) in $(since_start) s"
minutes=$(python3 -c "print(round(($budget - $(since_start) - 90) / 60, 2))")
hours=$(python3 -c "print(round($minutes / 60, 4))")
echo "training for $minutes min"
for run in from-v2:models/tiles.pt from-peer:runs/transplant/peer43.pt; do
    name=${run%%:*}
    python3 -m training.train data/gen-v3/data.yaml data/real-train/data.yaml:2 --from "${run#*:}" --name "v3-$name" \
        --device 0 --hours "$hours" --batch 32 --workers $(( cores / 2 - 1 )) > "$out/train-$name.log" 2>&1 &
done
(
    python3 -m training.crops data/gen-v3 --split train --max-crops 60000 --out data/crops/gen-v3-train.npz &&
    python3 -m training.crops data/gen-v3 --split val --out data/crops/gen-v3-val.npz &&
    python3 -m training.crops data/real-train --split train --jitters 2 --out data/crops/real-train.npz &&
    python3 -m training.train_classifier --train data/crops/gen-v3-train.npz data/crops/real-train.npz \
        data/crops/real-train.npz --val data/crops/gen-v3-val.npz --device cuda --batch 256 \
        --minutes "$(python3 -c "print(max(1.0, $minutes - 2.5))")" --out runs/classifier-v3
) > "$out/classifier.log" 2>&1 &
wait
mkdir -p runs/gpu-logs
for name in from-v2 from-peer; do
    tail -5 "$out/train-$name.log"
    cp "runs/train/v3-$name/weights/last.pt" "$out/v3-$name.pt" 2>/dev/null || echo "no checkpoint for $name"
    cp "runs/train/v3-$name/results.csv" "runs/gpu-logs/results-$name.csv" 2>/dev/null
    cp "runs/train/v3-$name/args.yaml" "runs/gpu-logs/args-$name.yaml" 2>/dev/null
done
tail -3 "$out/classifier.log"
cp runs/classifier-v3/tile_classifier.onnx "$out/" 2>/dev/null || echo "no classifier"
cp runs/classifier-v3/classifier.json data/gen-v3/recipe.json runs/gpu-logs/ 2>/dev/null
mv "$out"/*.log runs/gpu-logs/
tar czf "$out/logs.tar.gz" -C runs gpu-logs
ls -la "$out"
