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

// Buffered sends. The buffer belongs to the endpoint as MPI's belongs to the
// process: to its identity, which it keeps through Comm_dup, Comm_split and
// the other constructors (an endpoint is a process). So Buffer_attach and
// Buffer_detach name a communicator, since a thread has no implicit process,
// and the buffer they attach serves the buffered sends of that endpoint on
// every communicator it belongs to; another endpoint of the same process has
// a buffer of its own. A buffered send packs its message into the buffer and
// returns; libep sends it from there and reclaims its space once sent,
// whenever a buffered send or Buffer_detach of the same identity runs. Each
// message takes Pack_size + MPI_BSEND_OVERHEAD bytes of the buffer while it
// waits there: a message that does not fit, or no buffer attached, gives
// MPI_ERR_BUFFER. Comm_free does not wait for buffered messages (they are
// sent as usual); Buffer_detach does. A buffered message to an endpoint
// that never receives it stays in the buffer, and Buffer_detach waits for
// it, as in MPI.

/// As MPI_Bsend.
int Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm);
/// As MPI_Ibsend: the message is in the buffer when it returns, so the request
/// is complete at once.
int Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
           Request* request);
/// As MPI_Bsend_init: each Start buffers the message as Bsend does.
int Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
               Request* request);
/// As MPI_Buffer_attach, for the endpoint `comm` (all its communicators; see
/// above). MPI_ERR_BUFFER if it has a buffer attached already, or for a null
/// buffer of a positive size; MPI_ERR_ARG for a negative size.
int Buffer_attach(Comm comm, void* buffer, int size);
/// As MPI_Buffer_detach, for the endpoint `comm`: waits until every message
/// in the buffer has been sent, then gives the buffer's address in
/// *(void**)buffer_addr and its size; nullptr and 0 if none was attached.
/// While it waits it moves on the endpoint's operations on `comm` only
/// (there is no progress thread): a receive it posted on another
/// communicator, which a peer's Buffer_detach may be waiting for, moves on
/// only in calls there.
int Buffer_detach(Comm comm, void* buffer_addr, int* size);

/// As MPI_Request_get_status: tests the request without freeing it or
/// making it inactive. The status of a completed receive is filled in;
/// that of a send is left as it is (MPI defines no fields of it), as
/// MPICH does. A null or inactive request gives flag 1 and an empty status.
int Request_get_status(Request request, int* flag, Status* status);

/// As MPI_Pack. The communicator is the one the packed data will travel on;
/// all endpoints share one address space, so the bytes are those MPI_Pack
/// gives for MPI_COMM_SELF. Packing past `outsize` gives MPI_ERR_TRUNCATE
/// and writes nothing (MPICH 4.0.2's own MPI_Pack does not check).
int Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
         int* position, Comm comm);
/// As MPI_Unpack; reading past `insize` gives MPI_ERR_TRUNCATE (see Pack).
int Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
           MPI_Datatype datatype, Comm comm);
/// As MPI_Pack_size.
int Pack_size(int incount, MPI_Datatype datatype, Comm comm, int* size);

/// As MPI_Abort: prints the endpoint and the error code and ends the whole
/// job (as Open MPI and MPICH do for any communicator), with `errorcode` as
/// the exit status where the launcher passes it on. When several endpoints
/// of a process abort at once, one of them ends the job. Does not return.
int Abort(Comm comm, int errorcode);

}  // namespace ep
