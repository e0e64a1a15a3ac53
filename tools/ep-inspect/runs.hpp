// Telling runs apart among EP_INSPECT dumps. A directory reused by a second
// run keeps the first run's files that the second did not overwrite, and
// `ep-inspect read a b` may be given two runs' directories; merging such
// files makes communicators no run had. libep names the run in every dump
// ("run", shared by all processes of a run, comm/inspect.hpp): files with
// different run ids, or with and without one, are of different runs.
// Dumps of older libep name no run, and damaged or edited files may lie,
// so ep-inspect also finds what one run can never produce:
//   - two views of one communicator that describe different communicators
//     (kind, size, process count, or a process's world rank or endpoint
//     count differ): every process of a run dumps the same communicator
//     under one id;
//   - two views of one communicator from the same process: a process dumps
//     each of its communicators once;
//   - one world rank on two hosts (a host libep did not learn, "?", is
//     not one).
// Without run ids, files a later run left in place and that agree with it
// cannot be told from its own.
#pragma once

#include <string>
#include <vector>

#include "collect.hpp"

namespace ep::inspect {

/// What shows that `dumps` come from more than one run, one sentence each,
/// naming the files and when they were written; empty if nothing does.
/// Documents that are not rank maps (shape_error) are ignored here.
std::vector<std::string> mixed_runs(const std::vector<Dump>& dumps);

}  // namespace ep::inspect
