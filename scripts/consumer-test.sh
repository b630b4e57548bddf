#!/usr/bin/env bash
# The library as a user gets it (docs/library.md): packs the repository (`npm pack`, from the
# built dist), installs the tarball into a temporary project outside the repository, type-checks
# examples there (tsc, strict) and runs them against emulators started from the installed
# package (`hermes emulate …` on 127.0.0.1). Two parts:
#
#   bash scripts/consumer-test.sh          hermes-ts and hermes-ts/replay: the tarball's file list,
#                                          examples/deepseek-pad.ts and examples/run-turn.ts against
#                                          `hermes emulate chat --persona deepseek`;
#   bash scripts/consumer-test.sh ai-sdk   hermes-ts/ai-sdk with ai@7 installed from the registry:
#                                          examples/ai-sdk/ai-sdk-tool-loop.ts runs generateText and
#                                          streamText tool loops against the DeepSeek, OpenRouter,
#                                          Anthropic, Gemini and Responses emulators. ai@7 needs Node
#                                          22 or newer: on Node 20 this part checks instead that
#                                          importing hermes-ts/ai-sdk fails with its one-line reason.
#
# The package's own files come from the tarball only. Its dependencies are linked from this
# checkout's node_modules (same Node, better-sqlite3 already compiled; nothing else downloaded),
# so run `npm ci` first. Prints `consumer: N passed, M failed`; exits 1 on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
part=${1:-library}
case "$part" in
  library | ai-sdk) ;;
  *)
    echo "usage: bash scripts/consumer-test.sh [library|ai-sdk]" >&2
    exit 2
    ;;
