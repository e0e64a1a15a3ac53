// libep: threads as MPI ranks, on top of an unmodified MPI.
//
// The API mirrors the MPI C bindings one to one with the MPI_ prefix replaced
// by the namespace: MPI_Send becomes ep::Send. Functions return MPI error
// codes; real MPI handles (datatypes, ops, infos) and constants are reused.
// The MPI below must be initialised with MPI_THREAD_MULTIPLE.
#pragma once

#include <ep/coll.hpp>
#include <ep/comm.hpp>
#include <ep/inspect.hpp>
#include <ep/p2p.hpp>
#include <ep/types.hpp>
#include <ep/version.hpp>
