#!/usr/bin/env bash
# mpirun with what this machine needs, for Open MPI or MPICH. Usage is
# mpirun's:
#   scripts/mpirun.sh -np 4 build/tools/ep-bench/ep-bench p2p
#   EP_MPI=mpich scripts/mpirun.sh -np 2 build-mpich/tools/ep-bench/ep-bench p2p
#
# The implementation is $EP_MPI (openmpi or mpich) if set, else the one the
# program links, else the one the launcher says it is. The launcher is
# $MPIEXEC if set, else that implementation's own (mpirun.openmpi,
# mpiexec.mpich) if installed, else mpirun. A program must be started by the
# launcher of the MPI it links: started by the other one, each process comes
# up alone as rank 0 of a job of one. On Debian the plain `mpirun` is
# whichever implementation the alternatives point to, hence the explicit names.
#
# Open MPI refuses to run as root unless told, and wants --oversubscribe for
# more ranks than cores. It also binds each process to one core by default,
# which makes all endpoint threads of a process take turns on that core; so
# processes run unbound unless the arguments say otherwise (--bind-to core for
# one busy thread per process). MPICH's launcher (Hydra) needs none of this:
# it runs as root, starts any number of processes, and binds only when given
# -bind-to; its options are the same here (-np N, --bind-to none|core).
#
# Open MPI's TCP is kept to the loopback interface (btl_tcp_if_include and
# oob_tcp_if_include = lo), so that a stray interface (a container bridge, a
# down VPN) cannot stall start-up, but only when every process is on this
# host: the arguments name no hosts (--host/-H, --hostfile, --machinefile,
# --default-hostfile, --rankfile, $OMPI_MCA_orte_default_hostfile), and no
# batch system has given the job more than one node (SLURM_JOB_NUM_NODES or
# SLURM_NNODES; the hosts in $PBS_NODEFILE (PBS, Torque), $PE_HOSTFILE (SGE),
# $LSB_HOSTS or $LSB_MCPU_HOSTS (LSF)).
# On more nodes the processes must reach each other over the network, and
# Open MPI chooses the interfaces. Your own choice always wins: a
# btl_tcp_if_* or oob_tcp_if_* setting in the environment (OMPI_MCA_...), on
# the command line (--mca) or in ~/.openmpi/mca-params.conf leaves that family
# alone. So OMPI_MCA_btl_tcp_if_include=lo keeps loopback anywhere, and
# OMPI_MCA_btl_tcp_if_exclude=127.0.0.1/8 (Open MPI's default) lets Open MPI
# choose on one host too; the same for oob_tcp.
#
# Each Open MPI job gets a session directory base of its own (orte_tmpdir_base,
# a fresh directory under $TMPDIR or /tmp, removed when the job ends), unless
# you set orte_tmpdir_base yourself. Open MPI 4.1 jobs started at the same
# moment race to create their shared top directory /tmp/ompi.<host>.<uid>,
# which each removes when it ends, and the loser fails at start-up ("A call to
# mkdir was unable to create the desired directory ... File exists",
# open-mpi/ompi#8510). Here the first test of the release tests failed so in
# both of two whole runs one day, though not in 640 launches eight at a time.
# The launcher then runs as a child of this script, which removes the
# directory after it and exits with its status.
set -euo pipefail

# The MPI a program links, from its shared-library dependencies: Open MPI's
# libmpi needs its portability layer libopen-pal; MPICH and its derivatives
# have libmpich or the MPICH ABI's libmpi.so.12.
mpi_of_program() {
  local arg path libs
  for arg in "$@"; do
    # The program is the first word that names an executable; option values
    # (-np 4, --bind-to none) do not.
    [[ $arg == -* ]] && continue
    path=$(type -P -- "$arg") || continue
    libs=$(ldd "$path" 2>/dev/null) || return 0
    if grep -q 'libopen-pal\.so' <<<"$libs"; then
      echo openmpi
    elif grep -Eq 'libmpich\.so|libmpi\.so\.12' <<<"$libs"; then
      echo mpich
    fi
    return 0
  done
}

mpi_of_launcher() {
  local version
  version=$("$1" --version 2>&1) || true
  case $version in
    *"Open MPI"* | *"Open RTE"*) echo openmpi ;;
    *HYDRA* | *MPICH*) echo mpich ;;
  esac
}

