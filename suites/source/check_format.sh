#!/usr/bin/env bash
# Checks that the C++ sources follow the checked-in .clang-format.
#   check_format.sh SOURCE_DIR [CLANG_FORMAT]
# Lists every file clang-format would change, with the first differing lines,
# and exits 1 if there is any. Fix with:
#   clang-format -i $(git ls-files '*.cpp' '*.hpp')
set -uo pipefail
root=${1:?usage: check_format.sh SOURCE_DIR [CLANG_FORMAT]}
clang_format=${2:-clang-format}
cd "$root" || exit 2
command -v "$clang_format" >/dev/null || { echo "check_format.sh: '$clang_format' not found" >&2; exit 2; }

mapfile -t files < <(find libep tools suites examples -type f \( -name '*.cpp' -o -name '*.hpp' \) 2>/dev/null | sort)
((${#files[@]})) || { echo "check_format.sh: no C++ files under $root" >&2; exit 2; }
bad=0
for f in "${files[@]}"; do
  if ! diff -q <("$clang_format" --style=file "$f") "$f" >/dev/null; then
    echo "$f: not formatted; clang-format would change:"
    diff <("$clang_format" --style=file "$f") "$f" | head -n 12 | sed 's/^/    /'
    bad=$((bad + 1))
  fi
done
if ((bad)); then
  echo "check_format.sh: $bad of ${#files[@]} files differ from $($clang_format --version)" >&2
  exit 1
fi
echo "check_format.sh: ${#files[@]} files follow .clang-format ($($clang_format --version))"
