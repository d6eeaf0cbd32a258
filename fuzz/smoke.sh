#!/usr/bin/env bash
# Short fuzzing: builds every cargo-fuzz target, seeds its corpus, runs each for FUZZ_SECONDS
# (default 20) one at a time, and exits non-zero on the first crash, leak, timeout or
# out-of-memory (the input is left in fuzz/artifacts/<target>/).
#
#   fuzz/smoke.sh                      every target, 20 s each
#   FUZZ_SECONDS=600 fuzz/smoke.sh hie the long run of one target
#
# Environment: FUZZ_SECONDS, FUZZ_SANITIZER (address, or none where ASan gives trouble),
# FUZZ_SEEDS=synth to write the richer seed corpus with `--example seeds` (one extra build)
# instead of copying samples/. The toolchain is stable: RUSTC_BOOTSTRAP=1 lets it take the -Z
# flags cargo-fuzz passes.
set -euo pipefail
cd "$(dirname "$0")"
fuzz_dir=$(pwd)
repo=$(cd .. && pwd)
seconds=${FUZZ_SECONDS:-20}
sanitizer=${FUZZ_SANITIZER:-address}
export RUSTC_BOOTSTRAP=1

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi

if [ ${#targets[@]} -ne 1 ]; then
  cargo fuzz build -O --sanitizer "$sanitizer"
else
  cargo fuzz build -O --sanitizer "$sanitizer" "${targets[0]}"
fi

# Seeds. The block target's input starts with 00 <offset u16 LE> <nodes u8> (see
# split_block_input in src/lib.rs).
if [ "${FUZZ_SEEDS:-}" = synth ]; then
  cargo run --release --example seeds -- "$fuzz_dir/corpus"
else
  mkdir -p corpus/hie corpus/dmc3 corpus/block corpus/gltf_import corpus/lint corpus/mot corpus/pac corpus/ptx
  cp "$repo/samples/dmc3_humanoid.mot" corpus/mot/humanoid
  cp "$repo/samples/dmc3_humanoid.pac" corpus/pac/humanoid
  cp "$repo/samples/dmc3_character.pac" corpus/pac/character
  cp "$repo/samples/dmc3_textures.ptx" corpus/ptx/textures
  cp "$repo/samples/DB22HIE.BIN" corpus/hie/db22
  cp "$repo/samples/dmc3_humanoid.mod" corpus/dmc3/humanoid
  cp "$repo/samples/dmc3_stage.scm" corpus/dmc3/stage
  { printf '\x00\x35\x00\x08'; cat "$repo/samples/dmc3_effect.efm"; } > corpus/block/efm
  # The humanoid's block: header +0x20 (u64) and +0x11 (u8).
  at=$(od -An -tu8 -j32 -N8 "$repo/samples/dmc3_humanoid.mod" | tr -d ' ')
  nodes=$(od -An -tu1 -j17 -N1 "$repo/samples/dmc3_humanoid.mod" | tr -d ' ')
  { printf "\\x00\\x$(printf %02x $((at & 255)))\\x$(printf %02x $((at >> 8)))\\x$(printf %02x "$nodes")"
    cat "$repo/samples/dmc3_humanoid.mod"; } > corpus/block/humanoid
  # glTF seeds: the samples exported by the CLI (a dev build of the main crate).
  for s in DB22HIE.BIN dmc3_stage.scm; do
    for ext in glb gltf; do
      rm -f "corpus/gltf_import/$s.$ext"
      cargo run -q --manifest-path "$repo/Cargo.toml" -- export -q "$repo/samples/$s" \
        -o "$fuzz_dir/corpus/gltf_import/$s.$ext" || true
    done
  done
  # lint: the same exports, the validator's and our own skinned test files, and the vendored
  # sample models that fit -max_len (no base folder: external buffers read as missing).
  cp corpus/gltf_import/* corpus/lint/ 2>/dev/null || true
  for f in "$repo"/tests/data/khronos-validator/*/*.gltf; do
    cp "$f" "corpus/lint/$(basename "$(dirname "$f")")_$(basename "$f")"
  done
  find "$repo/tests/data/sample-assets" \( -name '*.gltf' -o -name '*.glb' \) -size -256k |
    while read -r f; do
      rel=${f#"$repo/tests/data/sample-assets/"}
      cp "$f" "corpus/lint/sample_${rel//\//_}"
    done
fi

# One fuzzer process at a time (libFuzzer's default: -jobs/-workers would only move its output
# into fuzz-N.log files); the machine is shared.
status=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="artifacts/$t/last-run.log"
  set +e
  extra=(-max_len=65536)
  if [ "$t" = gltf_import ] || [ "$t" = lint ]; then
    extra=(-max_len=262144 -dict="$fuzz_dir/gltf.dict")
  fi
  cargo fuzz run -O --sanitizer "$sanitizer" "$t" "corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=64 -print_final_stats=1 "${extra[@]}" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -n 1 || true)
  if [ $rc -ne 0 ]; then
    echo "FAIL $t (exit $rc): see fuzz/$log"
    grep -E '^(==[0-9]+==|thread|SUMMARY|panicked|.*Test unit written)' "$log" | head -n 20 || true
    status=1
  else
    echo "ok   $t: ${runs:-no summary}"
  fi
done
exit $status
