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
/// The entry named `key` (of any kind), or null when none has that key.
nlohmann::json catalog_entry(const std::string& key);
/// One entry as text: its kind and name, every value on its own line, then its source. Throws
/// rigsim::InputError with suggestions (by prefix, then by spelling) for an unknown key.
std::string catalog_show(const std::string& key);

}  // namespace rigsim::report
