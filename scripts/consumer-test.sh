#!/usr/bin/env bash
# The library as a user gets it (docs/library.md): packs the repository (`npm pack`, from the
# built dist), checks the tarball's file list, installs it into a temporary project outside the
# repository, type-checks the examples there (tsc, strict) and runs them: examples/deepseek-pad.ts
# (hermes-ts/replay) and examples/run-turn.ts (hermes-ts) against `hermes emulate chat --persona
# deepseek` started from the installed package on 127.0.0.1.
#
# The package's own files come from the tarball only. Its dependencies are linked from this
# checkout's node_modules (same Node, better-sqlite3 already compiled; nothing downloaded), so
# run `npm ci` first. Prints `consumer: N passed, M failed`; exits 1 on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
[ -f dist/index.js ] && [ -f dist/index.d.ts ] || npm run build >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/hermes-consumer.XXXXXX")
emulator_pid=
cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
check() {
  local name=$1
  shift
  if "$@" >"$work/step.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name"
    sed 's/^/     /' "$work/step.log"
  fi
}

tarball=$(npm pack --ignore-scripts --silent --pack-destination "$work")
tar -tzf "$work/$tarball" | sed 's|^package/||' | sort >"$work/files.txt"


project=$work/consumer
mkdir -p "$project/node_modules/hermes-ts" "$project/src"
tar -xzf "$work/$tarball" -C "$project/node_modules/hermes-ts" --strip-components=1
ln -s "$root/node_modules" "$project/node_modules/hermes-ts/node_modules"

tarball_contents() {
  local file
  for file in dist/index.js dist/index.d.ts dist/replay-api.js dist/replay-api.d.ts dist/cli.js README.md LICENSE package.json; do
    grep -qx "$file" "$work/files.txt" || { echo "missing from the tarball: $file"; return 1; }
  done
  if grep -E '\.map$|^src/|^test/' "$work/files.txt"; then echo 'the tarball ships source maps or sources'; return 1; fi
  if grep -rl 'sourceMappingURL' "$project/node_modules/hermes-ts/dist"; then
    echo 'a shipped file points at a source map'
    return 1
  fi
}
check "tarball holds dist, declarations, README, LICENSE and no source maps" tarball_contents

cp examples/*.ts "$project/src/"
cat >"$project/package.json" <<'JSON'
{ "name": "hermes-ts-consumer", "private": true, "type": "module" }
JSON
cat >"$project/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "exactOptionalPropertyTypes": true,
    "noUncheckedIndexedAccess": true,
    "skipLibCheck": false,
    "types": ["node"],
    "typeRoots": ["$root/node_modules/@types"],
    "rootDir": "src",
    "outDir": "dist"
  },
  "include": ["src"]
}
JSON

tsc=$root/node_modules/.bin/tsc
check "examples type-check against the installed declarations (tsc --noEmit, strict)" \
  bash -c "cd '$project' && '$tsc' --noEmit -p ."
check "examples compile" bash -c "cd '$project' && '$tsc' -p ."
check "hermes-ts/replay: DeepSeek tool turn padded with \" \"" node "$project/dist/deepseek-pad.js"

node "$project/node_modules/hermes-ts/dist/cli.js" emulate chat --persona deepseek --port 0 >"$work/emulator.log" 2>&1 &
emulator_pid=$!
base_url=
for _ in $(seq 1 300); do
  base_url=$(sed -n 's/^emulator .* listening on \(http[^ ]*\)$/\1/p' "$work/emulator.log")
  [ -n "$base_url" ] && break
  kill -0 "$emulator_pid" 2>/dev/null || break
  sleep 0.2
done
if [ -z "$base_url" ]; then
  failed=$((failed + 1))
  echo "FAIL the installed hermes emulate chat did not start"
  sed 's/^/     /' "$work/emulator.log"
else
  check "hermes-ts: turn with tools and streamed events, resume, branch against $base_url" \
    node "$project/dist/run-turn.js" "$base_url"
fi

echo "consumer: $passed passed, $failed failed"
[ "$failed" = 0 ]
