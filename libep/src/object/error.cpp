#include "object/error.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#ifdef __linux__
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "object/endpoint.hpp"

namespace ep::detail {

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return fmt::format("MPI error {}", code);
  return std::string(text, static_cast<std::size_t>(length));
}

std::string describe(const Endpoint* endpoint) {
  if (!endpoint) return "no endpoint";
  const CommShared& shared = *endpoint->shared;
  return fmt::format("endpoint {} of communicator #{} (MPI process {}, local endpoint {})",
                     endpoint->rank, shared.id, shared.mpi_rank, endpoint->local);
}

int errhandler_reference(MPI_Errhandler handler, MPI_Errhandler* out) {
  // The *_get_errhandler calls of MPI hand out a new reference, which a
  // correct program releases with MPI_Errhandler_free; Open MPI frees a
  // predefined handler whose count drops to zero ("free(): invalid pointer"
  // in MPI_Finalize), and refuses to free MPI_ERRORS_RETURN's last one. So
  // the handle comes from MPI_Comm_get_errhandler on a private communicator
  // holding that handler, which counts the reference.
  static MPI_Comm holders[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
  static int setup_rc = MPI_SUCCESS;
  static std::once_flag once;
  std::call_once(once, [] {
    const MPI_Errhandler handlers[2] = {MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN};
    for (int i = 0; i < 2 && setup_rc == MPI_SUCCESS; ++i) {
      setup_rc = MPI_Comm_dup(MPI_COMM_SELF, &holders[i]);
      if (setup_rc == MPI_SUCCESS) setup_rc = MPI_Comm_set_errhandler(holders[i], handlers[i]);
    }
  });
  if (setup_rc != MPI_SUCCESS) return setup_rc;
  return MPI_Comm_get_errhandler(holders[handler == MPI_ERRORS_RETURN ? 1 : 0], out);
}

int error_class_of(int code) {
  int error_class = MPI_ERR_OTHER;
  if (MPI_Error_class(code, &error_class) != MPI_SUCCESS) return MPI_ERR_OTHER;
  return error_class;
}

namespace {

bool handler_returns(MPI_Comm comm) {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(comm, &handler) != MPI_SUCCESS) return false;
  const bool returns = handler == MPI_ERRORS_RETURN;
  // Releases the reference MPI_Comm_get_errhandler made; were it to fail,
  // the answer would stand, and this path is already reporting an error.
  static_cast<void>(MPI_Errhandler_free(&handler));
  return returns;
}

// Gives the launcher the message before MPI_Abort ends the job. Under
// MPICH 4.0.2's Hydra a process's stderr is a pipe to its proxy, and an abort
// can end the job before the proxy has forwarded what is in flight: in 3 of
// 70 runs of coll.mismatch_fatal@2,2 nothing reached the user, not even
// MPICH's own abort line (0 of 140 with this wait). Waits until the reader
// has taken everything from the pipe or socket (at most a second), then a
// tenth of a second for the next hop; a terminal or a file has nothing in
// flight.
void let_stderr_drain() {
#ifdef __linux__
  struct stat st {};
  if (fstat(STDERR_FILENO, &st) != 0) return;
  unsigned long unread = 0;
  if (S_ISFIFO(st.st_mode)) {
    unread = FIONREAD;
  } else if (S_ISSOCK(st.st_mode)) {
    unread = SIOCOUTQ;
  } else {
    return;
  }
  for (int ms = 0; ms < 1000; ++ms) {
    int pending = 0;
    if (ioctl(STDERR_FILENO, unread, &pending) != 0 || pending == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
#endif
}

// Parks a thread for good: the process is being ended by another thread's
// MPI_Abort, which takes this one with it.
[[noreturn]] void wait_for_abort() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// An error every endpoint of a process detects at once (a bad color given to
// Comm_split by all, a collective mismatch) reaches here on several threads
// together. Concurrent MPI_Abort calls crash some MPIs (Open MPI 4.1 dies of
// SIGSEGV or SIGABRT, with varying exit statuses) and their messages
// interleave; so the first thread reports and aborts, and the others wait
// for it to end the process rather than return into a program that expects
// not to continue.
[[noreturn]] void abort_with(int error_class, const char* function, std::string_view where,
                             std::string_view reason) {
  abort_job(fmt::format("libep: ep::{}: {}: {} ({})\n", function, where, reason,
                        mpi_error_string(error_class)),
            error_class);
}

}  // namespace

void abort_job(std::string_view message, int code) {
  static std::atomic<bool> aborting{false};
  if (aborting.exchange(true)) wait_for_abort();
  std::fwrite(message.data(), 1, message.size(), stderr);
  std::fflush(stderr);
  let_stderr_drain();
  MPI_Abort(MPI_COMM_WORLD, code);  // should not return; if it does, abort here
  std::abort();
}

int raise(const Endpoint* endpoint, int error_class, const char* function,
          std::string_view reason) {
  if (endpoint ? endpoint->errhandler == MPI_ERRORS_RETURN : handler_returns(MPI_COMM_WORLD)) {
    return error_class;
  }
  abort_with(error_class, function, endpoint ? describe(endpoint) : "invalid handle", reason);
}

int raise_with(MPI_Errhandler handler, int error_class, const char* function,
               std::string_view where, std::string_view reason) {
  if (handler == MPI_ERRORS_RETURN) return error_class;
  abort_with(error_class, function, where, reason);
}

int raise_on(MPI_Comm comm, int error_class, const char* function, std::string_view reason) {
  const bool valid = comm != MPI_COMM_NULL;
  if (handler_returns(valid ? comm : MPI_COMM_WORLD)) return error_class;
  abort_with(error_class, function, valid ? "on its parent communicator" : "invalid handle",
             reason);
}

int check_mpi(int rc, const Endpoint* endpoint, const char* function, const char* mpi_call) {
  if (rc == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(endpoint, error_class_of(rc), function, "{} failed: {}", mpi_call,
               mpi_error_string(rc));
}

}  // namespace ep::detail
