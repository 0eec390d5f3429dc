#!/usr/bin/env bash
# The baselines' strength table (docs/agents.md): whole games to the target, mirrored pairs, 95% intervals.
# Usage: bash benchmarks/strength_ladder.sh [OUT_DIR] [GAMES] [MC_GAMES]   (JSON results land in OUT_DIR)
# The montecarlo rows (MC_GAMES, default 400, seed 11) take under 3 minutes each on the
# 2-core development machine (~6 ms per montecarlo decision); MC_GAMES=0 skips them.
set -euo pipefail
out=${1:-strength}
games=${2:-800}
mc_games=${3:-400}
mkdir -p "$out"
for ruleset in pagat classic25; do
  ginrummy eval simple random --games "$games" --ruleset "$ruleset" --seed 1 --no-progress --json "$out/simple-random-$ruleset.json"
  ginrummy eval greedy simple --games "$games" --ruleset "$ruleset" --seed 2 --no-progress --json "$out/greedy-simple-$ruleset.json"
  if [ "$mc_games" -gt 0 ]; then
    ginrummy eval montecarlo greedy --games "$mc_games" --ruleset "$ruleset" --seed 11 \
      --no-progress --json "$out/montecarlo-greedy-$ruleset.json"
  fi
done
