// One copy of each communicator's rank map per process in the scenario's
// reports. Every endpoint reports the document ep::Comm_inspect gave it, and
// each such document lists the whole communicator: kept whole, the reports
// of N endpoints held N x N map entries (1.4 GB at --ep 1024 on one process,
// 4.2 GB on world rank 0 with two). The endpoints of one process see a
// communicator alike except for their viewer, so the first document of each
// communicator (and, in an inter-communicator, of each group) on a process
// is kept whole, and every later one as the JSON patch that turns the first
// into it: exact whatever the documents hold, and a few bytes when libep is
// right. The merge puts each document back together when it reads it.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

namespace ep::inspect {

/// The documents a process's endpoints got, shared where they agree. Not
/// thread-safe: the runner files one document at a time.
class MapBook {
 public:
  /// Files `doc`, what `endpoint` got from ep::Comm_inspect after `step`,
  /// in its report: as "map" if it is the first one of its communicator and
  /// viewer group filed for `step` (or has no communicator id to share),
  /// else as "map_base" (the endpoint whose report of the step holds that
  /// first document as "map") and "map_patch" (nlohmann::json::diff of that
  /// document and `doc`).
  void file(nlohmann::json& report, int step, int endpoint, nlohmann::json doc);

 private:
  struct First {
    int endpoint = -1;
    std::shared_ptr<const nlohmann::json> doc;
  };
  // By (step, communicator id, viewer group as JSON text).
  std::map<std::tuple<int, std::string, std::string>, First> first_;
};

/// The document `report` holds, as ep::Comm_inspect returned it: its "map",
/// or its "map_patch" applied to `base`, the report its "map_base" names
/// (null if it names none). Null when the report has neither.
nlohmann::json map_of(const nlohmann::json& report, const nlohmann::json* base);

}  // namespace ep::inspect
