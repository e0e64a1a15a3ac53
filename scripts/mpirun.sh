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

impl=${EP_MPI:-}
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
    # Loopback only: this is one machine, and a stray interface must not stall startup.
    export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}
    export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-lo}
    ;;
  mpich) ;;
  *) echo "mpirun.sh: cannot tell which MPI '$launcher' is; running it without extra flags" >&2 ;;
esac
exec "$launcher" "${flags[@]}" "$@"
