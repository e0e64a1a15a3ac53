// The split behind Comm_split, Comm_split_type and Comm_create.
#pragma once

#include "ep/types.hpp"
#include "object/endpoint.hpp"

namespace ep::detail {

/// Comm_split of `e` after its own checks, with errors naming `function`:
/// meets the process's other endpoints, whatever constructor they report
/// as (meet in team/meet.hpp). A null `newcomm` takes part with
/// MPI_UNDEFINED and then fails with MPI_ERR_ARG.
/// \note Collective over all endpoints of e's communicator.
int split(Endpoint* e, int color, int key, Comm* newcomm, const char* function);

}  // namespace ep::detail
