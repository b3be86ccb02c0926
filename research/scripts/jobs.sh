# Sourced by the recipe scripts (ensemble_recipe.sh, dev_sweep.sh): at most PARALLEL (default 1)
# background runs at a time. Call `throttle` right after starting each one with `&`; `wait` at the end.
running=0
throttle() {
  running=$((running + 1))
  if [ "$running" -ge "${PARALLEL:-1}" ]; then
    wait -n
    running=$((running - 1))
  fi
}
