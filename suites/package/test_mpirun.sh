#!/usr/bin/env bash
# scripts/mpirun.sh keeps Open MPI's TCP on loopback only when every process
# is on this host, and never over the user's own choice. A fake launcher
# prints what it was given; each case states the environment, the arguments
# and the interfaces expected for btl_tcp and oob_tcp ("lo" or unset).
#   test_mpirun.sh SOURCE_DIR WORK_DIR
set -euo pipefail
mpirun=${1:?usage: test_mpirun.sh SOURCE_DIR WORK_DIR}/scripts/mpirun.sh
work=${2:?usage: test_mpirun.sh SOURCE_DIR WORK_DIR}
rm -rf "$work"
mkdir -p "$work/home"
cat >"$work/launcher" <<'FAKE'
#!/usr/bin/env bash
echo "btl=${OMPI_MCA_btl_tcp_if_include:-unset} oob=${OMPI_MCA_oob_tcp_if_include:-unset}"
FAKE
chmod +x "$work/launcher"
printf 'n1\nn1\n' >"$work/one-node"
printf 'n1\nn1\nn2\n' >"$work/two-nodes"
failures=0

# check EXPECTED VAR=VALUE... -- ARGUMENTS...: a clean environment but for the
# variables given (no batch system, no MCA settings, an empty home).
check() {
  local expected=$1 vars=() got
  shift
  while [ "$1" != -- ]; do
    vars+=("$1")
    shift
  done
  shift
  got=$(env -i PATH="$PATH" HOME="$work/home" EP_MPI=openmpi MPIEXEC="$work/launcher" \
    "${vars[@]}" bash "$mpirun" "$@" 2>&1) || got="exit status $?: $got"
  if [ "$got" = "$expected" ]; then
    echo "ok:   ${vars[*]} mpirun.sh $* -> $got"
  else
    echo "FAIL: ${vars[*]} mpirun.sh $* -> $got, expected $expected"
    failures=$((failures + 1))
  fi
}

lo="btl=lo oob=lo"
none="btl=unset oob=unset"
true=$(type -P true)
check "$lo" -- -np 2 "$true"
check "$lo" -- -np 2 "$true" --host a,b  # the program's own arguments do not count
check "$none" -- -np 2 --host a,b "$true"
check "$none" -- -np 2 -H a:2,b:2 "$true"
check "$none" -- -np 2 --hostfile hosts "$true"
check "$none" -- -np 2 --machinefile=hosts "$true"
check "$none" OMPI_MCA_orte_default_hostfile=hosts -- -np 2 "$true"
check "$lo" SLURM_JOB_NUM_NODES=1 -- -np 2 "$true"
check "$none" SLURM_JOB_NUM_NODES=2 -- -np 2 "$true"
check "$none" SLURM_NNODES=4 -- -np 2 "$true"
check "$lo" PBS_NODEFILE="$work/one-node" -- -np 2 "$true"
check "$none" PBS_NODEFILE="$work/two-nodes" -- -np 2 "$true"
check "$none" PE_HOSTFILE="$work/two-nodes" -- -np 2 "$true"
check "$lo" "LSB_HOSTS=n1 n1 n1" -- -np 2 "$true"
check "$none" "LSB_HOSTS=n1 n2" -- -np 2 "$true"
check "$none" "LSB_MCPU_HOSTS=n1 4 n2 4" -- -np 2 "$true"
# The user's choice wins, family by family.
check "btl=eth0 oob=lo" OMPI_MCA_btl_tcp_if_include=eth0 -- -np 2 "$true"
check "btl=unset oob=lo" OMPI_MCA_btl_tcp_if_exclude=docker0 -- -np 2 "$true"
check "btl=lo oob=unset" -- --mca oob_tcp_if_include eth0 -np 2 "$true"
check "btl=lo oob=unset" OMPI_MCA_btl_tcp_if_include=lo SLURM_JOB_NUM_NODES=2 -- -np 2 "$true"
# An EP_MPI that names no MPI is an error, not a launcher run without flags.
check "exit status 2: mpirun.sh: EP_MPI must be openmpi or mpich (or unset: the MPI the program links), not 'banana'" \
  EP_MPI=banana -- -np 2 "$true"
mkdir -p "$work/home/.openmpi"
echo "btl_tcp_if_exclude = docker0" >"$work/home/.openmpi/mca-params.conf"
check "btl=unset oob=lo" -- -np 2 "$true"

if ((failures)); then
  echo "FAIL: $failures"
  exit 1
fi
echo "PASS"
