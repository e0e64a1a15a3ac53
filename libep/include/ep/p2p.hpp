// Point-to-point communication between endpoints.
//
// Every function behaves as its MPI namesake would for an MPI process whose
// rank is the endpoint's rank. All are local (not collective). Ranks address
// endpoints; MPI_ANY_SOURCE, MPI_ANY_TAG and MPI_PROC_NULL mean what they mean
// in MPI, across and within processes alike.
#pragma once

#include <ep/types.hpp>

namespace ep {

// Blocking sends.
int Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm);
int Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm);
int Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm);

// Non-blocking sends.
int Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
          Request* request);
int Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
           Request* request);
int Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
           Request* request);

// Receives.
int Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, Comm comm,
         Status* status);
int Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, Comm comm,
          Request* request);

int Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             Comm comm, Status* status);
int Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                     int recvtag, Comm comm, Status* status);

// Probes and matched probes.
int Probe(int source, int tag, Comm comm, Status* status);
int Iprobe(int source, int tag, Comm comm, int* flag, Status* status);
int Mprobe(int source, int tag, Comm comm, Message* message, Status* status);
int Improbe(int source, int tag, Comm comm, int* flag, Message* message, Status* status);
int Mrecv(void* buf, int count, MPI_Datatype datatype, Message* message, Status* status);
int Imrecv(void* buf, int count, MPI_Datatype datatype, Message* message, Request* request);

// Completion. Requests of different endpoints and communicators may be mixed.
int Wait(Request* request, Status* status);
int Waitall(int count, Request requests[], Status statuses[]);
int Waitany(int count, Request requests[], int* index, Status* status);
int Waitsome(int incount, Request requests[], int* outcount, int indices[], Status statuses[]);
int Test(Request* request, int* flag, Status* status);
int Testall(int count, Request requests[], int* flag, Status statuses[]);
int Testany(int count, Request requests[], int* index, int* flag, Status* status);
int Testsome(int incount, Request requests[], int* outcount, int indices[], Status statuses[]);

int Request_free(Request* request);
/// Cancels a pending receive (sends cannot be cancelled: MPI_ERR_UNSUPPORTED_OPERATION).
int Cancel(Request* request);
int Test_cancelled(const Status* status, int* flag);
int Get_count(const Status* status, MPI_Datatype datatype, int* count);

// Persistent requests.
int Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
              Request* request);
int Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
               Request* request);
int Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
               Request* request);
int Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, Comm comm,
              Request* request);
int Start(Request* request);
int Startall(int count, Request requests[]);

}  // namespace ep
