// Bad arguments under MPI_ERRORS_RETURN: each call returns an error of the
// right class, loses nothing, and a good call right after it works. Not
// differential: which argument an MPI checks first (and whether it checks at
// all) is the implementation's business, so the plain-MPI run only has to pass
// the checks it is given.
#include <climits>
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

class Errors {
 public:
  explicit Errors(Context& t) : t_(t) {}

  // A good exchange with oneself, to show the last error did no harm.
  void still_works(const std::string& after) {
    const int out = ++round_;
    int in = -1;
    api::Status st{};
    const int rc = api::Sendrecv(&out, 1, MPI_INT, t_.rank(), 1, &in, 1, MPI_INT, t_.rank(), 1,
                                 t_.comm(), &st);
    t_.check(rc == MPI_SUCCESS && in == out && st.MPI_SOURCE == t_.rank(),
             fmt::format("a good Sendrecv after {} failed", after));
  }

  // Checks that `rc` is of `error_class`, then that the endpoint still works.
  void expect(int rc, int error_class, const std::string& what) {
    t_.expect_class(rc, error_class, what);
    still_works(what);
    t_.out("{}: {}", what, error_class_name(rc == MPI_SUCCESS ? MPI_SUCCESS : error_class_of(rc)));
  }

 private:
  Context& t_;
  int round_ = 0;
};

int tag_ub(Context& t) {
  int* value = nullptr;
  int flag = 0;
  t.check_rc(api::Comm_get_attr(t.comm(), MPI_TAG_UB, &value, &flag), "Comm_get_attr");
  return flag && value ? *value : 32767;
}

}  // namespace

void eptest::run(Context& t) {
  // Errors on a null communicator have no endpoint to take a handler from; as
  // in MPI they go to MPI_COMM_WORLD's.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  // Comm_get_errhandler hands out a new reference each time, which a correct
  // program releases: freeing it must neither fail nor take MPI's own
  // reference to the predefined handler (libep once handed out the handler
  // itself: MPI_Errhandler_free failed on MPI_ERRORS_RETURN, and after
  // freeing MPI_ERRORS_ARE_FATAL's, Open MPI's MPI_Finalize aborted).
  for (const MPI_Errhandler set : {MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN}) {
    t.check_rc(api::Comm_set_errhandler(t.comm(), set), "Comm_set_errhandler");
    for (int i = 0; i < 3; ++i) {
      MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
      t.check_rc(api::Comm_get_errhandler(t.comm(), &handler), "Comm_get_errhandler");
      t.check(handler == set, "Comm_get_errhandler: not the handler set");
      t.check_rc(MPI_Errhandler_free(&handler), "MPI_Errhandler_free of its handle");
    }
  }

  Errors e(t);
  const int size = t.size();
  int buf[4] = {0, 0, 0, 0};
  api::Request request = api::REQUEST_NULL;
  api::Status st{};

  // MPI_ERR_RANK: past the end, negative (and not a special value).
  e.expect(api::Send(buf, 1, MPI_INT, size, 0, t.comm()), MPI_ERR_RANK, "Send to rank size");
  e.expect(api::Send(buf, 1, MPI_INT, -7, 0, t.comm()), MPI_ERR_RANK, "Send to rank -7");
  e.expect(api::Isend(buf, 1, MPI_INT, size + 5, 0, t.comm(), &request), MPI_ERR_RANK,
           "Isend to rank size+5");
  e.expect(api::Recv(buf, 1, MPI_INT, size, 0, t.comm(), &st), MPI_ERR_RANK, "Recv from rank size");
  e.expect(api::Irecv(buf, 1, MPI_INT, -7, 0, t.comm(), &request), MPI_ERR_RANK,
           "Irecv from rank -7");
  e.expect(api::Probe(size, 0, t.comm(), &st), MPI_ERR_RANK, "Probe rank size");

  // MPI_ERR_TAG: negative user tags, MPI_ANY_TAG on a send, past MPI_TAG_UB.
  e.expect(api::Send(buf, 1, MPI_INT, t.rank(), -3, t.comm()), MPI_ERR_TAG, "Send tag -3");
  e.expect(api::Send(buf, 1, MPI_INT, t.rank(), MPI_ANY_TAG, t.comm()), MPI_ERR_TAG,
           "Send tag ANY_TAG");
  e.expect(api::Recv(buf, 1, MPI_INT, t.rank(), -3, t.comm(), &st), MPI_ERR_TAG, "Recv tag -3");
  const int ub = tag_ub(t);
  if (ub < INT_MAX) {  // with MPI's own bound nothing is larger
    e.expect(api::Send(buf, 1, MPI_INT, t.rank(), ub + 1, t.comm()), MPI_ERR_TAG,
             "Send tag TAG_UB+1");
    e.expect(api::Irecv(buf, 1, MPI_INT, t.rank(), ub + 1, t.comm(), &request), MPI_ERR_TAG,
             "Irecv tag TAG_UB+1");
  }

  // MPI_ERR_COUNT, MPI_ERR_TYPE.
  e.expect(api::Send(buf, -1, MPI_INT, t.rank(), 0, t.comm()), MPI_ERR_COUNT, "Send count -1");
  e.expect(api::Recv(buf, -1, MPI_INT, t.rank(), 0, t.comm(), &st), MPI_ERR_COUNT, "Recv count -1");
  e.expect(api::Send(buf, 1, MPI_DATATYPE_NULL, t.rank(), 0, t.comm()), MPI_ERR_TYPE,
           "Send DATATYPE_NULL");
  e.expect(api::Irecv(buf, 1, MPI_DATATYPE_NULL, t.rank(), 0, t.comm(), &request), MPI_ERR_TYPE,
           "Irecv DATATYPE_NULL");

  // MPI_ERR_COMM.
  e.expect(api::Send(buf, 1, MPI_INT, 0, 0, api::COMM_NULL), MPI_ERR_COMM, "Send COMM_NULL");
  e.expect(api::Recv(buf, 1, MPI_INT, 0, 0, api::COMM_NULL, &st), MPI_ERR_COMM, "Recv COMM_NULL");
  int rank = -1;
  e.expect(api::Comm_rank(api::COMM_NULL, &rank), MPI_ERR_COMM, "Comm_rank COMM_NULL");

  // MPI_ERR_BUFFER: no buffer for a non-empty message.
  e.expect(api::Send(nullptr, 4, MPI_INT, t.rank(), 0, t.comm()), MPI_ERR_BUFFER,
           "Send nullptr count 4");
  e.expect(api::Irecv(nullptr, 4, MPI_INT, t.rank(), 0, t.comm(), &request), MPI_ERR_BUFFER,
           "Irecv nullptr count 4");

  // MPI_ERR_REQUEST: starting what is not a persistent request. The pending
  // receive must survive it and complete normally afterwards.
  api::Request null_request = api::REQUEST_NULL;
  e.expect(api::Start(&null_request), MPI_ERR_REQUEST, "Start REQUEST_NULL");
  int value = -1;
  t.check_rc(api::Irecv(&value, 1, MPI_INT, t.rank(), 2, t.comm(), &request), "Irecv");
  e.expect(api::Start(&request), MPI_ERR_REQUEST, "Start on an Irecv request");
  const int sent = 4242;
  t.check_rc(api::Send(&sent, 1, MPI_INT, t.rank(), 2, t.comm()), "Send");
  t.check_rc(api::Wait(&request, &st), "Wait");
  t.expect_eq(value, sent, "the receive behind the bad Start");
}
