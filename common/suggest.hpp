// "Did you mean" suggestions for misspelt keys and names (Levenshtein distance).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rigsim {

/// Edit distance between two strings (insertions, deletions, substitutions).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The closest candidate to `word` if it is close enough to be a plausible typo, else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

/// " (did you mean \"x\"?)" or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace rigsim
