// Point-to-point communication between endpoints.
//
// Every function behaves as its MPI namesake would for an MPI process whose
// rank is the endpoint's rank. All are local (not collective) and follow the
// threading rule of ep/ep.hpp: one thread at a time per endpoint; a call on a
// request or a message is a call on the endpoint that made it.
//
// Ranks address endpoints; on an inter-communicator they address the remote
// group, and MPI_SOURCE reports the sender's rank in its group.
// MPI_ANY_SOURCE, MPI_ANY_TAG and MPI_PROC_NULL mean what they mean in MPI,
// across and within processes alike, and messages between two endpoints do
// not overtake each other. Tags run from 0 to the communicator's MPI_TAG_UB
// attribute (Comm_get_attr), which is below the MPI's own: libep carries
// part of its envelope in the MPI tag.
//
// Argument errors, raised before anything is started: MPI_ERR_COMM (invalid
// communicator), MPI_ERR_RANK, MPI_ERR_TAG, MPI_ERR_COUNT (negative),
// MPI_ERR_TYPE (MPI_DATATYPE_NULL or invalid), MPI_ERR_BUFFER (MPI_IN_PLACE,
// or a null buffer for count > 0 unless the datatype holds absolute
// addresses), MPI_ERR_REQUEST (an invalid request handle), MPI_ERR_ARG or
// MPI_ERR_REQUEST (a null pointer argument). A communicator or request
// handle used after it was freed, or one that never was a handle, is
// invalid (ep/types.hpp): it never reaches the object made in its place.
// A receive buffer too small for its message gives MPI_ERR_TRUNCATE, with
// the part that fits received and the status counting the whole message.
#pragma once

#include <ep/types.hpp>

namespace ep {

/// As MPI_Send. It may wait until the receive is posted: between endpoints
/// of one process it does for messages over 16 KiB (messages to oneself are
/// always buffered); between processes, as the MPI below decides.
int Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm);
/// As MPI_Ssend: returns only once a receive or a matched probe has matched
/// its message.
int Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm);
/// As MPI_Rsend, run as a standard send: no error if the receive is not
/// posted yet.
int Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm);

/// As MPI_Isend.
int Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
          Request* request);
/// As MPI_Issend: completes only once a receive or a matched probe has
/// matched its message.
int Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
           Request* request);
/// As MPI_Irsend, run as a standard send (see Rsend).
int Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
           Request* request);

/// As MPI_Recv.
int Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, Comm comm,
         Status* status);
/// As MPI_Irecv.
int Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, Comm comm,
          Request* request);

/// As MPI_Sendrecv. Both halves are checked before either starts.
int Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             Comm comm, Status* status);
/// As MPI_Sendrecv_replace; the outgoing message is copied aside first, into
/// memory as large as the message.
int Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                     int recvtag, Comm comm, Status* status);

/// As MPI_Probe.
int Probe(int source, int tag, Comm comm, Status* status);
/// As MPI_Iprobe.
int Iprobe(int source, int tag, Comm comm, int* flag, Status* status);
/// As MPI_Mprobe: the message is matched now, taken from the endpoint's
/// queue, and received later with Mrecv or Imrecv. A probe of MPI_PROC_NULL
/// gives MESSAGE_NO_PROC.
int Mprobe(int source, int tag, Comm comm, Message* message, Status* status);
/// As MPI_Improbe (see Mprobe); *message is MESSAGE_NULL when none matched.
int Improbe(int source, int tag, Comm comm, int* flag, Message* message, Status* status);
/// As MPI_Mrecv; sets *message to MESSAGE_NULL. A handle that is not from
/// Mprobe/Improbe, or already received, gives MPI_ERR_ARG.
int Mrecv(void* buf, int count, MPI_Datatype datatype, Message* message, Status* status);
/// As MPI_Imrecv (see Mrecv).
int Imrecv(void* buf, int count, MPI_Datatype datatype, Message* message, Request* request);

// Completion. Requests of different endpoints and communicators may be mixed
// in one call; the calling thread then uses each of those endpoints, which no
// other thread may use meanwhile. A null or inactive request counts as
// complete, with an empty status. The functions over arrays report a failed
// request with MPI_ERR_IN_STATUS, raised on the endpoint of the first failed
// request, and its class in the MPI_ERROR field of its status.

/// As MPI_Wait.
int Wait(Request* request, Status* status);
/// As MPI_Waitall.
int Waitall(int count, Request requests[], Status statuses[]);
/// As MPI_Waitany.
int Waitany(int count, Request requests[], int* index, Status* status);
/// As MPI_Waitsome.
int Waitsome(int incount, Request requests[], int* outcount, int indices[], Status statuses[]);
/// As MPI_Test.
int Test(Request* request, int* flag, Status* status);
/// As MPI_Testall: completes none of the requests unless all have completed.
int Testall(int count, Request requests[], int* flag, Status statuses[]);
/// As MPI_Testany.
int Testany(int count, Request requests[], int* index, int* flag, Status* status);
/// As MPI_Testsome.
int Testsome(int incount, Request requests[], int* outcount, int indices[], Status statuses[]);

/// As MPI_Request_free: an active request still completes, and is reclaimed
/// then; Comm_free of its endpoint waits for it.
int Request_free(Request* request);
/// As MPI_Cancel, for receives that no message has matched yet. Any other
/// request (a send, a matched receive) is not cancelled: it completes
/// normally and Test_cancelled reports false. Returns MPI_SUCCESS either way.
int Cancel(Request* request);
/// As MPI_Test_cancelled.
int Test_cancelled(const Status* status, int* flag);
/// As MPI_Get_count: MPI_UNDEFINED when the message is not a whole number of
/// elements of `datatype`. Local to the status: any thread may call it.
int Get_count(const Status* status, MPI_Datatype datatype, int* count);
/// As MPI_Get_elements: the basic elements received, counting those of a
/// last element of `datatype` the message ended inside (all of which the
/// receive stored). MPI_UNDEFINED when the message is not a whole number of
/// basic elements, or when the count does not fit an int. Local to the
/// status: any thread may call it.
int Get_elements(const Status* status, MPI_Datatype datatype, int* count);
/// As MPI_Get_elements_x (see Get_elements), with an MPI_Count.
int Get_elements_x(const Status* status, MPI_Datatype datatype, MPI_Count* count);

/// As MPI_Send_init.
int Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
              Request* request);
/// As MPI_Ssend_init.
int Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
               Request* request);
/// As MPI_Rsend_init, run as a standard send (see Rsend).
int Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
               Request* request);
/// As MPI_Recv_init.
int Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, Comm comm,
              Request* request);
/// As MPI_Start: MPI_ERR_REQUEST for a request that is not persistent or is
/// still active.
int Start(Request* request);
/// As MPI_Startall, in array order; stops at the first request that fails to
/// start (those before it are started) and returns its error.
int Startall(int count, Request requests[]);

}  // namespace ep
