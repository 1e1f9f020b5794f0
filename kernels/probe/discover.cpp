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

std::string cpu_model_name(const std::string& root) {
  std::ifstream in(root + "/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) return "";
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

std::string driver_version(const std::string& root) {
  static const std::regex re(R"(Kernel Module\s+([0-9]+(\.[0-9]+)+))");
  std::smatch m;
  const std::string line = first_line(root + "/proc/driver/nvidia/version");
  return std::regex_search(line, m, re) ? m[1].str() : "";
}

}  // namespace rigsim::probe
