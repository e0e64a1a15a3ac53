#!/usr/bin/env bash
# Checks that the C++ sources follow the checked-in .clang-format.
#   check_format.sh SOURCE_DIR [CLANG_FORMAT]
# Lists every file clang-format would change, with the places it would change,
# and exits 1 if there is any. Fix with:
#   clang-format -i $(git ls-files '*.cpp' '*.hpp')
set -uo pipefail
root=${1:?usage: check_format.sh SOURCE_DIR [CLANG_FORMAT]}
clang_format=${2:-clang-format}
cd "$root" || exit 2
command -v "$clang_format" >/dev/null || { echo "check_format.sh: '$clang_format' not found" >&2; exit 2; }

mapfile -t files < <(find libep tools suites examples -type f \( -name '*.cpp' -o -name '*.hpp' \) 2>/dev/null | sort)
((${#files[@]})) || { echo "check_format.sh: no C++ files under $root" >&2; exit 2; }
# One clang-format process checks every file (--dry-run names each line it
# would change); a process per file would make this test slow on a busy
# machine.
report=$("$clang_format" --style=file --dry-run "${files[@]}" 2>&1)
rc=$?
if ((rc != 0)) && [ -z "$report" ]; then
  echo "check_format.sh: $clang_format failed (exit $rc)" >&2
  exit 2
fi
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: (warning|error):' <<<"$report" | cut -d: -f1 | sort -u)
if ((${#bad[@]})); then
  grep -E '^[^:]+:[0-9]+:[0-9]+: (warning|error):' <<<"$report" | head -n 40
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "check_format.sh: ${#bad[@]} of ${#files[@]} files differ from $($clang_format --version)" >&2
  exit 1
fi
echo "check_format.sh: ${#files[@]} files follow .clang-format ($($clang_format --version))"
