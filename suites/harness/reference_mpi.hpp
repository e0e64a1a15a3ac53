// Where the MPI under the plain-MPI reference program is known to depart from
// the MPI standard, or from what libep promises where the standard leaves it
// open, so that the reference cannot be the reference for one step of a test.
//
// A test asks before such a step. The reference program then skips the step;
// the endpoint program still runs and checks it, and prints nothing for it,
// so that the two outputs stay comparable. Each entry says which versions it
// was measured on and the evidence. Both programs of a test link the same MPI,
// so they agree on every answer here.
#pragma once

#include <mpi.h>

namespace eptest::reference {

#if defined(MPICH_NUMVERSION)  // MPICH and its derivatives (MVAPICH, Intel MPI)
inline constexpr bool kMpich = true;
inline constexpr long kMpichVersion = MPICH_NUMVERSION;  // 4.0.2 is 40002300
#else
inline constexpr bool kMpich = false;
inline constexpr long kMpichVersion = 0;
#endif

/// A non-blocking receive from MPI_PROC_NULL completes with MPI_SOURCE 0 and
/// MPI_TAG 0 instead of MPI_PROC_NULL and MPI_ANY_TAG (MPI-4.0 section 3.10).
/// MPICH before 4.2: pmodels/mpich#6805, fixed by pmodels/mpich#6819.
inline constexpr bool kProcNullIrecvStatusWrong = kMpich && kMpichVersion < 40200000;

/// A persistent receive from MPI_PROC_NULL completes with MPI_SOURCE
/// MPI_ANY_SOURCE instead of MPI_PROC_NULL. Measured on MPICH 4.0.2 (Recv_init,
/// Start, Wait on MPI_COMM_SELF); no fix known, so no version bound.
inline constexpr bool kProcNullPersistentStatusWrong = kMpich;

/// After MPI_ERR_TRUNCATE the count in the status is not the message's length
/// (what libep reports, as Open MPI does; the standard leaves it open), and
/// MPI_Mrecv leaves the message handle set. Measured on MPICH 4.0.2 (ch4:ucx):
/// the count is the bytes that fit for a message to oneself, and 0 or the
/// length of an earlier message between processes.
inline constexpr bool kTruncatedStatusDiffers = kMpich;

/// MPI_Intercomm_merge of an intra-communicator fails an internal assertion
/// and aborts instead of returning MPI_ERR_COMM. Measured on MPICH 4.0.2
/// (ch4i_comm.c:743, "mapper->dir == MPIR_COMM_MAP_DIR__L2L || ..."), with
/// MPI_ERRORS_RETURN on a duplicate of MPI_COMM_WORLD; no fix known.
inline constexpr bool kMergeOfIntracommAborts = kMpich;

/// MPI_Win_get_attr(MPI_WIN_BASE) of a window made by MPI_Win_create with
/// size 0 gives a null base instead of the base the process passed (MPI-4.0
/// section 12.2.6: "the window base"). Measured on MPICH 4.0.2 with a
/// 10-line C program (2 processes, rank 1 passes a stack buffer and size 0:
/// base (nil)); Open MPI 4.1.4 returns the base passed.
inline constexpr bool kWinBaseNullForSizeZero = kMpich;

/// The probes set the MPI_ERROR field of the status they fill (to
/// MPI_SUCCESS), which MPI leaves to the user in every call that is not a
/// multiple completion (MPI-4.0 section 3.2.5: "the error field ... may be
/// updated only by the functions in Section 3.7.5 which return multiple
/// statuses"). Measured on MPICH 4.0.2 by p2p.status_error: Probe and Iprobe
/// always, Mprobe and Improbe for a message from the process itself; the
/// receive and completion calls leave it alone. Open MPI 4.1.4 leaves it
/// alone in all of them.
inline constexpr bool kProbeWritesStatusError = kMpich;

/// A message sent as one struct datatype whose basic elements lie packed
/// without gaps (an int at 0, a double at 4, an int at 12, ...: size equal
/// to extent, misaligned doubles), past the eager size, fails at the receiver
/// with MPI_ERR_TRUNCATE although the receive buffer holds it. Measured on
/// MPICH 4.0.2 with a 25-line C program, 2 processes, into 3000 elements of
/// struct {int at 0, double at 8} (extent 16): 1999, 5999 and 6000 basic
/// elements fail, 5998 (extent padded past the size) and 199 succeed, and so
/// does the same signature spread one basic element every 16 bytes; Open MPI
/// 4.1.4 receives all of them. libep hands such a message between processes
/// to the MPI as the sender's type, so both programs of a test leave it out.
inline constexpr bool kPackedStructRendezvousTruncates = kMpich;

#if defined(OMPI_MAJOR_VERSION)
inline constexpr int kOmpiMajor = OMPI_MAJOR_VERSION;
#else
inline constexpr int kOmpiMajor = 0;
#endif

/// MPI_Win_create on a communicator of one process fails with MPI_ERR_WIN
/// (osc/rdma declines, and osc/pt2pt refuses MPI_THREAD_MULTIPLE).
/// MPI_Win_allocate on one process works. Measured on Open MPI 4.1.4:
/// rma.create's reference with -np 1, 4 runs of 4, under the harness's
/// MPI_THREAD_MULTIPLE; with 2 or more processes it works.
inline constexpr bool kWinCreateOnOneProcessFails = kOmpiMajor == 4;

/// MPI_Win_allocate on two disjoint communicators with the same context id
/// (the two halves of one MPI_Comm_split) at the same time, on one node,
/// mixes the windows up: osc/rdma names its shared-memory segment after the
/// host, the job id and the communicator's id only
/// (/dev/shm/osc_rdma.<host>.<jobid>.<cid>, seen with strace), so both
/// windows open one file. Measured on Open MPI 4.1.4, rma.split's reference
/// with 6 processes (colors rank % 2): in 5 runs of 6, MPI_ERR_WIN from
/// MPI_Win_allocate after "A system call failed during shared memory
/// initialization ... open(2) No such file or directory", or Puts of one
/// color's window landing in the other's memory. Creating the windows one
/// communicator after the other (the first one's segment is unlinked once it
/// is set up) works.
inline constexpr bool kWindowsOfDisjointCommsCollide = kOmpiMajor == 4;

/// After an MPI_Ialltoallv with MPI_IN_PLACE in which one process exchanges
/// nothing (all its counts 0), a later non-blocking collective on the
/// communicator never completes on some processes. Measured on Open MPI
/// 4.1.4 with a 20-line C program on 3 processes (ranks 0 and 2 exchange 6
/// ints, rank 1 none, MPI_Wait; then MPI_Iexscan of one int: rank 0
/// completes it, ranks 1 and 2 wait forever), and by coll.nonblocking's
/// reference on 3 processes; MPICH 4.0.2 runs the same program to the end.
inline constexpr bool kInPlaceIalltoallvWithIdleRankHangs = kOmpiMajor == 4;

/// MPI_Iexscan on an inter-communicator crashes (a call through a null
/// pointer inside PMPI_Iexscan) instead of returning MPI_ERR_COMM, which
/// MPI_Iscan returns there. Measured on Open MPI 4.1.4 by
/// coll.nonblocking_inter's reference on 3 processes (gdb: frame 0 at
/// address 0, frame 1 PMPI_Iexscan), under MPI_ERRORS_RETURN.
inline constexpr bool kIexscanOnIntercommCrashes = kOmpiMajor == 4;

/// MPI_Ireduce_scatter_block with a non-commutative user op on a resized
/// datatype (4 ints in a slot of 5) returns wrong elements and corrupts the
/// heap ("malloc(): corrupted top size"). Measured on MPICH 4.0.2 by
/// coll.nonblocking's reference on 4 processes (one matrix a rank); the
/// blocking MPI_Reduce_scatter_block is right (harness/polite_mpi.cpp keeps
/// it blocking for this reason). Open MPI 4.1.4 is right.
inline constexpr bool kIreduceScatterBlockNoncommutativeWrong = kMpich;

/// MPI_Ibcast on an inter-communicator from a root other than rank 0 of its
/// group delivers nothing: the other group's buffers stay as they were.
/// Measured on MPICH 4.0.2 with a 25-line C program (4 processes, groups of
/// even and odd ranks, root rank 1 of the even group: the odd ranks keep
/// -1); the blocking MPI_Bcast of the same program, and Open MPI 4.1.4's
/// MPI_Ibcast, deliver the data.
inline constexpr bool kIbcastIntercommNonzeroRootLost = kMpich;

/// Data put into an MPI_Win_allocate window whose size is not a multiple of
/// 16 bytes lands in the wrong place (40, 56, 72 and 4104 B wrong; 48, 64
/// and 4096 right), on 2 and 4 processes, and MPI_WIN_BASE is not the
/// memory MPI_Win_allocate returned. Measured on MPICH 4.0.2 (research
/// rma.md 2.8, rma-lab/alloc_bug.cpp; rma.create's reference on 4
/// processes with sizes 40, 104, 168 B: MPI_WIN_BASE differs from baseptr on
/// ranks 1 and 3); Open MPI 4.1.4 is right. The RMA tests' windows are
/// multiples of 64 bytes but for rma.create's check of libep's own
/// workaround, which the reference skips there.
inline constexpr bool kWinAllocateMisplacesOddSizes = kMpich && kMpichVersion < 40200000;

/// MPI_Group_translate_ranks into MPI_GROUP_EMPTY translates MPI_PROC_NULL
/// to MPI_UNDEFINED instead of MPI_PROC_NULL (MPI-4.0 section 7.3.1:
/// "MPI_PROC_NULL is a valid rank for input to MPI_GROUP_TRANSLATE_RANKS,
/// which returns MPI_PROC_NULL as the translated rank"). Measured with a
/// 15-line C program on Open MPI 4.1.4 and MPICH 4.0.2 alike (3 processes,
/// {MPI_PROC_NULL, 0} of MPI_COMM_WORLD's group into MPI_GROUP_EMPTY:
/// MPI_UNDEFINED twice); into a non-empty group both give MPI_PROC_NULL.
inline constexpr bool kTranslateProcNullIntoEmptyUndefined = true;

/// Buffered sends do not report MPI_ERR_BUFFER where libep does. MPI asks a
/// program to attach the sum of Pack_size + MPI_BSEND_OVERHEAD over the
/// messages buffered at once (MPI-4.0 section 3.6.1) and leaves a smaller
/// buffer to the implementation; libep charges exactly that, so one byte
/// less refuses the message. Measured with a C program on 2 processes
/// (Bsend of 3, 100 000 and 50 000 ints to the other process, which receives
/// after a barrier, into a buffer one byte short of the sum; a 4000-byte
/// message into a 200-byte buffer; Bsend with no buffer attached; a second
/// Buffer_attach): Open MPI 4.1.4 accepts all of them (its small messages
/// do not use the buffer); MPICH 4.0.2 accepts the buffer one byte short and
/// refuses the 200-byte buffer, no buffer and the second attach with
/// MPI_ERR_BUFFER.
inline constexpr bool kBufferedSendsUnchecked = true;

/// MPI_Pack and MPI_Unpack do not check the packed buffer's size: packing
/// 12 bytes into an 8-byte buffer succeeds and leaves position 8 (the
/// rest written past it), unpacking likewise; Open MPI 4.1.4 returns
/// MPI_ERR_TRUNCATE, as libep does. Measured on MPICH 4.0.2 with a C program
/// (MPI_Pack of 3 MPI_INT, outsize 8, on MPI_COMM_WORLD with
/// MPI_ERRORS_RETURN).
inline constexpr bool kPackOverflowUnchecked = kMpich;

/// MPI_Alltoallw with MPI_IN_PLACE and a datatype per peer (MPI_INT, a
/// contiguous pair, a strided pair of extent 3 ints; counts differing per
/// pair, symmetric as MPI requires) aborts in its local copy: "Message
/// truncated; 32 bytes received but buffer size is 16" (do_localcopy, under
/// MPIDU_Sched_progress_state). Measured on MPICH 4.0.2 by coll.inter on 3
/// processes: the run passes with only that step left out, and the same call
/// with MPI_INT and contiguous pairs alone (a 40-line C program) is right.
/// Open MPI 4.1.4 gives what libep gives.
inline constexpr bool kAlltoallwInPlaceTypesAbort = kMpich;

/// MPI_Comm_create of an inter-communicator with a group in another order
/// than the local group's makes an inter-communicator whose MPI_Allreduce
/// never completes on that side. Measured on Open MPI 4.1.4 (6 processes,
/// even and odd ranks, the even side's part {2, 0} of its local ranks; in
/// ascending order it works; MPICH 4.0.2 works either way).
inline constexpr bool kInterCreateReorderedHangs = kOmpiMajor == 4;

/// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) of an inter-communicator whose
/// groups differ in size crashes (SIGSEGV in mca_btl_vader_sendi, under
/// mca_coll_inter_allreduce_inter). Measured on Open MPI 4.1.4: 3 processes
/// as groups of 2 and 1 crash in every run, 4 processes as 2 and 2 work;
/// MPICH 4.0.2 works.
inline constexpr bool kInterSplitTypeCrashes = kOmpiMajor == 4;

}  // namespace eptest::reference
