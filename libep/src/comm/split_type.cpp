// Comm_split_type: the leaders find their node by exchanging the processes'
// names, and the endpoints then split by it (detail::split, comm/split.cpp).
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "coll/mpi_step.hpp"
#include "comm/split.hpp"
#include "ep/comm.hpp"
#include "object/error.hpp"
#include "team/meet.hpp"

namespace ep {

using detail::CommShared;
using detail::Endpoint;
using detail::LocalTeam;

namespace {

// The color of this process's node for Comm_split_type: the smallest MPI
// rank among the communicator's processes that share its memory. Made by the
// leader; `failed` names the MPI call that failed, if one did.
struct NodeColor {
  int rc = MPI_SUCCESS;
  const char* failed = nullptr;
  int color = 0;
};

// This process's node, as MPI names it (MPI_Get_processor_name: the host
// name under Open MPI and MPICH, which is how both tell the processes that
// share memory), padded with zeros to a fixed width; read once.
struct NodeName {
  int rc = MPI_SUCCESS;
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
};

const NodeName& this_node() {
  static const NodeName node = [] {
    NodeName n;
    int length = 0;
    n.rc = MPI_Get_processor_name(n.name.data(), &length);
    return n;
  }();
  return node;
}

// Compares the node names of the communicator's processes instead of making
// an MPI communicator with MPI_Comm_split_type: under Open MPI 4.1 such a
// creation waits for every other creation its process has under way (the
// CID defect in docs/design.md), and a split_type of each of two sibling
// communicators made two at once in every process (issue 11's nested
// constructors: 8 times plain MPI's time on 2,2,2). The exchange waits with
// back-off: a blocking MPI_Allgather there, two of them at once in a process
// (the two siblings' leaders), made the nested kind of comm.churn 17 to 30
// times slower on 2,2,2 than with back-off (docs/design.md, Known limits).
NodeColor node_color(const CommShared& shared) {
  NodeColor out;
  const NodeName& mine = this_node();
  if (mine.rc != MPI_SUCCESS) {
    out.rc = mine.rc;
    out.failed = "MPI_Get_processor_name";
    return out;
  }
  constexpr int width = MPI_MAX_PROCESSOR_NAME;
  std::vector<char> names(static_cast<std::size_t>(shared.mpi_size) * width);
  // Completed with back-off (coll/mpi_step.hpp), as the split's own exchange
  // is: a blocking MPI_Allgather spins inside MPI, and the leader of a
  // sibling communicator in the same process waits for the core.
  MPI_Request request = MPI_REQUEST_NULL;
  out.rc = detail::complete(MPI_Iallgather(mine.name.data(), width, MPI_CHAR, names.data(), width,
                                           MPI_CHAR, shared.mpi_comm, &request),
                            &request);
  if (out.rc != MPI_SUCCESS) {
    out.failed = "MPI_Iallgather";
    return out;
  }
  // The first process with this name: the smallest rank of the node (this
  // process's own name is among them).
  for (int p = 0; p < shared.mpi_size; ++p) {
    if (std::equal(mine.name.begin(), mine.name.end(),
                   names.begin() + static_cast<std::ptrdiff_t>(p) * width)) {
      out.color = p;
      break;
    }
  }
  return out;
}

}  // namespace

// `info` holds hints (MPI 4.1 section 7.4.2); none changes what
// MPI_COMM_TYPE_SHARED means, so none is read.
int Comm_split_type(Comm comm, int split_type, int key, MPI_Info /*info*/, Comm* newcomm) {
  constexpr const char* fn = "Comm_split_type";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  // Endpoints of one process share its memory, so the process's node decides
  // the color: the smallest MPI rank of the node's processes (of both groups
  // of an inter-communicator, whose split then pairs the groups' parts on
  // each node, as Open MPI and MPICH do). Every endpoint
  // takes part in finding it, whatever its split_type, so that the team's
  // steps stay matched.
  LocalTeam& team = *e->shared->team;
  NodeColor found;
  detail::Posted posted{fn, nullptr};
  const std::string mismatch = detail::enter_constructor(team, e->local, posted);
  if (!mismatch.empty()) return detail::leave_mismatched(e, newcomm, fn, mismatch);
  if (e->local == 0) {
    found = node_color(*e->shared);
    posted.result = &found;
  }
  team.sync();
  const NodeColor node = detail::result_of<NodeColor>(team);
  team.sync();
  if (node.rc != MPI_SUCCESS) return detail::check_mpi(node.rc, e, fn, node.failed);
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
    // Still take part, so that the other endpoints do not wait forever.
    Comm ignored = COMM_NULL;
    detail::split(e, MPI_UNDEFINED, key, &ignored, fn);
    return detail::raise(
        e, MPI_ERR_ARG, fn,
        "split_type {} is not supported: use MPI_COMM_TYPE_SHARED or MPI_UNDEFINED", split_type);
  }
  const int color = split_type == MPI_COMM_TYPE_SHARED ? node.color : MPI_UNDEFINED;
  return detail::split(e, color, key, newcomm, fn);
}

}  // namespace ep
