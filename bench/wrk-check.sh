#!/usr/bin/env bash
# Target 1 checked the way an outside reviewer checks it: wrk (Debian's `wrk`) from a separate
# process against bench/support/serve.ts, 50 connections: our server's JSON echo, a token read and
# a one-card tokenize, each beside the engine's floor for it (bench/support/engine-floor.ts), then
# the echo again. Prints one JSON line per case (req/s, p99 in ms, the
# ratios to the first echo). Usage: bench/wrk-check.sh [seconds] [wrk threads]. Not in `npm run bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-8}
threads=${2:-1}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"' EXIT

node --import tsx bench/support/serve.ts server-echo >"$dir/echo.json" &
node --import tsx bench/support/serve.ts vault >"$dir/vault.json" &
node --import tsx bench/support/serve.ts floor >"$dir/floor.json" &
for _ in $(seq 1 300); do [ -s "$dir/echo.json" ] && [ -s "$dir/vault.json" ] && [ -s "$dir/floor.json" ] && break; sleep 0.1; done
field() { node -e "process.stdout.write(String(JSON.parse(require('fs').readFileSync('$1','utf8')).$2))"; }
echo_url=$(field "$dir/echo.json" url)
vault_url=$(field "$dir/vault.json" url)
token_id=$(field "$dir/vault.json" tokenId)
floor_url=$(field "$dir/floor.json" url)
floor_token=$(field "$dir/floor.json" tokenId)
# The key goes to wrk through a Lua file in the temp folder, never on a command line.
key=$(field "$dir/vault.json" key)
body='{"name":"Jane Doe","card":{"type":"card_number","data":"4242424242424242"}}'
printf 'wrk.method = "POST"; wrk.body = [[%s]]; wrk.headers["Content-Type"] = "application/json"\n' "$body" >"$dir/echo.lua"
printf 'wrk.headers["SVC-API-KEY"] = "%s"\n' "$key" >"$dir/read.lua"
{ cat "$dir/echo.lua"; cat "$dir/read.lua"; } >"$dir/tokenize.lua"
printf 'wrk.headers["SVC-API-KEY"] = "%s"\n' "$(field "$dir/floor.json" key)" >"$dir/floor-key.lua"
{ cat "$dir/echo.lua"; cat "$dir/floor-key.lua"; } >"$dir/tokenize-floor.lua"

# Prints "<req/s> <p99 ms>" of one wrk run.
run() {
  wrk -t"$threads" -c50 -d"${seconds}s" --latency -s "$1" "$2" 2>&1 | awk '
    /Non-2xx|error|unexpected/ { print "wrk: " $0 > "/dev/stderr"; bad = 1 }
    /Requests\/sec/ { r = $2 }
    / 99%/ { v = $2; if (v ~ /us$/) p = v / 1000; else if (v ~ /ms$/) p = v + 0; else if (v ~ /s$/) p = v * 1000; }
    END { if (bad) exit 1; print r, p }'
}
wrk -t"$threads" -c50 -d2s -s "$dir/echo.lua" "$echo_url/echo" >/dev/null
wrk -t"$threads" -c50 -d2s -s "$dir/read.lua" "$vault_url/tokens/$token_id" >/dev/null
read -r echo_rps echo_p99 < <(run "$dir/echo.lua" "$echo_url/echo")
line() { node -e "
  const [name, rps, p99] = process.argv.slice(1);
  console.log(JSON.stringify({ bench: 'wrk', metric: name + '_requests_per_second', value: Number(rps), unit: 'req/s',
    connections: 50, threads: $threads, latency_p99_ms: Number(p99),
    ratio_to_server_echo: Math.round((rps / $echo_rps) * 1000) / 1000,
    p99_ratio_to_server_echo: Math.round((p99 / $echo_p99) * 100) / 100 }));" "$@"; }
line server_echo "$echo_rps" "$echo_p99"
line token_read $(run "$dir/read.lua" "$vault_url/tokens/$token_id")
# The most a read route can reach on this engine (bench/support/engine-floor.ts).
line token_read_engine_floor $(run "$dir/floor-key.lua" "$floor_url/floor/tokens/$floor_token")
line tokenize $(run "$dir/tokenize.lua" "$vault_url/tokenize")
# The most a tokenize route can reach on this engine (bench/support/tokenize-floor.ts).
line tokenize_engine_floor $(run "$dir/tokenize-floor.lua" "$floor_url/floor/tokenize")
line server_echo_again $(run "$dir/echo.lua" "$echo_url/echo")
