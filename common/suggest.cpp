#include "common/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

namespace rigsim {
namespace {

/// The family of a key: everything before its first digit ("z" of "z170", "rtx-" of "rtx-5090",
/// "epyc-" of "epyc-9005"), and the number that starts there.
struct Family {
  std::string_view prefix;
  std::optional<long> number;
};

Family family_of(std::string_view key) {
  const std::size_t digit = key.find_first_of("0123456789");
  if (digit == std::string_view::npos) return {key, std::nullopt};
  long n = 0;
  for (std::size_t i = digit; i < key.size() && std::isdigit(static_cast<unsigned char>(key[i])) && n < 1000000; ++i)
    n = n * 10 + (key[i] - '0');
  return {key.substr(0, digit), n};
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string list;
  for (const auto& c : items) list += (list.empty() ? "\"" : ", \"") + c + "\"";
  return items.size() == 1 ? list : "one of " + list;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  // A key that a longer one starts with names the same part more precisely ("rtx-3060" for
  // "rtx-3060-12gb"): those first, before spelling.
  // Of those, the ones that add the least ("llama-2-7" -> "llama-2-7b", not "llama-2-70b").
  std::vector<std::string> longer;
  std::size_t shortest = std::string::npos;
  for (const auto& c : candidates)
    if (c.size() > word.size() && !word.empty() && c.compare(0, word.size(), word) == 0) shortest = std::min(shortest, c.size());
  for (const auto& c : candidates)
    if (c.size() == shortest && c.compare(0, word.size(), word) == 0) longer.push_back(c);
  if (!longer.empty() && longer.size() <= 4) return " (did you mean " + quoted_list(longer) + "?)";
  // Then by meaning: a model number names a place in a family ("z270" among Intel's Z chipsets,
  // "rtx-5060" among the RTX cards), so the family's nearest numbers, after the nearest spelling.
  std::vector<std::string> picks;
  if (std::string best = closest_match(word, candidates); !best.empty()) picks.push_back(std::move(best));
  const Family mine = family_of(word);
  if (mine.number && !mine.prefix.empty()) {
    std::vector<std::pair<long, std::string>> kin;
    for (const auto& c : candidates) {
      const Family theirs = family_of(c);
      if (theirs.prefix == mine.prefix && theirs.number) kin.emplace_back(std::labs(*theirs.number - *mine.number), c);
    }
    std::stable_sort(kin.begin(), kin.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [distance, c] : kin) {
      if (picks.size() >= 4) break;
      if (std::find(picks.begin(), picks.end(), c) == picks.end()) picks.push_back(c);
    }
  }
  return picks.empty() ? std::string() : " (did you mean " + quoted_list(picks) + "?)";
}

}  // namespace rigsim
