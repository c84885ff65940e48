#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and AddressSanitizer and runs each for SECONDS (default 600)
# over its corpus in Fuzz/Corpus/<Target>/ (new inputs that add coverage are kept there), then
# prints executions, time and crashes per target. Fails on any crash, leaving the input in
# Fuzz/.artifacts/. Usage: Fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(FuzzURLBuilding FuzzRetryAfter FuzzResponseDecoding FuzzHeaders FuzzMultipart FuzzRedirects
             FuzzLoopbackRequestParser FuzzEventStream FuzzJSONLines FuzzCacheHeaders FuzzWebSocketFrames
             FuzzTransferHeaders FuzzOutboxRecords)
fi
scratch="${FUZZ_SCRATCH:-$fuzz/.build-fuzz}"
# Swift's own crash backtracer reads the stack in ways AddressSanitizer reports as a bug of its
# own: off, so a crash is reported as what it is.
export SWIFT_BACKTRACE=enable=no
# RXNETWORKKIT_TOOLS compiles RxHTTP's entry points for the targets: a normal build leaves them out.
swift build --package-path "$fuzz" --scratch-path "$scratch" -c release \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DRXNETWORKKIT_TOOLS 2>&1 | grep -vE "warning: Cannot export local symbol" | tail -3
bin="$(swift build --package-path "$fuzz" --scratch-path "$scratch" -c release -Xswiftc -DRXNETWORKKIT_TOOLS --show-bin-path)"
mkdir -p "$fuzz/.artifacts"
status=0
printf '%-28s %12s %10s %8s %8s\n' target executions exec/s seconds crashes
for target in "${targets[@]}"; do
    corpus="$fuzz/Corpus/$target"
    mkdir -p "$corpus"
    log="$fuzz/.artifacts/$target.log"
    set +e
    "$bin/$target" "$corpus" -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$fuzz/.artifacts/$target-" -print_final_stats=1 > "$log" 2>&1
    code=$?
    set -e
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
    rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
    crashes=0
    if [ $code -ne 0 ]; then crashes=1; status=1; fi
    printf '%-28s %12s %10s %8s %8s\n' "$target" "$runs" "$rate" "$seconds" "$crashes"
    if [ $code -ne 0 ]; then tail -40 "$log"; fi
done
exit $status