esac
[ -f dist/index.js ] && [ -f dist/index.d.ts ] && [ -f dist/ai-sdk-api.js ] || npm run build >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/hermes-consumer.XXXXXX")
emulator_pids=()
cleanup() {
  for pid in "${emulator_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
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
mkdir -p "$project/src"
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

# The tarball, unpacked as node_modules/hermes-ts, its dependencies linked from this checkout.
install_tarball() {
  mkdir -p "$project/node_modules/hermes-ts"
  tar -xzf "$work/$tarball" -C "$project/node_modules/hermes-ts" --strip-components=1
  ln -s "$root/node_modules" "$project/node_modules/hermes-ts/node_modules"
}

tarball_contents() {
  local file
  for file in "$@" README.md LICENSE package.json; do
    grep -qx "$file" "$work/files.txt" || { echo "missing from the tarball: $file"; return 1; }
  done
  if grep -E '\.map$|^src/|^test/' "$work/files.txt"; then echo 'the tarball ships source maps or sources'; return 1; fi
  if grep -rl 'sourceMappingURL' "$project/node_modules/hermes-ts/dist"; then
    echo 'a shipped file points at a source map'
    return 1
  fi
}

# Starts `hermes emulate ARGS --port 0` from the installed package; sets $emulator_url to its base
# URL (empty when it did not start: its log is $work/emulator-NAME.log).
start_emulator() {
  local name=$1 pid
  shift
  emulator_url=
  node "$project/node_modules/hermes-ts/dist/cli.js" emulate "$@" --port 0 >"$work/emulator-$name.log" 2>&1 &
  pid=$!
  emulator_pids+=("$pid")
  for _ in $(seq 1 300); do
    emulator_url=$(sed -n 's/^emulator .* listening on \(http[^ ]*\)$/\1/p' "$work/emulator-$name.log" 2>/dev/null)
    [ -n "$emulator_url" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  failed=$((failed + 1))
  echo "FAIL the installed hermes emulate $* did not start"
  sed 's/^/     /' "$work/emulator-$name.log"
  return 1
}

compile_examples() {
  check "examples type-check against the installed declarations (tsc --noEmit, strict)" \
    bash -c "cd '$project' && '$tsc' --noEmit -p ."
  check "examples compile" bash -c "cd '$project' && '$tsc' -p ."
}

library_part() {
  install_tarball
  check "tarball holds dist, declarations, README, LICENSE and no source maps" \
    tarball_contents dist/index.js dist/index.d.ts dist/replay-api.js dist/replay-api.d.ts dist/cli.js
  cp examples/*.ts "$project/src/"
  compile_examples
  check "hermes-ts/replay: DeepSeek tool turn padded with \" \"" node "$project/dist/deepseek-pad.js"
  if start_emulator deepseek chat --persona deepseek; then
    check "hermes-ts: turn with tools and streamed events, resume, branch against $emulator_url" \
      node "$project/dist/run-turn.js" "$emulator_url"
  fi
}

# On Node 20 the entry point refuses with one line naming the Node it needs (and nothing else loads).
ai_sdk_refuses_old_node() {
  local output
  if output=$(cd "$project" && node --input-type=module -e "await import('hermes-ts/ai-sdk')" 2>&1); then
    echo "hermes-ts/ai-sdk imported on Node $(node --version)"
    return 1
  fi
  echo "$output"
  grep -q "hermes-ts/ai-sdk needs Node.js 22 or newer (ai@7 requires it); this is Node.js" <<<"$output"
}

ai_sdk_part() {
  local major name mode
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -lt 22 ]; then
    install_tarball
    check "hermes-ts/ai-sdk on Node $(node --version) fails with its one-line reason" ai_sdk_refuses_old_node
    echo "skip AI SDK tool loops: ai@7 needs Node 22 or newer, this is Node $(node --version)"
    return 0
  fi
  # ai@7 from the registry first (npm install prunes what package.json does not list), then the tarball.
  check "npm install ai@7 (registry) in the consumer project" \
    bash -c "cd '$project' && npm install --no-audit --no-fund --no-package-lock --loglevel=error 'ai@^7'"
  install_tarball
  check "tarball holds the ai-sdk entry and declarations" tarball_contents dist/ai-sdk-api.js dist/ai-sdk-api.d.ts
  # hermes-ts/ai-sdk's own declarations, strict and with skipLibCheck off.
  mkdir -p "$project/declarations"
  cat >"$project/declarations/ai-sdk-declarations.ts" <<'TS'
import { createHermes, HERMES_METADATA_KEY, type HermesModelSettings } from 'hermes-ts/ai-sdk';
const settings: HermesModelSettings = { provider: 'deepseek', model: 'deepseek-v4-flash', reasoning: { enabled: true, effort: 'xhigh' } };
const model = createHermes(settings);
export const described: string = `${model.specificationVersion} ${model.provider} ${model.modelId} ${HERMES_METADATA_KEY}`;
TS
  sed -e 's/"rootDir": "src"/"rootDir": "declarations", "noEmit": true/' -e 's/"include": \["src"\]/"include": ["declarations"]/' \
    "$project/tsconfig.json" >"$project/tsconfig.declarations.json"
  check "hermes-ts/ai-sdk declarations type-check (strict, skipLibCheck off)" \
    bash -c "cd '$project' && '$tsc' -p tsconfig.declarations.json"
  # ai@7's own declarations do not compile with skipLibCheck off and exactOptionalPropertyTypes
  # (TS2344 in ai/dist/index.d.ts, and @ai-sdk/provider needs @types/json-schema it does not
  # depend on), so an AI SDK app compiles with skipLibCheck on, as here.
  sed -i 's/"skipLibCheck": false/"skipLibCheck": true/' "$project/tsconfig.json"
  cp examples/ai-sdk/*.ts "$project/src/"
  compile_examples
  local -A urls=()
  start_emulator deepseek chat --persona deepseek && urls[deepseek]=$emulator_url
  start_emulator openrouter chat --persona openrouter && urls[openrouter]=$emulator_url
  start_emulator anthropic anthropic && urls[anthropic]=$emulator_url
  start_emulator gemini gemini && urls[gemini]=$emulator_url
  start_emulator responses responses && urls[responses]=$emulator_url
  for name in deepseek openrouter anthropic gemini responses; do
    [ -n "${urls[$name]:-}" ] || continue
    for mode in generate stream; do
      check "hermes-ts/ai-sdk: ${mode}Text tool loop on $name (Node $(node --version))" \
        node "$project/dist/ai-sdk-tool-loop.js" "$name" "$mode" "${urls[$name]}"
    done
  done
}

if [ "$part" = library ]; then library_part; else ai_sdk_part; fi

echo "consumer: $passed passed, $failed failed"
[ "$failed" = 0 ]
