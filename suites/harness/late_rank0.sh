#!/bin/sh
# late_rank0.sh PROGRAM ARGS...: runs PROGRAM on every rank of the job, on
# world rank 0 only after a second. A tool's verdict that every rank reaches
# alike (a usage error) is rank 0's to print; the tests that start rank 0 late
# check that the other ranks, done first, do not end the job before rank 0
# has said it. Under mpirun with odls_base_sigkill_timeout=0 a rank that
# exits non-zero has the others killed at once.
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
if [ "$rank" = 0 ]; then sleep 1; fi
exec "$@"
