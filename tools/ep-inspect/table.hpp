// ep-inspect --format table: a merged document for people. One block per
// communicator, its endpoints grouped by host, then by process, so that one
// sees at a glance which threads of which process hold which ranks.
#pragma once

#include <cstdio>

#include "collect.hpp"

namespace ep::inspect {

void print_table(std::FILE* out, const ordered_json& merged);

}  // namespace ep::inspect
