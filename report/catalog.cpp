// `rigsim catalog` reports: every catalog table as JSON (every value with its source, the schema of
// catalog/*.json) and as a text table (the values without their sources).
#include "report/catalog.hpp"

#include "common/input.hpp"
#include "common/suggest.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "topology/catalog.hpp"

namespace rigsim::report {
namespace {

using nlohmann::json;
using namespace rigsim::topology;

/// One cell of the text table: numbers with at most two decimals, booleans as yes/no.
std::string cell(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v.get<double>());
  std::string s = buf;
  while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.')) s.pop_back();
  return s;
}

}  // namespace

const std::vector<std::string>& catalog_kinds() {
  return part_kinds();
}

nlohmann::json catalog_json(const std::string& kind) {
  return parts_json(kind);
}

std::string catalog_text(const std::string& kind) {
  const json rows = catalog_json(kind);
  if (rows.empty()) return "(no " + kind + ")\n";
  std::vector<std::string> columns{"key"};  // then the values in name order; sources are for --json
  for (const auto& [key, value] : rows.front().items())
    if (key != "source" && key != "name" && key != "key") columns.push_back(key);
  std::vector<std::size_t> width(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    width[c] = columns[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], cell(r.at(columns[c])).size());
  }
  std::ostringstream out;
  auto line = [&](auto value_of) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string v = value_of(c);
      out << v << (c + 1 < columns.size() ? std::string(width[c] - v.size() + 2, ' ') : "");
    }
    out << "\n";
  };
  line([&](std::size_t c) { return columns[c]; });
  for (const auto& r : rows) line([&](std::size_t c) { return cell(r.at(columns[c])); });
  out << "\n`rigsim catalog " << kind << " --json` gives every value with its source.\n";
  return out.str();
}

nlohmann::json catalog_entry(const std::string& key) {
  for (const std::string& kind : catalog_kinds())
    for (const auto& e : catalog_json(kind))
      if (e.at("key") == key) {
        json out = e;
        out["kind"] = kind;
        out["origin"] = part_origin(kind, key);
        return out;
      }
  return nullptr;
}

std::string catalog_show(const std::string& key) {
  const json e = catalog_entry(key);
  if (e.is_null()) {
    std::vector<std::string> keys;
    for (const std::string& kind : catalog_kinds())
      for (const auto& x : catalog_json(kind)) keys.push_back(x.at("key").get<std::string>());
    throw InputError("", "catalog show", "no part \"" + key + "\" in the catalog" + did_you_mean(key, keys));
  }
  std::ostringstream out;
  out << e.at("key").get<std::string>() << " (" << e.at("kind").get<std::string>() << "): " << e.at("name").get<std::string>()
      << "\n";
  for (const auto& [k, v] : e.items())
    if (k != "key" && k != "name" && k != "kind" && k != "source" && k != "origin")
      out << "  " << k << ": " << cell(v) << "\n";
  out << "Source: " << e.at("source").get<std::string>() << "\n";
  out << "Declared: " << e.at("origin").get<std::string>() << "\n";
  return out.str();
}

}  // namespace rigsim::report
