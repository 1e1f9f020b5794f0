// sysfs / procfs readers and name -> catalog key rules (discover.hpp).
#include "kernels/probe/discover.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace rigsim::probe {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

int to_int(const std::string& text, int fallback) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(text, &used);
    return used > 0 ? v : fallback;
  } catch (const std::exception&) {
    return fallback;
  }
}

/// The value of a /proc/cpuinfo line ("model name\t: AMD EPYC ..."): the text after the colon, trimmed
/// at the front; "" without a colon.
std::string cpuinfo_value(const std::string& line) {
  const auto colon = line.find(':');
  if (colon == std::string::npos) return "";
  std::string v = line.substr(colon + 1);
  v.erase(0, v.find_first_not_of(" \t"));
  return v;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

int pcie_gen_of_speed(const std::string& text) {
  static const std::vector<std::pair<double, int>> rates{{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}};
  double v = 0;
  try {
    v = std::stod(text);
  } catch (const std::exception&) {
    return 0;
  }
  for (const auto& [rate, gen] : rates)
    if (std::abs(v - rate) < 0.01) return gen;
  return 0;
}

PcieLink read_pcie_link(const std::string& root, const std::string& bus_id) {
  const std::string dir = root + "/sys/bus/pci/devices/" + lower(bus_id) + "/";
  PcieLink l;
  l.gen = pcie_gen_of_speed(first_line(dir + "current_link_speed"));
  l.width = to_int(first_line(dir + "current_link_width"), 0);
  l.max_gen = pcie_gen_of_speed(first_line(dir + "max_link_speed"));
  l.max_width = to_int(first_line(dir + "max_link_width"), 0);
  l.numa = to_int(first_line(dir + "numa_node"), -1);
  return l;
}

std::vector<int> parse_node_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (part.empty()) continue;
    const auto dash = part.find('-');
    const int lo = to_int(part.substr(0, dash), -1);
    const int hi = dash == std::string::npos ? lo : to_int(part.substr(dash + 1), -1);
    if (lo < 0 || hi < lo || hi > 4095) return {};
    for (int n = lo; n <= hi; ++n) out.push_back(n);
  }
  return out;
}

int farthest_memory_node(const std::string& root, int node) {
  if (node < 0) return -1;
  const std::string base = root + "/sys/devices/system/node/";
  const std::vector<int> with_memory = parse_node_list(first_line(base + "has_memory"));
  std::vector<int> distance;
  std::stringstream in(first_line(base + "node" + std::to_string(node) + "/distance"));
  for (int d; in >> d;) distance.push_back(d);
  int best = -1, best_distance = -1;
  for (int n : with_memory) {
    if (n == node || n >= static_cast<int>(distance.size())) continue;
    if (distance[static_cast<std::size_t>(n)] > best_distance)
      best = n, best_distance = distance[static_cast<std::size_t>(n)];
  }
  return best;
}

std::string cpu_model_name(const std::string& root) {
  std::ifstream in(root + "/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return cpuinfo_value(line);
  return "";
}

CpuId cpu_id(const std::string& root) {
  CpuId id;
  std::ifstream in(root + "/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("processor", 0) == 0 && (id.family >= 0 || id.model >= 0)) break;  // the first one only
    if (line.rfind("cpu family", 0) == 0) id.family = to_int(cpuinfo_value(line), -1);
    // "model\t\t: 143", not "model name\t: ..."
    if (line.rfind("model", 0) == 0 && line.rfind("model name", 0) != 0)
      id.model = to_int(cpuinfo_value(line), -1);
  }
  return id;
}

std::string driver_version(const std::string& root) {
  static const std::regex re(R"(Kernel Module\s+([0-9]+(\.[0-9]+)+))");
  std::smatch m;
  const std::string line = first_line(root + "/proc/driver/nvidia/version");
  return std::regex_search(line, m, re) ? m[1].str() : "";
}

}  // namespace rigsim::probe
