#!/usr/bin/env bash
# One-step set-up for a fresh Debian 12 machine (run as root, or with sudo available):
# installs the Debian packages drainsim needs that are missing, configures and builds,
# then does what is asked:
#   scripts/setup.sh run [SCENARIO] [drainsim run options...]   (default: the rolling restart)
#   scripts/setup.sh test                                      (the whole test suite)
#   scripts/setup.sh build
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${DRAINSIM_BUILD_DIR:-$here/build}"
action="${1:-run}"
[ $# -gt 0 ] && shift

packages=(
  cmake ninja-build g++ pkg-config
  nlohmann-json3-dev libfmt-dev libcli11-dev libboost-dev libyaml-cpp-dev
  libgtest-dev libbenchmark-dev
  python3 python3-jsonschema
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev fonts-dejavu-core
  # The man pages (help2man, at build time), the Debian package (cpack -G DEB runs
  # dpkg-shlibdeps), and zsh for the completion tests.
  help2man dpkg-dev zsh
  # The fuzz targets (fuzz/, docs/reliability.md): clang and its libFuzzer runtime.
  clang libclang-rt-14-dev
  # The real systems (drainsim real, adapters/) and their brokers: drainsim starts its own
  # throwaway instances, never the services these packages install.
  redis-server ruby-sidekiq postgresql python3-celery python3-redis rabbitmq-server
)
# Node and npm for the Node adapters (BullMQ, pg-boss, graphile-worker): the machine's own
# if it has them (their pinned versions accept Node 18 and 20), else Debian's.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # The brokers' packages would start their system services (Redis on 6379, RabbitMQ on
  # 5672, PostgreSQL on 5432); drainsim never uses them, so a policy-rc.d (see
  # invoke-rc.d(8)) forbids starting any while they install, unless the machine has its own.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# drainsim setup: no service starts while packages install\nexit 101\n' |
      $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [ "$(trap -p EXIT)" ]; then
    $sudo rm -f "$policy"
    trap - EXIT
  fi
fi

# The Node adapters' modules, exactly as their lock files say, again only when a lock
# changed.
for lock in "$here"/adapters/*/package-lock.json; do
  [ -e "$lock" ] || continue
  dir=$(dirname "$lock")
  sum=$(sha256sum "$lock" | cut -d' ' -f1)
  if [ "$(cat "$dir/node_modules/.drainsim-lock" 2>/dev/null)" != "$sum" ]; then
    echo "setup: npm ci in ${dir#"$here"/}"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$sum" > "$dir/node_modules/.drainsim-lock"
  fi
done

werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
# Debian's python3 (with python3-jsonschema), even when another python3 comes first in PATH.
python=/usr/bin/python3
# -O2 -g1: optimized as released, with line tables (backtraces name file and line) but
# not full debug information, which made each file take half as long again to build.
# DRAINSIM_UNITY_BUILD (here and in the sanitizer trees): the layers that include CLI11,
# nlohmann_json or Boost.Beast compile six files to a unit (measured: 270 s -> 178 s for
# drainsim_cli and the layers beneath it, 2 cores).
# DRAINSIM_LTO: run and build turn link-time optimisation on, for the binaries users run.
# test leaves build/ as it is (LTO off in a new tree, as in CI): with LTO the whole tree
# took 2.3x the CPU (661 -> 1,545 s, 2 cores: every test program's link optimises the
# libraries again), which CI's time cannot take; and run then test needs no rebuild.
lto=()
case "$action" in run | build) lto=(-DDRAINSIM_LTO=ON) ;; esac
cmake -S "$here" -B "$build" -G Ninja -DDRAINSIM_UNITY_BUILD=ON -DDRAINSIM_WERROR=$werror -DPython3_EXECUTABLE=$python \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "${lto[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"

case "$action" in
  build) ;;
  run)
    cd "$here"
    scenario="scenarios/rolling-restart.json"
    if [ $# -gt 0 ] && [[ "$1" != -* ]]; then scenario="$1"; shift; fi
    "$build/sim/drainsim" run "$scenario" "$@"
    ;;
  test)
    # The real-time and process engines' tests under ThreadSanitizer first (no data races,
    # in drainsim or in the drainsim-worker processes it spawns); the test suite under
    # AddressSanitizer and UBSan; the fuzz targets for a minute each; the random-scenario
    # campaign; then the whole suite, whose summary closes the output
    # (docs/reliability.md).
    # -O1 -g1 (line tables only): 40 % less build time than -O2 -g. The tests run on a
    # clock slowed for TSan, so their time is real time, not CPU; the one with Python
    # workers (81 s there) checks the same server as the drainsim-worker ones, and runs in
    # the other two trees.
    tsan="$build-tsan"
    cmake -S "$here" -B "$tsan" -G Ninja -DDRAINSIM_UNITY_BUILD=ON -DDRAINSIM_TSAN=ON -DDRAINSIM_WERROR=$werror \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG" -DPython3_EXECUTABLE=$python >/dev/null
    cmake --build "$tsan" -j "$(nproc)" --target asio_runtime_test job_runner_test workload_test \
      engine_fidelity_test http_test worker_signals_test process_engine_test realtime_reliability_test \
      real_system_test
    TSAN_OPTIONS="halt_on_error=1" ctest --test-dir "$tsan" --output-on-failure -R \
      '^(AsioRuntime|TimerRunner|ThreadRunner|Workload|EngineFidelity|Http[A-Za-z]*|DrainsimWorker|ProcessEngine|RealtimeReliability|RealSystem)\.' \
      -E '^ProcessEngine\.PythonWorkerRunsTheRollingRestart$'
    # ASan + UBSan (-fno-sanitize-recover: any finding fails its test), built with clang
    # and the libFuzzer targets in the same tree (DRAINSIM_FUZZ: one sanitized build serves
    # both). Not the viewer, the benchmarks or the real systems' tests, which the normal
    # tree runs, nor the install and package checks (nothing of ours runs there that the
    # other tests do not run). Warnings are errors in the normal tree; the sanitizers'
    # instrumentation can add false ones, so not here. -O1 (not the default -O2 -g): ASan's
    # usual level, and a shorter build.
    asan="$build-asan"
    cmake -S "$here" -B "$asan" -G Ninja -DDRAINSIM_UNITY_BUILD=ON -DCMAKE_CXX_COMPILER=clang++ -DDRAINSIM_FUZZ=ON \
      -DDRAINSIM_WERROR=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG" \
      -DDRAINSIM_BUILD_VIEWER=OFF -DDRAINSIM_BUILD_BENCHMARKS=OFF -DDRAINSIM_MAN_PAGES=OFF \
      -DPython3_EXECUTABLE=$python >/dev/null
    cmake --build "$asan" -j "$(nproc)"
    # Nor the Python worker's rolling restart (80 s here, alone): it checks the same server
    # as the drainsim-worker tests, which run here. Nor the README's commands (300 s here:
    # its tune as written searches 30 seeds of a 30-pod fleet): they run in the normal tree,
    # and golden.outputs runs the same commands (import, tune --patch, run --suggest) here.
    ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1" \
      ctest --test-dir "$asan" --output-on-failure -j "$(nproc)" \
      -LE '^real$' \
      -E '^Install\.|^Package\.|^ProcessEngine\.PythonWorkerRunsTheRollingRestart$|^docs\.readme_commands$'
    # A finding of the fuzzers or the campaign fails the command at the end, after the
    # suite has run.
    found=0
    bash "$here/scripts/fuzz.sh" "$asan" 60 || found=1
    # 1,000 random valid scenarios, each run twice and checked (scripts/campaign.py).
    "$python" "$here/scripts/campaign.py" "$build/sim/drainsim" "$here" --cases 1000 \
      --jobs "$(nproc)" --out "$build/campaign" || found=1
    ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
    if [ $found -ne 0 ]; then
      echo "setup: the fuzz targets or the campaign found a bug (see above)" >&2
      exit 1
    fi
    ;;
  *)
    echo "usage: scripts/setup.sh [run [SCENARIO] [options] | test | build]" >&2
    exit 2
    ;;
esac
