// Comm_idup: Comm_dup as a non-blocking collective (coll/nonblocking.hpp).
//
// Each endpoint gets its new handle in the call: an Endpoint made at once,
// its handle retired until the communicator's build takes it over (Agreed::
// premade in comm/build.hpp), so that using it early gets MPI_ERR_COMM. The
// process's step (IdupStep), started in call order as every non-blocking
// collective's, broadcasts the new communicator's name (drawn by MPI rank 0)
// on the step carrier and makes the MPI communicators the new one needs (its
// own, then its inbox and bulk channels) with MPI_Comm_idup, one at a time:
// the first from the parent's first inbox channel, each next from the one
// before. Once they are there, the first endpoint of the process to take
// its result builds the communicator with them, as a pooled set is taken
// over, and each endpoint copies its attributes to its new handle, as
// Comm_dup does.
//
// Why one MPI_Comm_idup at a time, none on the step carrier, and never two
// Comm_idups of a communicator at once (ProcessStep::exclusive): Open MPI
// 4.1 agrees on a new communicator's id with non-blocking collectives on
// the parent that it starts from its progress engine, round after round, at
// times that differ between processes. Beside other non-blocking
// collectives on the same MPI communicator they pair with the wrong ones
// (an MPI_Ibcast of 20 bytes met one of 8: MPI_ERR_TRUNCATE), and several
// creations under way on one parent at once hung. The first inbox channel
// carries only point-to-point messages, and each later parent is a
// communicator nobody else has yet.
#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coll/nonblocking.hpp"
#include "comm/attributes.hpp"
#include "comm/build.hpp"
#include "ep/comm.hpp"
#include "object/error.hpp"
#include "p2p/internal.hpp"

namespace ep {

namespace {

using detail::CommShared;
using detail::Endpoint;
using detail::EndpointPool;

class IdupStep final : public detail::ProcessStep {
 public:
  IdupStep() = default;
  IdupStep(const IdupStep&) = delete;
  IdupStep& operator=(const IdupStep&) = delete;
  ~IdupStep() override {
    // Made but never built into a communicator (it failed, or the
    // communicator went before anyone took the result): the endpoints go,
    // their handles stale for good, and so do the MPI communicators.
    discard();
  }

  int start(const CommShared& shared, std::vector<std::vector<std::byte>>& mine,
            std::vector<std::byte>* /*result*/, std::vector<MPI_Request>* requests) override {
    // Each endpoint's contribution is the address of its new Endpoint.
    for (const auto& m : mine) {
      Endpoint* made = nullptr;
      const detail::Piece piece = detail::block_of(m.data(), 0);
      if (piece.length == static_cast<std::int64_t>(sizeof(made))) {
        std::memcpy(&made, piece.data, sizeof(made));
      }
      premade_.push_back(made);
    }
    id_ = detail::draw_comm_ids();
    if (shared.mpi_rank == 0) name_ = detail::pool_name(shared.world_ranks.front(), id_);
    comms_.assign(static_cast<std::size_t>(1 + 2 * shared.tags.channels()), MPI_COMM_NULL);
    const int rc = MPI_Ibcast(&name_, 1, MPI_INT64_T, 0, detail::step_carrier(shared),
                              &requests->emplace_back());
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Comm_idup(shared.inbox.front(), &comms_[0], &requests->emplace_back());
  }

  int proceed(const CommShared& /*shared*/, std::vector<MPI_Request>* requests,
              bool* more) override {
    *more = false;
    ++made_;
    if (made_ == comms_.size()) return MPI_SUCCESS;
    *more = true;
    return MPI_Comm_idup(comms_[made_ - 1], &comms_[made_], &requests->emplace_back());
  }

  bool exclusive() const override { return true; }

