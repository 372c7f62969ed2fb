#!/usr/bin/env bash
# The compiler and linker launcher of every submission's module (cmake/user_kernels.cmake):
#   submission_compile.sh STATUS_DIR compile|link COMMAND...
# runs COMMAND (exactly the build's own compile or link line) and records its outcome in
# STATUS_DIR: <source>.status and <source>.log per file, link.status and link.log. It always
# succeeds, so one submission that does not compile never stops the build of the others: in its
# place it leaves an empty object (the same command on an empty source) and compare reads the
# status files and names the file, line and first error in the submission's row. The build's
# output gets one line per failure with that first error too. STATUS_DIR/submission.env (written
# at configure time) gives the folder above the submission's, which the line leaves out of paths
# as compare's rows do, and the set's note (a planted failure is said to be one).
set -u
status_dir=$1
mode=$2
shift 2
mkdir -p "$status_dir"
name=$(basename "$status_dir")
parent="" note=""
# shellcheck source=/dev/null
[ -f "$status_dir/submission.env" ] && . "$status_dir/submission.env"
suffix=${note:+ ($note)}

# The first line of LOG that says "error" (else its first line), with PARENT/ left out of paths.
first_error() {
  local line
  line=$(grep -m1 -i 'error' "$1" || true)
  [ -n "$line" ] || line=$(grep -m1 -v '^[[:space:]]*$' "$1" || true)
  [ -n "$parent" ] && line=${line//"$parent/"/}
  printf '%s' "$line"
}

if [ "$mode" = compile ]; then
  src="" obj="" prev=""
  for a in "$@"; do
    [ "$prev" = "-c" ] && src=$a
    [ "$prev" = "-o" ] && obj=$a
    prev=$a
  done
  stem=$(basename "$src")
  log="$status_dir/$stem.log"
  if "$@" >"$log" 2>&1; then
    echo ok >"$status_dir/$stem.status"
    # Warnings go to the build's output, except a planted submission's (kept in its log).
    [ -n "$note" ] || cat "$log"
    exit 0
  fi
  echo error >"$status_dir/$stem.status"
  echo "submission $name: does not compile: $(first_error "$log"); left out$suffix (full log: $log)" >&2
  empty="$status_dir/.empty.cu"
  : >"$empty"
  args=() prev=""
  for a in "$@"; do
    if [ "$prev" = "-c" ]; then args+=("$empty"); else args+=("$a"); fi
    prev=$a
  done
  "${args[@]}" >/dev/null 2>&1 || true
  exit 0
fi
out="" prev=""
for a in "$@"; do
  [ "$prev" = "-o" ] && out=$a
  prev=$a
done
log="$status_dir/link.log"
if "$@" >"$log" 2>&1; then
  echo ok >"$status_dir/link.status"
  exit 0
fi
echo error >"$status_dir/link.status"
echo "submission $name: does not link: $(first_error "$log"); left out$suffix (full log: $log)" >&2
[ -n "$out" ] && : >"$out"
exit 0
