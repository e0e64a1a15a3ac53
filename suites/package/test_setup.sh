#!/usr/bin/env bash
# scripts/setup.sh where apt-get cannot or must not install, run against fake
# commands so that nothing is installed for real:
#   - Debian as root: dpkg misses packages, apt-get installs them;
#   - Debian, apt-get fails (no network, no mirror): what is there is enough;
#   - Debian, not root, no passwordless sudo and no terminal to ask for a
#     password on: apt-get is not tried;
#   - no dpkg and no apt-get (another distribution, a cluster): checked by
#     capability, and enough;
#   - the same without pkg-config, clang-format and MPICH: fails naming
#     pkg-config, and warns about the other two.
# The machine must have everything setup.sh asks for (it is where the tests
# run, after scripts/setup.sh).
#   test_setup.sh SOURCE_DIR WORK_DIR
set -euo pipefail
setup=${1:?usage: test_setup.sh SOURCE_DIR WORK_DIR}/scripts/setup.sh
work=${2:?usage: test_setup.sh SOURCE_DIR WORK_DIR}
rm -rf "$work"
mkdir -p "$work/fakes"
failures=0

# dpkg-query lists the packages in $FAKE_MISSING as not installed; apt-get
# writes its arguments to $work/apt.log and exits with $FAKE_APT_STATUS; id -u
# says $FAKE_UID; sudo -n is refused.
cat >"$work/fakes/dpkg-query" <<'FAKE'
#!/usr/bin/env bash
package=${*: -1}
[[ " $FAKE_MISSING " == *" $package "* ]] && exit 1
echo "install ok installed"
FAKE
cat >"$work/fakes/apt-get" <<FAKE
#!/usr/bin/env bash
echo "apt-get \$*" >>"$work/apt.log"
exit "\$FAKE_APT_STATUS"
FAKE
cat >"$work/fakes/id" <<FAKE
#!/usr/bin/env bash
if [ "\${1:-}" = -u ]; then echo "\$FAKE_UID"; else exec $(command -v id) "\$@"; fi
FAKE
printf '#!/usr/bin/env bash\nexit 1\n' >"$work/fakes/sudo"
chmod +x "$work/fakes/"*

# A PATH of links to every command on the real one but those named.
farm() {
  local dir=$1 entry name entries
  shift
  local leave_out=" $* "
  mkdir -p "$dir"
  IFS=: read -ra entries <<<"$PATH"
  for entry in "${entries[@]}"; do
    for name in "$entry"/*; do
      if [ -d "$name" ] || [ ! -x "$name" ] || [[ $leave_out == *" ${name##*/} "* ]]; then
        continue
      fi
      [ -e "$dir/${name##*/}" ] || ln -s "$name" "$dir/${name##*/}"
    done
  done
}
no_apt=(apt-get apt apt-cache dpkg dpkg-query sudo)
farm "$work/no-apt" "${no_apt[@]}"
farm "$work/no-apt-no-pkg-config" "${no_apt[@]}" pkg-config pkgconf clang-format clang-format-14 \
  mpicc.mpich mpichversion

# scenario NAME STATUS PATH VAR=VALUE...: runs setup.sh, expects STATUS; the
# output goes to $work/NAME.log.
scenario() {
  local name=$1 status=$2 path=$3 got=0
  shift 3
  rm -f "$work/apt.log"
  touch "$work/apt.log"
  env PATH="$path" FAKE_MISSING="" FAKE_APT_STATUS=0 FAKE_UID=0 "$@" bash "$setup" \
    </dev/null >"$work/$name.log" 2>&1 || got=$?
  echo "--- $name: exit status $got"
  sed 's/^/    /' "$work/$name.log"
  if [ "$got" != "$status" ]; then
    echo "FAIL: $name: exit status $got, expected $status"
    failures=$((failures + 1))
  fi
}
# says NAME FILE TEXT / silent NAME FILE TEXT: FILE (a log) has TEXT, or has not.
says() {
  grep -qF -- "$3" "$2" && return 0
  echo "FAIL: $1: no '$3' in ${2##*/}"
  failures=$((failures + 1))
}
silent() {
  grep -qF -- "$3" "$2" || return 0
  echo "FAIL: $1: '$3' in ${2##*/}"
  failures=$((failures + 1))
}

fakes=$work/fakes:$PATH
scenario debian-root 0 "$fakes" FAKE_MISSING="mpich clang-format"
says debian-root "$work/apt.log" "apt-get update"
says debian-root "$work/apt.log" "install -y -q --no-install-recommends mpich clang-format"
says debian-root "$work/debian-root.log" "setup: installing mpich clang-format"

scenario apt-fails 0 "$fakes" FAKE_MISSING="mpich clang-format" FAKE_APT_STATUS=100
says apt-fails "$work/apt.log" "apt-get update"
says apt-fails "$work/apt-fails.log" "apt-get could not install them"
says apt-fails "$work/apt-fails.log" "everything libep needs is there"

scenario not-root 0 "$fakes" FAKE_MISSING="mpich clang-format" FAKE_UID=1000
silent not-root "$work/apt.log" "apt-get"
says not-root "$work/not-root.log" "apt-get is not available here"
says not-root "$work/not-root.log" "everything libep needs is there"

scenario no-apt 0 "$work/no-apt"
silent no-apt "$work/apt.log" "apt-get"
says no-apt "$work/no-apt.log" "everything libep needs is there"

scenario missing 1 "$work/no-apt-no-pkg-config"
says missing "$work/missing.log" "setup: missing: pkg-config (Debian: pkg-config)"
says missing "$work/missing.log" "warning: no MPICH (mpicc.mpich or mpichversion)"
says missing "$work/missing.log" "warning: no clang-format (Debian: clang-format): the source.format test is skipped"
silent missing "$work/missing.log" "missing: the CMake package"

if ((failures)); then
  echo "FAIL: $failures"
  exit 1
fi
echo "PASS"
