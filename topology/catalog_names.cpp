// Name -> catalog key rules (catalog_names.hpp).
#include "topology/catalog_names.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <vector>

#include "topology/catalog.hpp"

namespace rigsim::topology {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : lower(text) + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      w += c;
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  return out;
}

/// Words that name a brand, not a part: a name matches without them.
bool brand(const std::string& w) {
  return w == "nvidia" || w == "geforce" || w == "tesla" || w == "amd" || w == "radeon" || w == "instinct" ||
         w == "generation";
}

/// Words a CUDA name may leave out: memory size and form factor.
bool optional_word(const std::string& w) {
  static const std::regex re("[0-9]+gb|pcie|sxm[0-9]*");
  return std::regex_match(w, re);
}

}  // namespace

std::optional<std::string> cpu_key_from_name(const std::string& name) {
  // Each rule: the vendor's numbering, and the catalog key it gives; "" where the catalog lacks it.
  struct Rule {
    std::regex re;
    std::string (*key)(const std::smatch&);
  };
  static const std::vector<Rule> rules = {
      {std::regex(R"(EPYC\s+7\d\d([123])[A-Z]*\b)"), [](const std::smatch& m) { return "epyc-700" + m[1].str(); }},
      {std::regex(R"(EPYC\s+9\d\d4[A-Z]*\b)"), [](const std::smatch&) { return std::string("epyc-9004"); }},
      {std::regex(R"(Threadripper\s+PRO\s+([35])\d\d\dWX)"),
       [](const std::smatch& m) { return "threadripper-pro-" + m[1].str() + "000"; }},
      {std::regex(R"(Threadripper\s+([123])\d\d\d[XW]?X?\b)"),
       [](const std::smatch& m) { return "threadripper-" + m[1].str() + "000"; }},
      {std::regex(R"(Ryzen\s+\d\s+(PRO\s+)?([12357])\d\d\d)"),
       [](const std::smatch& m) { return "ryzen-" + m[2].str() + "000"; }},
      {std::regex(R"(E5-\d\d\d\d[A-Z]?\s+v([234]))"), [](const std::smatch& m) { return "xeon-e5-v" + m[1].str(); }},
      {std::regex(R"(E5-\d\d\d\d[A-Z]?\s+(0\s+)?@)"), [](const std::smatch&) { return std::string("xeon-e5-v1"); }},
      {std::regex(R"((Platinum|Gold|Silver|Bronze)\s+\d([1234])\d\d)"),
       [](const std::smatch& m) { return "xeon-scalable-" + m[2].str(); }},
      {std::regex(R"(Core\(TM\)\s+i\d-1([02])\d\d\d)"),
       [](const std::smatch& m) { return "core-desktop-1" + m[1].str(); }},
  };
  for (const Rule& r : rules) {
    std::smatch m;
    if (!std::regex_search(name, m, r.re)) continue;
    const std::string key = r.key(m);
    return find_cpu(key) != nullptr ? std::optional<std::string>(key) : std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::string> cpu_keys_from_cpuid(int family, int model) {
  std::vector<std::string> keys;
  if (family < 0 || model < 0) return keys;
  for (const CpuSpec& c : cpu_catalog())
    if (c.cpuid_family == family && c.cpuid_model == model) keys.push_back(std::string(c.key));
  return keys;
}

std::optional<std::string> gpu_key_from_name(const std::string& name) {
  // Names whose form factor only the memory technology gives away: an 80 GB H100 with HBM3 is the SXM5
  // (hardware.md §1.2: H100 PCIe 80 GB is HBM2e and reports "NVIDIA H100 PCIe"; the NVL has 94 GB).
  if (name == "NVIDIA H100 80GB HBM3") return std::string("h100-sxm5");
  const auto have = words(name);
  const std::set<std::string> has(have.begin(), have.end());
  std::optional<std::string> best;
  std::size_t best_score = 0;
  bool tie = false;
  for (const GpuSpec& g : gpu_catalog()) {
    std::size_t score = 0;
    bool fits = true;
    for (const std::string& w : words(std::string(g.name))) {
      if (brand(w)) continue;
      if (has.contains(w)) {
        ++score;
        continue;
      }
      // A stated size or form factor that differs rules the entry out; an unstated one does not.
      const bool name_states_same_kind =
          std::any_of(have.begin(), have.end(), [&](const std::string& h) {
            return optional_word(h) && (h.find("gb") != std::string::npos) == (w.find("gb") != std::string::npos);
          });
      if (!optional_word(w) || name_states_same_kind) {
        fits = false;
        break;
      }
    }
    if (!fits || score == 0) continue;
    if (score > best_score) {
      best = std::string(g.key), best_score = score, tie = false;
    } else if (score == best_score) {
      tie = true;
    }
  }
  return tie ? std::nullopt : best;
}

}  // namespace rigsim::topology
