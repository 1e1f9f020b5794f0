#include "topology/p2p.hpp"

#include <cctype>
#include <cstdio>
#include <stdexcept>

namespace rigsim::topology {
namespace {

bool gpu_pcie_p2p(const Topology& topo, const GpuSpec& g) {
  return g.p2p_stock || (g.p2p_patchable && topo.p2p_patched_driver());
}

std::string gpu_reason(const Topology& topo, const Device& d) {
  const GpuSpec& g = *d.gpu;
  if (g.p2p_patchable && !topo.p2p_patched_driver())
    return d.name + " (" + std::string(g.name) +
           ") has no PCIe P2P on stock drivers (a layout may declare \"driver\": {\"p2p_patched\": true})";
  return d.name + " (" + std::string(g.name) + ") has no PCIe P2P";
}

/// The device where a PCIe route turns around (its highest point in the tree).
bool through_acs_switch(const Topology& topo, const Path& p) {
  for (std::size_t i = 1; i + 1 < p.devices.size(); ++i) {
    const Device& d = topo.device(p.devices[i]);
    if (d.kind == DeviceKind::Switch && d.acs_redirect) {
      // The route turns at this switch when both neighbours on the route are below it.
      const auto up_a = topo.uplink(p.devices[i - 1]);
      const auto up_b = topo.uplink(p.devices[i + 1]);
      if (up_a && up_b && topo.link(*up_a).up == d.id && topo.link(*up_b).up == d.id) return true;
    }
  }
  return false;
}

}  // namespace

int parse_nccl_version(const std::string& text) {
  // MAJOR.MINOR[.PATCH], then optionally the forms NCCL's tools print after it: a package build
  // ("2.8.4-1", libnccl2's version) and a CUDA tag ("2.18.3+cuda12.2", nccl-tests' "NCCL version" line;
  // "2.18.3-1+cuda12.2", the package name). Neither changes the release's rules.
  const auto fail = [&text] {
    throw std::invalid_argument(
        "expected an NCCL release like 2.21, 2.21.5, 2.21.5-1 or 2.21.5+cuda12.4, got \"" + text + "\"");
  };
  std::size_t at = 0;
  // A run of 1-3 digits (more is no release number), its value; -1 where there is none.
  const auto number = [&text, &at] {
    const std::size_t from = at;
    while (at < text.size() && at - from < 4 && std::isdigit(static_cast<unsigned char>(text[at])) != 0) ++at;
    return at == from || at - from > 3 ? -1 : std::stoi(text.substr(from, at - from));
  };
  const auto skip = [&text, &at](const char* mark) {
    const std::string m(mark);
    if (text.compare(at, m.size(), m) != 0) return false;
    at += m.size();
    return true;
  };
  const int major = number();
  if (major < 0 || !skip(".")) fail();
  const int minor = number();
  int patch = 0;
  if (minor < 0 || (skip(".") && (patch = number()) < 0)) fail();
  if (skip("-") && number() < 0) fail();
  if (skip("+cuda") && (number() < 0 || (skip(".") && number() < 0))) fail();
  if (at != text.size() || major < 2 || major > 9 || minor > 99 || patch > 99) fail();
  return major * 10000 + minor * 100 + patch;
}

std::string nccl_release_of(long code) {
  const bool wide = code >= 10000;
  const long major = wide ? code / 10000 : code / 1000, minor = wide ? code / 100 % 100 : code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

PathClass default_p2p_level(const Topology& topo, std::size_t gpu_count, int nccl_version) {
  // NCCL paths.cc ncclTopoCheckP2p. Every CPU in the catalog is x86; the vendor is the first CPU's.
  const bool amd = !topo.cpus().empty() && topo.device(topo.cpus().front()).cpu->vendor == Vendor::Amd;
  const bool intel = !topo.cpus().empty() && topo.device(topo.cpus().front()).cpu->vendor == Vendor::Intel;
  // 2.18.1-2.22.3: "int p2pLevel = PATH_SYS;", lowered to PATH_PXB for ARM, Intel and Zhaoxin x86;
  // AMD stays SYS for any number of GPUs.
  if (nccl_version < 22304) return intel ? PathClass::PXB : PathClass::SYS;
  // 2.23.4 and later: PATH_PXB, except "(arch == X86 && vendor == AMD) && system->nodes[GPU].count <= 2"
  // -> PATH_SYS (2.30: nodes[DEV], physical devices, the same without MIG).
  return (amd && gpu_count <= 2) ? PathClass::SYS : PathClass::PXB;
}

namespace {

/// PCIe P2P between two GPUs of one server by the driver's rules: both GPUs able (stock or patched
/// driver), and across sockets only where the CPU supports it.
P2pDecision pcie_p2p(const Topology& topo, DeviceId a, DeviceId b) {
  P2pDecision d;
  const Path p = topo.pcie_path(a, b);
  d.path = p.nccl;
  if (topo.device(a).node != topo.device(b).node) {
    d.reason = "different servers: traffic goes through the network";
    return d;
  }
  if (through_acs_switch(topo, p)) d.path = PathClass::PHB;
  for (DeviceId g : {a, b}) {
    if (!gpu_pcie_p2p(topo, *topo.device(g).gpu)) {
      d.reason = gpu_reason(topo, topo.device(g));
      return d;
    }
  }
  if (p.nccl == PathClass::SYS) {
    const CpuSpec& c = *topo.device(topo.socket_of(a)).cpu;
    if (!c.p2p_across_sockets) {
      d.reason = "P2P across sockets is not supported on " + std::string(c.name);
      return d;
    }
  }
  d.allowed = true;
  d.reason = "PCIe P2P (" + std::string(to_string(d.path)) + ")";
  return d;
}

}  // namespace

P2pDecision hardware_p2p(const Topology& topo, DeviceId a, DeviceId b) {
  if (a == b) return {true, PathClass::LOC, "same GPU"};
  if (auto nv = topo.nvlink_path(a, b))
    return {true, nv->nccl, nv->nccl == PathClass::NVL ? "NVLink" : "NVLink through an intermediate GPU"};
  return pcie_p2p(topo, a, b);
}

P2pDecision driver_peer_access(const Topology& topo, DeviceId a, DeviceId b) {
  if (a == b) return {true, PathClass::LOC, "same GPU"};
  const auto nv = topo.nvlink_path(a, b);
  if (nv && nv->nccl == PathClass::NVL) return {true, PathClass::NVL, "NVLink"};
  P2pDecision d = pcie_p2p(topo, a, b);
  if (nv)
    d.reason = "NVLink only through an intermediate GPU, which CUDA's peer access does not use; " + d.reason;
  return d;
}

P2pDecision decide_p2p(const Topology& topo, DeviceId a, DeviceId b, const P2pPolicy& policy,
                       std::size_t gpu_count) {
  P2pDecision d = hardware_p2p(topo, a, b);
  if (!d.allowed || a == b) return d;
  const PathClass level =
      policy.disable ? PathClass::LOC
                     : policy.level.value_or(default_p2p_level(topo, gpu_count, policy.nccl_version));
  if (d.path > level) {
    d.allowed = false;
    const std::string why = policy.disable ? "P2P disabled (NCCL_P2P_DISABLE)"
                            : policy.level ? "the P2P level set by the user"
                                           : "NCCL's default P2P level";
    d.reason = "path " + std::string(to_string(d.path)) + " is beyond " + why + " " +
               std::string(to_string(level)) + "; NCCL stages through host memory (SHM)";
    if (!policy.level && !policy.disable) d.reason += " unless NCCL_P2P_LEVEL is raised";
    if (policy.disable) d.reason = "P2P disabled (NCCL_P2P_DISABLE); NCCL stages through host memory (SHM)";
  }
  return d;
}

}  // namespace rigsim::topology
