#!/usr/bin/env bash
# The compiler and linker launcher of every submission's module (cmake/user_kernels.cmake):
#   submission_compile.sh STATUS_DIR compile|link COMMAND...
# runs COMMAND (exactly the build's own compile or link line) and records its outcome in
# STATUS_DIR: <source>.status and <source>.log per file, link.status and link.log. It always
# succeeds, so one submission that does not compile never stops the build of the others: in its
# place it leaves an empty object (the same command on an empty source) and compare reads the
# status files and names the file, line and first error in the submission's row.
set -u
status_dir=$1
mode=$2
shift 2
mkdir -p "$status_dir"
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
    cat "$log"
    exit 0
  fi
  echo error >"$status_dir/$stem.status"
  echo "submission $(basename "$status_dir"): $stem does not compile; left out (log: $log)" >&2
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
echo "submission $(basename "$status_dir"): its module does not link; left out (log: $log)" >&2
[ -n "$out" ] && : >"$out"
exit 0
