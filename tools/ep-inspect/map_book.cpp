#include "map_book.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace ep::inspect {

using json = nlohmann::json;

void MapBook::file(json& report, int step, int endpoint, json doc) {
  // A document without an id shares nothing: a broken one stays whole, for
  // --check to describe.
  if (!doc.is_object() || !doc.contains("communicator") || !doc["communicator"].is_string()) {
    report["map"] = std::move(doc);
    return;
  }
  std::string group;
  if (doc.contains("viewer") && doc["viewer"].is_object() && doc["viewer"].contains("group"))
    group = doc["viewer"]["group"].dump();
  const auto key = std::make_tuple(step, doc["communicator"].get<std::string>(), group);
  const auto it = first_.find(key);
  if (it == first_.end()) {
    auto shared = std::make_shared<const json>(doc);
    first_.emplace(key, First{endpoint, std::move(shared)});
    report["map"] = std::move(doc);
    return;
  }
  report["map_base"] = it->second.endpoint;
  report["map_patch"] = json::diff(*it->second.doc, doc);
}

json map_of(const json& report, const json* base) {
  if (report.contains("map")) return report["map"];
  if (!report.contains("map_patch")) return nullptr;
  // The runner made both reports; a base without a map is its own mistake.
  if (!base || !base->contains("map"))
    throw std::logic_error(fmt::format(
        "the report of endpoint {} after step {} patches the map of endpoint {}, which has none",
        report.value("endpoint", -1), report.value("step", -1), report.value("map_base", -1)));
  return (*base)["map"].patch(report["map_patch"]);
}

}  // namespace ep::inspect
