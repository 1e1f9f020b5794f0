// Reports of `rigsim catalog`: the hardware the layouts can name.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rigsim::report {

/// "gpus", "cpus", "chipsets", "switches", "nics", "nvswitches".
const std::vector<std::string>& catalog_kinds();
/// Every entry of one kind with every value and its source.
nlohmann::json catalog_json(const std::string& kind);
/// A text table of one kind: a column per value (sources left to --json).
std::string catalog_text(const std::string& kind);

}  // namespace rigsim::report