  /// Builds the process's part of the new communicator, once; every
  /// endpoint of the process calls it from its result. Returns an MPI error
  /// code, with the reason in *why.
  int build(const CommShared& parent, std::string* why) {
    std::lock_guard<std::mutex> guard(lock_);
    if (built_) {
      *why = why_;
      return rc_;
    }
    built_ = true;
    rc_ = MPI_SUCCESS;
    for (std::size_t i = 1; i < comms_.size() && rc_ == MPI_SUCCESS; ++i) {
      // adopt() sets the communicator's own; the channels report to libep.
      rc_ = MPI_Comm_set_errhandler(comms_[i], MPI_ERRORS_RETURN);
    }
    if (rc_ != MPI_SUCCESS) {
      why_ = fmt::format("MPI_Comm_set_errhandler failed ({})", detail::mpi_error_string(rc_));
      *why = why_;
      return rc_;
    }
    const auto channels = (comms_.size() - 1) / 2;
    detail::PooledSet set;
    set.name = name_;
    set.world_ranks = parent.world_ranks;
    set.mpi_comm = comms_[0];
    set.inbox.assign(comms_.begin() + 1,
                     comms_.begin() + 1 + static_cast<std::ptrdiff_t>(channels));
    set.bulk.assign(comms_.begin() + 1 + static_cast<std::ptrdiff_t>(channels), comms_.end());
    set.per_process = parent.map.max_per_process();
    detail::Agreed agreed;
    agreed.id = id_;
    agreed.name = name_;
    agreed.pooled = std::move(set);
    agreed.premade = premade_;
    // From here the build owns the MPI communicators (it frees them if it
    // fails); the endpoints become the communicator's if it succeeds.
    comms_.clear();
    CommShared* made = nullptr;
    rc_ = parent.inter ? detail::build_inter(MPI_COMM_NULL, {}, parent.layout, parent.identities,
                                             &made, &why_, &agreed)
                       : detail::build_comm(MPI_COMM_NULL, {}, parent.map, parent.identities, &made,
                                            &why_, &agreed);
    if (rc_ == MPI_SUCCESS) premade_.clear();
    *why = why_;
    return rc_;
  }

 private:
  void discard() {
    for (Endpoint* e : premade_) {
      if (!e) continue;
      // Revived first so that the slot's next occupant gets a handle other
      // than the one given out for this endpoint.
      EndpointPool::revive(e);
      delete e;
    }
    premade_.clear();
    for (MPI_Comm& c : comms_) {
      if (c != MPI_COMM_NULL) static_cast<void>(MPI_Comm_free(&c));
    }
    comms_.clear();
  }

  std::vector<Endpoint*> premade_;  // by local rank
  int id_ = 0;
  std::int64_t name_ = 0;
  std::vector<MPI_Comm> comms_;  // its own, then the inbox and the bulk channels
  std::size_t made_ = 0;         // of comms_, complete
  std::mutex lock_;
  bool built_ = false;
  int rc_ = MPI_SUCCESS;
  std::string why_;
};

}  // namespace

int Comm_idup(Comm comm, Comm* newcomm, Request* request) {
  constexpr const char* fn = "Comm_idup";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  // A null result pointer is a local error, but the other endpoints may
  // already be on their way into the duplicate: take part (the request
  // released, the new endpoint freed once made), then report, as Comm_dup.
  const bool taking_part_only = !newcomm || !request;
  detail::NonblockingCall c(e);
  auto* made = new Endpoint;
  made->errhandler = e->errhandler;  // MPI: a new communicator inherits it
  EndpointPool::retire(made);
  // The address travels as this endpoint's contribution (IdupStep::start),
  // packed in the call.
  Endpoint* const address = made;
  c.send = {detail::ConstTyped{&address, sizeof(Endpoint*), MPI_BYTE, {1, 1, 0, 1}}};
  c.step = std::make_shared<IdupStep>();
  c.synchronizing = true;
  c.take = [e, made, taking_part_only](const detail::Gathered& g) {
    std::string why;
    const int rc = static_cast<IdupStep*>(g.step)->build(*e->shared, &why);
    if (rc != MPI_SUCCESS) return rc;
    if (taking_part_only) return detail::free_endpoint(made);
    // Each endpoint copies its own attributes, as in Comm_dup. A failing
    // copy callback fails the idup; the new handle is freed.
    const int copy_rc = detail::copy_attributes(e, made, fn);
    if (copy_rc != MPI_SUCCESS) {
      static_cast<void>(detail::delete_attributes(made, fn));
      static_cast<void>(detail::free_endpoint(made));
    }
    return copy_rc;
  };
  if (taking_part_only) {
    Request own = REQUEST_NULL;
    const int rc = detail::start_nonblocking(std::move(c), &own);
    if (rc == MPI_SUCCESS) detail::internal_release(detail::valid_request(own));
    return detail::raise(e, MPI_ERR_ARG, fn, "{} is a null pointer",
                         newcomm ? "request" : "newcomm");
  }
  *newcomm = reinterpret_cast<Comm>(EndpointPool::revived_handle(made));
  return detail::start_nonblocking(std::move(c), request);
}

}  // namespace ep
