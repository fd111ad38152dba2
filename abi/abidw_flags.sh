# The abidw command line that both the baseline (refresh.sh) and the check
# (check_abi.sh) use, so that they describe the library the same way: only
# what include/ declares, and no paths of the machine that ran it.
# Sourced; expects $src (the source tree).
abidw_flags=(--headers-dir "$src/include" --drop-private-types --exported-interfaces-only --no-corpus-path --no-show-locs --no-comp-dir-path)
