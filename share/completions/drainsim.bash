# bash completion for drainsim and drainsim-viewer                  -*- shell-script -*-
# Installed as share/bash-completion/completions/drainsim (and drainsim-viewer); to try it
# from a checkout: source share/completions/drainsim.bash
# Completes the commands, each command's options, the values of options that take one of
# a few words, and file names: JSON files (and folders) where a scenario or results file
# is expected. Needs nothing of the bash-completion package. ctest Completions.* checks
# that it knows every command and option `drainsim --help` lists.

_drainsim_commands="run real fidelity compare sweep merge tune import validate profiles
  conformance export help"
_drainsim_profiles="ojs ojs-go-sdk ojs-js-sdk sidekiq sidekiq-pro river bullmq oban faktory
  celery temporal graphile-worker pg-boss ductwork naive"
_drainsim_systems="sidekiq bullmq celery-redis celery-rabbitmq pg-boss graphile-worker"
_drainsim_engines="virtual realtime process real"

# Each command's options. Hidden, testing-only options are left out.
_drainsim_options() {
  local run_engine="--time-scale --job-body --model-access --worker-cmd --worker-log --worker-log-max"
  local system="--system --adapters"
  case $1 in
    run)
      echo "--help --seed --set --max-memory --timeline --out --engine --max-events" \
        "--progress-events --progress-time --fail-on --deploys-per-day --suggest $run_engine" \
        "$system"
      ;;
    real)
      echo "--help --seed --set --max-memory $system --repeats --seeds --tolerances --case" \
        "--timeline --out-dir --out --keep"
      ;;
    fidelity)
      echo "--help --seed --set --max-memory $run_engine $system --from --seeds --repeats" \
        "--engines --tolerances --case"
      ;;
    compare) echo "--help --profiles --seeds --seed --format --set --keep-grace --out" ;;
    sweep) echo "--help --grid --seeds --seed --threads --set --format --out --csv --shard" ;;
    merge) echo "--help --format --out --csv" ;;
    tune)
      echo "--help --max-job-loss --max-interrupted --max-deploy-duration --causes --grace-range" \
        "--pre-stop --platform-grace --platform-range --timeout-range --margin --safety-margin" \
        "--seeds --seed" \
        "--threads --set --format --out --patch"
      ;;
    import) echo "--help" ;;
    import-k8s)
      echo "--help --workload --container --profile --hpa --durations --metric --match" \
        "--window --rate --out"
      ;;
    validate) echo "--help --set --max-memory" ;;
    profiles) echo "--help --format" ;;
    conformance) echo "--help --profile --format --out" ;;
    export) echo "--help --format --out" ;;
    help) echo "--help" ;;
  esac
}

# COMPREPLY from a word list, for the current word.
_drainsim_words() {
  local IFS=$' \t\n'
  COMPREPLY+=($(compgen -W "$1" -- "$cur"))
}

# The last element of a comma-separated list (--profiles a,b,<TAB>).
_drainsim_list() {
  local head=""
  [[ $cur == *,* ]] && head=${cur%,*},
  local IFS=$' \t\n' word
  for word in $1; do
    [[ $head$word == "$cur"* ]] && COMPREPLY+=("$head$word")
  done
  compopt -o nospace 2>/dev/null
}

# File names: every file, or only those matching a pattern (folders always, to descend).
_drainsim_files() {
  local IFS=$'\n'
  compopt -o filenames 2>/dev/null
  COMPREPLY+=($(compgen -d -- "$cur"))
  if [[ -n ${1-} ]]; then
    COMPREPLY+=($(compgen -f -X "!$1" -- "$cur"))
  else
    COMPREPLY+=($(compgen -f -- "$cur"))
  fi
}

_drainsim_dirs() {
  local IFS=$'\n'
  compopt -o filenames 2>/dev/null
  COMPREPLY+=($(compgen -d -- "$cur"))
}

# Sets the caller's locals `cur` and `prev`. --opt=value: bash splits at '='
# (COMP_WORDBREAKS), so the word after '=' is the value and the option is before it.
_drainsim_cur_prev() {
  cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  if [[ $cur == "=" ]]; then
    cur=""
  elif [[ $prev == "=" && $COMP_CWORD -ge 2 ]]; then
    prev=${COMP_WORDS[COMP_CWORD - 2]}
  fi
}

