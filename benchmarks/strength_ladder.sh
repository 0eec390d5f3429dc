#!/usr/bin/env bash
# The README's strength table: whole games to the target, mirrored pairs, 95% intervals.
# Usage: bash benchmarks/strength_ladder.sh [OUT_DIR] [GAMES]   (JSON results land in OUT_DIR)
set -euo pipefail
out=${1:-strength}
games=${2:-800}
mkdir -p "$out"
for ruleset in pagat classic25; do
  ginrummy eval simple random --games "$games" --ruleset "$ruleset" --seed 1 --no-progress --json "$out/simple-random-$ruleset.json"
  ginrummy eval greedy simple --games "$games" --ruleset "$ruleset" --seed 2 --no-progress --json "$out/greedy-simple-$ruleset.json"
done
