#!/usr/bin/env bash
# Crop-classifier candidates side by side on a lent GPU machine (the `device` tool: python3 with torch + CUDA,
# 16 cores, no fonts, no package registry). Run from the repository root there, with these prepared here:
#   data/real-train/   python -m datasets real-train data/real-train
#   .fonts/            python -m training.font_subsets .fonts   (after installing the fonts docs/data-and-training.md names)
#   .whl/              wheels of what the machine lacks: albumentations, albucore, pydantic, pydantic-core,
#                      annotated-types, typing-inspection, simsimd, stringzilla (cp312, x86-64)
# pillow-heif (HEIC photos, imported by vision.photo) is missing there too, and its wheel does not fit in the
# 64 MiB the tool carries beside the data; training reads no HEIC, so a stand-in that registers nothing is used.
# It makes the data on the machine's cores (too large to carry): generated table scenes cut into crops, the real
# train photos' crops (all, their flowers, their 萬 numerals and winds), generated flower faces with honour foils;
# then trains the candidates of CANDIDATES below at once on the one GPU for what the budget leaves, and puts
# each candidate's folder (ONNX, torch weights, classifier.json, last training state) and the logs in $OUT.
#   OUT=dir training/classifier_gpu.sh SECONDS [SCENES] [FLOWER_FACES] [DEVICE]
# SECONDS is the whole run's budget. A smoke test here (a few minutes):
#   PATH=$PWD/.venv/bin:$PATH OUT=/tmp/o training/classifier_gpu.sh 150 40 160 cpu
set -uo pipefail
budget=${1:-540}
scenes=${2:-3000}
faces=${3:-40000}
device=${4:-cuda}
out=${OUT:-runs/classifier-gpu}
mkdir -p "$out" runs/classifier-gpu-logs data/crops
logs=runs/classifier-gpu-logs
if ! python3 -c "import albumentations" 2>/dev/null; then  # the machine lacks them (not the venv of a smoke test)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        .whl/*.whl || exit 1
fi
mkdir -p /tmp/stand-in
python3 -c "import pillow_heif" 2>/dev/null || echo "def register_heif_opener(): pass" > /tmp/stand-in/pillow_heif.py
export PYTHONPATH=$PWD:/tmp/site:/tmp/stand-in PYTHONUNBUFFERED=1 TAISHU_FONTS=$PWD/.fonts
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
# Fail in seconds, not after the data, when something is missing on the machine.
python3 -c "import datasets.generate, training.train_classifier; from training.flower_faces import fonts; \
n = len(fonts()); print(n, 'fonts'); assert n > 2" || exit 1
cores=$(nproc)
start=$(date +%s)
since_start() { echo $(( $(date +%s) - start )); }
C=data/crops
# 1. the data, on all cores at once
python3 -m datasets generate data/gen-v5 --count "$scenes" --seed 5 --size 512 --val-fraction 0.05 \
    --recipe table --workers $(( cores / 2 )) > $logs/generate.log 2>&1 &
jobs_faces=8
per=$(( faces / jobs_faces ))
for k in $(seq 1 $jobs_faces); do
    python3 -m training.flower_faces --count "$per" --seed $(( 100 + k )) --honours 0.3 --out $C/faces-$k.npz \
        > $logs/faces-$k.log 2>&1 &
done
python3 -m training.flower_faces --count 800 --seed 11 --honours 0.25 --out $C/faces-val.npz > $logs/faces-val.log 2>&1 &
python3 -m training.crops data/real-train --split train --jitters 2 --out $C/real.npz > $logs/real.log 2>&1 &
python3 -m training.crops data/real-train --split train --jitters 2 --classes 1f 2f 3f 4f 5f 6f 7f 8f \
    --out $C/real-flowers.npz > $logs/real-flowers.log 2>&1 &
python3 -m training.crops data/real-train --split train --jitters 2 --classes 1m 2m 3m 4m 5m 6m 7m 8m 9m 1z 2z 3z 4z \
    --out $C/real-man-winds.npz > $logs/real-man-winds.log 2>&1 &
wait
python3 -m training.crops data/gen-v5 --split train --max-crops 80000 --out $C/gen-train.npz > $logs/gen-train.log 2>&1 &
python3 -m training.crops data/gen-v5 --split val --out $C/gen-val.npz > $logs/gen-val.log 2>&1 &
wait
tail -qn1 $logs/*.log
ls $C/gen-train.npz $C/gen-val.npz $C/real.npz $C/faces-val.npz > /dev/null || exit 1
echo "data in $(since_start) s"
# 2. the candidates, each: name, start ("" = from scratch), peak learning rate, the training mix
R=$C/real.npz; F=$C/real-flowers.npz; M=$C/real-man-winds.npz; G=$C/gen-train.npz
FACES=$(ls $C/faces-[0-9]*.npz | tr '\n' ' ')
CANDIDATES=(
    "scratch||3e-3|$G $R $R $F $F $M $FACES"
    "finetune|models/tile_classifier.pt|3e-4|$G $R $R $F $F $M $FACES"
    "scratch-no-faces||3e-3|$G $R $R $F $F $M"
    "scratch-faces-twice||3e-3|$G $R $R $F $F $M $FACES $FACES"
)
minutes=$(python3 -c "print(round(($budget - $(since_start) - 75) / 60, 2))")
threads=$(( cores / ${#CANDIDATES[@]} > 0 ? cores / ${#CANDIDATES[@]} : 1 ))
echo "training ${#CANDIDATES[@]} candidates for $minutes min each, $threads CPU threads each"
for candidate in "${CANDIDATES[@]}"; do
    IFS='|' read -r name from lr mix <<< "$candidate"
    # shellcheck disable=SC2086
    python3 -m training.train_classifier --train $mix --val $C/gen-val.npz $C/faces-val.npz --unseen \
        ${from:+--from "$from"} --lr "$lr" --batch 256 --minutes "$minutes" \
        --threads "$threads" --device "$device" \
        --checkpoint "runs/cls-$name/state.pt" --checkpoint-minutes 2 --out "runs/cls-$name" \
        > "$logs/train-$name.log" 2>&1 &
done
wait
for candidate in "${CANDIDATES[@]}"; do
    name=${candidate%%|*}
    grep -h '"epoch"' "$logs/train-$name.log" | tail -1
    tar czf "$out/cls-$name.tar.gz" -C runs "cls-$name" || echo "nothing of $name"
done
cp data/gen-v5/recipe.json $logs/gen-v5-recipe.json 2>/dev/null
tar czf "$out/logs.tar.gz" -C runs classifier-gpu-logs
echo "done in $(since_start) s"
ls -la "$out"
