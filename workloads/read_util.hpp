// Small helpers shared by the model and scenario readers: enum tables with "did you mean", ranged
// integers, and string lists. Internal to workloads/.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/input.hpp"
#include "common/suggest.hpp"

namespace rigsim::workloads::detail {

template <typename E>
using EnumTable = std::vector<std::pair<std::string, E>>;

/// Maps a string to an enum through `table`; an unknown word is an error naming the choices.
template <typename E>
E to_enum(const ObjectReader& r, const std::string& key, const std::string& word, const EnumTable<E>& table) {
  std::vector<std::string> names;
  for (const auto& [name, value] : table) {
    if (name == word) return value;
    names.push_back(name);
  }
  std::string choices;
  for (const auto& n : names) choices += (choices.empty() ? "" : ", ") + n;
  r.fail(key, "unknown value \"" + word + "\"" + did_you_mean(word, names) + "; expected one of " + choices);
}

template <typename E>
E read_enum(ObjectReader& r, const std::string& key, const EnumTable<E>& table) {
  return to_enum(r, key, r.required_string(key), table);
}

template <typename E>
E read_enum(ObjectReader& r, const std::string& key, const EnumTable<E>& table, E fallback) {
  const auto word = r.optional_string(key);
  return word ? to_enum(r, key, *word, table) : fallback;
}

template <typename E>
std::string enum_name(E value, const EnumTable<E>& table) {
  for (const auto& [name, v] : table)
    if (v == value) return name;
  return "?";
}

/// Checks min <= value <= max and returns value.
int in_range(const ObjectReader& r, const std::string& key, int value, int min, int max);

}  // namespace rigsim::workloads::detail
