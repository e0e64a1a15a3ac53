#!/bin/sh
# rank_status.sh PROGRAM ARGS...: runs PROGRAM and says on stderr with which
# status it ended in this process ("world rank R: exit status S"), then exits
# 0 itself, so that the launcher lets every rank say it. The tests of a
# tool's verdicts check with it that every rank of the job, not only the one
# mpirun reports, exits with the same status.
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
"$@"
echo "world rank $rank: exit status $?" >&2
