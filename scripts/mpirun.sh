#!/usr/bin/env bash
# mpirun with what this machine needs: Open MPI refuses to run as root unless
# told, and wants --oversubscribe for more ranks than cores. It also binds
# each process to one core by default, which makes all endpoint threads of a
# process take turns on that core; so processes run unbound unless the
# arguments say otherwise (--bind-to core for one busy thread per process).
# Usage is mpirun's:
#   scripts/mpirun.sh -np 4 build/tools/ep-bench/ep-bench p2p
# MPIEXEC may name another launcher (e.g. mpiexec.mpich).
set -euo pipefail
launcher=${MPIEXEC:-mpirun}
flags=()
if "$launcher" --version 2>&1 | grep -q 'Open MPI'; then
  flags+=(--oversubscribe)
  case " $* " in *" --bind-to "*) ;; *) flags+=(--bind-to none) ;; esac
  [ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
  # Loopback only: this is one machine, and a stray interface must not stall startup.
  export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}
  export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-lo}
fi
exec "$launcher" "${flags[@]}" "$@"
