// The catalog layouts every golden test runs on, and gtest-safe test names for them.
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

namespace rigsim::testing {

/// Names (file stems) of scenarios/layouts/*.json, sorted.
inline std::vector<std::string> catalog_layout_names() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(RIGSIM_SOURCE_DIR) /
                                                           "scenarios/layouts"))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// gtest parameter names allow only letters, digits and '_'.
struct LayoutTestName {
  template <typename Info>
  std::string operator()(const Info& info) const {
    std::string n = info.param;
    for (char& c : n)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
  }
};

}  // namespace rigsim::testing