# Whether every process of the job runs on this host (see the header). Only
# the launcher's options count: the scan stops at the program.
one_host() {
  local arg file nodes
  for arg in "$@"; do
    case $arg in
      -H | --host | --host=* | -host | -host=* | --hostfile* | -hostfile* | --machinefile* | \
        -machinefile* | --default-hostfile* | -default-hostfile* | --rankfile* | -rankfile* | -rf)
        return 1 ;;
      -*) ;;
      *) type -P -- "$arg" >/dev/null && break ;;
    esac
  done
  [ -z "${OMPI_MCA_orte_default_hostfile:-}" ] || return 1
  nodes=${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-1}}
  [[ $nodes =~ ^[0-9]+$ ]] && ((nodes <= 1)) || return 1
  # One line per slot (PBS) or per host (SGE), the host first.
  for file in "${PBS_NODEFILE:-}" "${PE_HOSTFILE:-}"; do
    [ -n "$file" ] || continue
    [ -r "$file" ] || return 1
    (($(awk 'NF { print $1 }' "$file" | sort -u | wc -l) <= 1)) || return 1
  done
  # LSF: one word per slot, or host and slot count in turn.
  if [ -n "${LSB_HOSTS:-}" ]; then
    (($(tr -s ' ' '\n' <<<"$LSB_HOSTS" | awk 'NF' | sort -u | wc -l) <= 1)) || return 1
  elif [ -n "${LSB_MCPU_HOSTS:-}" ]; then
    (($(wc -w <<<"$LSB_MCPU_HOSTS") <= 2)) || return 1
  fi
  return 0
}

# Keeps the TCP family ($1: btl_tcp or oob_tcp) to loopback unless the user
# chose its interfaces: in the environment, on the command line (the rest of
# the arguments) or in ~/.openmpi/mca-params.conf.
loopback() {
  local family=$1 include exclude
  shift
  include=OMPI_MCA_${family}_if_include
  exclude=OMPI_MCA_${family}_if_exclude
  [ -z "${!include:-}" ] && [ -z "${!exclude:-}" ] || return 0
  case " $* " in *" ${family}_if_"*) return 0 ;; esac
  grep -qs "^[[:space:]]*${family}_if_" "${HOME:-/nonexistent}/.openmpi/mca-params.conf" && return 0
  export "$include=lo"
}

# Whether to give the job a session directory base of its own (see the
# header): not if the user set orte_tmpdir_base in the environment, on the
# command line (the arguments) or in ~/.openmpi/mca-params.conf.
own_session_base() {
  [ -z "${OMPI_MCA_orte_tmpdir_base:-}" ] || return 1
  case " $* " in *" orte_tmpdir_base "*) return 1 ;; esac
  ! grep -qs "^[[:space:]]*orte_tmpdir_base" "${HOME:-/nonexistent}/.openmpi/mca-params.conf"
}

session_base=""
impl=${EP_MPI:-}
case $impl in
  "" | openmpi | mpich) ;;
  *) echo "mpirun.sh: EP_MPI must be openmpi or mpich (or unset: the MPI the program links), not '$impl'" >&2
    exit 2 ;;
esac
[ -n "$impl" ] || impl=$(mpi_of_program "$@")
launcher=${MPIEXEC:-}
if [ -z "$launcher" ]; then
  case $impl in
    openmpi) candidates=(mpirun.openmpi mpiexec.openmpi) ;;
    mpich) candidates=(mpiexec.mpich mpiexec.hydra) ;;
    *) candidates=() ;;
  esac
  for c in "${candidates[@]}" mpirun; do
    if command -v "$c" >/dev/null; then
      launcher=$c
      break
    fi
  done
  [ -n "$launcher" ] || { echo "mpirun.sh: no MPI launcher found (set MPIEXEC)" >&2; exit 127; }
fi
[ -n "$impl" ] || impl=$(mpi_of_launcher "$launcher")

flags=()
case $impl in
  openmpi)
    flags+=(--oversubscribe)
    case " $* " in *" --bind-to "*) ;; *) flags+=(--bind-to none) ;; esac
    [ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
    if one_host "$@"; then
      loopback btl_tcp "$@"
      loopback oob_tcp "$@"
    fi
    if own_session_base "$@"; then
      session_base=$(mktemp -d "${TMPDIR:-/tmp}/ep-mpirun.XXXXXX")
      export OMPI_MCA_orte_tmpdir_base=$session_base
    fi
    ;;
  mpich) ;;
  *) echo "mpirun.sh: cannot tell which MPI '$launcher' is; running it without extra flags" >&2 ;;
esac
[ -n "$session_base" ] || exec "$launcher" "${flags[@]}" "$@"
# A signal to the job's process group (Ctrl-C, timeout) reaches the launcher
# too; this script cleans up once it has ended.
trap 'rm -rf "$session_base"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
status=0
"$launcher" "${flags[@]}" "$@" || status=$?
exit "$status"
