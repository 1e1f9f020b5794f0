#include "common/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace rigsim {

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
  if (!longer.empty() && longer.size() <= 4) {
    std::string list;
    for (const auto& c : longer) list += (list.empty() ? "\"" : ", \"") + c + "\"";
    return " (did you mean " + (longer.size() == 1 ? list : "one of " + list) + "?)";
  }
  const std::string best = closest_match(word, candidates);
  return best.empty() ? std::string() : " (did you mean \"" + best + "\"?)";
}

}  // namespace rigsim
