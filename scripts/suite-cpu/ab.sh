#!/usr/bin/env bash
# Compares the suite's time on this checkout ("new") with an earlier commit ("old"), alternating
# runs back to back: the same code varies by ±10 % from one run to the next on a shared machine, so
# one run of each says little, and pairs run minutes apart say less. Each run starts from an empty
# Vitest results cache, as CI does, and prints one line: side, round, wall and machine CPU seconds
# (machine-cpu.sh). The old commit runs from a worktree in a temp folder that shares this
# checkout's node_modules, built first. Example, from the repository's root:
#   scripts/suite-cpu/ab.sh 71b2652 2
set -euo pipefail
old=${1:?usage: ab.sh <old commit> [rounds]}
rounds=${2:-2}
here=$(pwd)
tree=$(mktemp -d)/old
git worktree add -q --detach "$tree" "$old"
trap 'git -C "$here" worktree remove --force "$tree"' EXIT
ln -s "$here/node_modules" "$tree/node_modules"
(cd "$tree" && npm run build > /dev/null)
for round in $(seq "$rounds"); do
  for side in new old; do
    dir=$here
    [ "$side" = old ] && dir=$tree
    cd "$dir"
    rm -rf node_modules/.vite/vitest
    result=$(MACHINE_CPU_LOG="/tmp/ab-$side-$round.log" "$here/scripts/suite-cpu/machine-cpu.sh" npx vitest run)
    echo "$side round $round $result"
  done
done
