#include "coll/exchange.hpp"

#include "coll/checks.hpp"
#include "coll/mpi_step.hpp"

namespace ep::detail {

namespace {

// What a header byte carries does not matter; it only makes the message exist.
const char kHeader = 0;

// One struct datatype for all pieces to or from one peer, or nothing.
// Returns an MPI error code; *created says whether *type must be freed.
template <class Piece>
int make_type(const std::vector<Piece>& pieces, MPI_Datatype* type, int* count, bool* created) {
  *created = false;
  if (pieces.empty()) {
    *type = MPI_BYTE;
    *count = 0;
    return MPI_SUCCESS;
  }
  std::vector<int> lengths;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Datatype> types;
  for (const Piece& p : pieces) {
    lengths.push_back(p.count);
    addresses.push_back(p.address);
    types.push_back(p.type);
  }
  int rc = MPI_Type_create_struct(static_cast<int>(pieces.size()), lengths.data(), addresses.data(),
                                  types.data(), type);
  if (rc != MPI_SUCCESS) return rc;
  *created = true;
  *count = 1;
  return MPI_Type_commit(type);
}

// The address of `buf` as a displacement from MPI_BOTTOM; a failure is kept
// in *rc.
MPI_Aint address_of(const void* buf, int* rc) {
  MPI_Aint address = 0;
  keep_first_error(rc, MPI_Get_address(buf, &address));
  return address;
}

}  // namespace

void Exchange::send(int peer, const void* buf, int count, MPI_Datatype type) {
  auto& pieces = send_[static_cast<std::size_t>(peer)];
  if (pieces.empty()) pieces.push_back({address_of(&kHeader, &rc_), 1, MPI_BYTE});
  if (count > 0) pieces.push_back({address_of(buf, &rc_), count, type});
}

void Exchange::recv(int peer, void* buf, int count, MPI_Datatype type) {
  auto& pieces = recv_[static_cast<std::size_t>(peer)];
  if (pieces.empty()) {
    pieces.push_back({address_of(&headers_[static_cast<std::size_t>(peer)], &rc_), 1, MPI_BYTE});
  }
  if (count > 0) pieces.push_back({address_of(buf, &rc_), count, type});
}

int Exchange::run(MPI_Comm comm) const {
  // A tag of its own: the small Barrier, Bcast and Allreduce send messages
  // on the leaders' communicator too, under tags 8 to 10 (coll/mpi_step.hpp).
  constexpr int kTag = 7;
  std::vector<MPI_Datatype> types;
  std::vector<MPI_Request> requests;
  int rc = MPI_SUCCESS;
  // Receives first, so that no message waits unexpected.
  for (const bool receiving : {true, false}) {
    const auto& lists = receiving ? recv_ : send_;
    // complete() tests the request to completion; the MPI checker cannot see it.
    // NOLINTNEXTLINE(clang-analyzer-optin.mpi.MPI-Checker)
    for (std::size_t p = 0; p < lists.size() && rc == MPI_SUCCESS; ++p) {
      MPI_Datatype type = MPI_DATATYPE_NULL;
      int count = 0;
      bool created = false;
      rc = make_type(lists[p], &type, &count, &created);
      if (created) types.push_back(type);
      if (rc != MPI_SUCCESS || count == 0) continue;
      MPI_Request request = MPI_REQUEST_NULL;
      const int peer = static_cast<int>(p);
      rc = receiving ? MPI_Irecv(MPI_BOTTOM, 1, type, peer, kTag, comm, &request)
                     : MPI_Isend(MPI_BOTTOM, 1, type, peer, kTag, comm, &request);
      requests.push_back(request);
    }
  }
  keep_first_error(&rc, complete_all(static_cast<int>(requests.size()), requests.data()));
  for (MPI_Datatype& t : types) keep_first_error(&rc, MPI_Type_free(&t));
  // A piece whose address MPI could not take was listed anyway, so that the
  // peers still got their messages; the call fails here.
  keep_first_error(&rc, rc_);
  return rc;
}

}  // namespace ep::detail