_drainsim() {
  COMPREPLY=()
  local cur prev
  _drainsim_cur_prev

  # The command: the first word that is no option (the top level has only flags).
  local command="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -* | "=") ;;
      *) command=${COMP_WORDS[i]}; break ;;
    esac
  done
  if [[ -z $command ]]; then
    if [[ $cur == -* ]]; then
      _drainsim_words "--help --version"
    else
      _drainsim_words "$_drainsim_commands"
    fi
    return
  fi
  # import's own commands: the next word that is no option.
  if [[ $command == import ]]; then
    for ((i = i + 1; i < COMP_CWORD; i++)); do
      case ${COMP_WORDS[i]} in
        -* | "=") ;;
        *) command=import-${COMP_WORDS[i]}; break ;;
      esac
    done
  fi

  # An option's value.
  case $command:$prev in
    *:--engine) _drainsim_words "$_drainsim_engines"; return ;;
    *:--engines) _drainsim_list "$_drainsim_engines"; return ;;
    *:--job-body) _drainsim_words "sleep spin timer"; return ;;
    *:--model-access) _drainsim_words "lock strand"; return ;;
    *:--system) _drainsim_words "$_drainsim_systems"; return ;;
    *:--profile) _drainsim_words "$_drainsim_profiles"; return ;;
    *:--profiles) _drainsim_list "all $_drainsim_profiles"; return ;;
    *:--platform-grace) _drainsim_words "paired scenario search"; return ;;
    *:--causes) _drainsim_words "changeable deploys all"; return ;;
    compare:--format | sweep:--format | merge:--format)
      _drainsim_words "table md json csv"
      return
      ;;
    profiles:--format) _drainsim_words "table json"; return ;;
    conformance:--format | tune:--format) _drainsim_words "text json"; return ;;
    export:--format) _drainsim_words "chrome-trace"; return ;;
    *:--out) _drainsim_files; return ;;
    tune:--patch | run:--suggest) _drainsim_files "*.yaml"; return ;;
    *:--csv) _drainsim_files "*.csv"; return ;;
    *:--worker-log) _drainsim_files; return ;;
    *:--tolerances) _drainsim_files "*.json"; return ;;
    *:--worker-cmd)
      local IFS=$'\n'
      COMPREPLY+=($(compgen -c -- "$cur"))
      return
      ;;
    *:--adapters | *:--out-dir | *:--keep) _drainsim_dirs; return ;;
    # Values with nothing to offer: numbers, durations, PATH=VALUE, ranges.
    *:--seed | *:--seeds | *:--set | *:--time-scale | *:--repeats | *:--threads | *:--grid | \
      *:--shard | *:--from | *:--max-job-loss | *:--max-interrupted | \
      *:--max-deploy-duration | *:--grace-range | *:--pre-stop | *:--platform-range | \
      *:--timeout-range | *:--max-memory | *:--max-events | *:--progress-events | \
      *:--progress-time | *:--worker-log-max | *:--case | \
      *:--margin | *:--safety-margin | *:--format | *:--metric | *:--match | *:--window | \
      *:--rate)
      return
      ;;
  esac

  if [[ $cur == -* ]]; then
    _drainsim_words "$(_drainsim_options "$command")"
    return
  fi
  # The arguments.
  case $command in
    run | real | fidelity | compare | sweep | tune | validate | merge | export)
      _drainsim_files "*.json"
      ;;
    profiles) _drainsim_words "$_drainsim_profiles" ;;
    import) _drainsim_words "k8s" ;;
    import-k8s) _drainsim_files ;;
    help) _drainsim_words "$_drainsim_commands" ;;
  esac
}

_drainsim_viewer() {
  COMPREPLY=()
  local cur prev
  _drainsim_cur_prev
  case $prev in
    --render) _drainsim_files "*.png"; return ;;
    --view) _drainsim_words "timeline series summary sweep compare"; return ;;
    --metric) _drainsim_words "all counts seconds"; return ;;
    --rows) _drainsim_words "replica pod"; return ;;
    --around) _drainsim_words "deploy chaos"; return ;;
    --size | --from | --to) return ;;
  esac
  if [[ $cur == -* ]]; then
    _drainsim_words "--help --help-all --version --render --view --size --metric --rows --from --to --around"
    return
  fi
  _drainsim_files "*.json"
}

complete -F _drainsim drainsim
complete -F _drainsim_viewer drainsim-viewer
