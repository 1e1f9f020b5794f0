// Platform::dump(): the flattened platform as deterministic text (for --dump-platform and golden tests).
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "model/platform.hpp"

namespace rigsim::model {
namespace {

using topology::DeviceId;
using topology::DeviceKind;

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string num(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string host_line(const topology::Topology& t, DeviceId id, std::size_t width) {
  const auto& d = t.device(id);
  std::string line = "  " + pad(d.name, width);
  if (d.kind == DeviceKind::Gpu) {
    line += "  GPU  " + std::string(d.gpu->name) + ", socket " + std::to_string(d.socket);
  } else {
    line += "  CPU  " + std::string(d.cpu->name) + ", socket " + std::to_string(d.socket) + ", memory " +
            (d.numa_nodes == 1 ? d.name + "/dram"
                               : std::to_string(d.numa_nodes) + " NUMA nodes " + d.name + "/node" +
                                     std::to_string(d.numa) + "/dram...");
  }
  if (d.node != 0) line += ", node " + std::to_string(d.node);
  return line + "\n";
}

}  // namespace

std::string Platform::dump() const {
  std::ostringstream out;
  out << "# rigsim platform: " << topo_.name() << "\n";
  out << "# cost model: " << cost_.source << "\n";
  out << "# network model: SimGrid CM02, no cross-traffic, no TCP gamma or factors: a flow alone takes\n"
         "#   latency + bytes / bottleneck; concurrent flows share every link max-min fairly\n";

  std::vector<DeviceId> hosts = topo_.gpus();
  for (DeviceId c : topo_.cpus()) hosts.push_back(c);
  std::size_t width = 4;
  for (const auto& l : links_) width = std::max(width, l.name.size());
  for (DeviceId h : hosts) width = std::max(width, topo_.device(h).name.size());

  out << "hosts (" << hosts.size() << "):\n";
  for (DeviceId h : hosts) out << host_line(topo_, h, width);

  out << "links (" << links_.size() << "): name, GB/s (per direction unless shared), latency us, what\n";
  for (const auto& l : links_)
    out << "  " << pad(l.name, width) << num(" %9.2f", l.bandwidth.gb_per_s())
        << num(" %7.3f", l.latency.us()) << "  " << l.what << "\n";

  out << "routes: src -> dst, transport, latency us, GB/s alone, link crossings\n";
  auto print = [&](DeviceId a, DeviceId b, Transport t) {
    const Route r = route(a, b, t);
    out << "  " << topo_.device(a).name << " -> " << topo_.device(b).name << "  " << to_string(t)
        << num("  %.3f", r.latency.us()) << num("  %.2f ", r.bottleneck.gb_per_s());
    for (std::size_t i = 0; i < r.crossings.size(); ++i)
      out << (i ? " " : "") << crossing_name(r.crossings[i]);
    out << "\n";
  };
  const auto gpus = topo_.gpus();
  for (DeviceId a : gpus)
    for (DeviceId b : gpus) {
      if (a == b) continue;
      if (topo_.device(a).node != topo_.device(b).node) {
        print(a, b, Transport::Net);
        continue;
      }
      print(a, b, Transport::P2p);
      print(a, b, Transport::Shm);
    }
  for (DeviceId g : gpus)
    for (DeviceId c : topo_.cpus()) {
      if (topo_.device(c).node != topo_.device(g).node) continue;
      print(c, g, Transport::HostCopy);
      print(g, c, Transport::HostCopy);
    }
  return out.str();
}

}  // namespace rigsim::model
