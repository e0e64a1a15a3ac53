// libep: threads as MPI ranks, on top of an unmodified MPI.
//
// The API mirrors the MPI C bindings one to one with the MPI_ prefix replaced
// by the namespace: MPI_Send becomes ep::Send, and the MPI standard is the
// specification. Real MPI handles (datatypes, ops, infos) and constants are
// reused; communicators, requests, messages and statuses are libep's own
// (ep/types.hpp). Each function's comment says what it does beyond its MPI
// namesake ("As MPI_X" when nothing), whether it is collective and over which
// group, and where its threading rule differs from the one below.
//
// Threads. The MPI below must be initialised with MPI_THREAD_MULTIPLE. An
// endpoint (one ep::Comm handle) is used by one thread at a time, and any
// thread may be that one (OpenMP, std::thread, a task runtime): calls on one
// endpoint must not overlap, calls on different endpoints run concurrently,
// also when the endpoints belong to one process and one communicator. A call
// on a request or a message (Wait, Test, Start, Mrecv, ...) is a call on the
// endpoint that made it. The collective functions are collective over
// endpoints, and the endpoints of a process meet inside them: every endpoint
// of the process must be in the call at the same time, each on its own
// thread; one thread calling a collective for two endpoints in turn waits
// forever. Two functions differ: one thread per process calls
// Comm_create_endpoints, and Comm_free does not wait for the other endpoints.
//
// Errors. Every function returns an MPI error code. An error goes through the
// error handler of the endpoint it happened on (Comm_set_errhandler):
// MPI_ERRORS_ARE_FATAL, the default, prints the function, the endpoint and
// the reason and aborts the job; MPI_ERRORS_RETURN returns the error class.
// An error of a call whose handle is itself invalid (COMM_NULL, a freed
// handle) goes through the handler of MPI_COMM_WORLD, as in Open MPI.
//
// The environment variables libep reads (EP_INSPECT, EP_CHECK_COLLECTIVES,
// EP_COLL_ALGORITHM) are listed in docs/environment.md of the libep
// repository; how libep works inside is in docs/design.md.
#pragma once

#include <ep/coll.hpp>
#include <ep/comm.hpp>
#include <ep/group.hpp>
#include <ep/inspect.hpp>
#include <ep/p2p.hpp>
#include <ep/rma.hpp>
#include <ep/types.hpp>
#include <ep/version.hpp>
