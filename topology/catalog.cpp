// The PCIe generation table and the catalog's names for its enumerations. The parts themselves are
// data (catalog/*.json), read by catalog_parts.cpp.
#include "topology/catalog.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace rigsim::topology {
namespace {

// Per-lane, per-direction rate after line encoding (hardware.md §2.1; hardware_facts.json
// links.pcie.per_lane_per_dir_gbs).
// Tables keep a few fields per line; clang-format would put each designated initializer on its own.
// clang-format off
constexpr auto kPcieGenerations = std::to_array<PcieGenSpec>({
    {.gen = 1, .gts = 2.5, .lane_gbs = 0.25,
     .source = "hardware.md §2.1: 2.5 GT/s 8b/10b -> 0.25 GB/s (hpc-notes.pages.dev/reference/pcie)"},
    {.gen = 2, .gts = 5.0, .lane_gbs = 0.5,
     .source = "hardware.md §2.1: 5 GT/s 8b/10b -> 0.5 GB/s (hpc-notes.pages.dev/reference/pcie)"},
    {.gen = 3, .gts = 8.0, .lane_gbs = 0.985,
     .source = "hardware.md §2.1: 8 GT/s 128b/130b -> 0.985 GB/s (hpc-notes.pages.dev; thelab.gr 15.754 "
               "x16)"},
    {.gen = 4, .gts = 16.0, .lane_gbs = 1.969,
     .source = "hardware.md §2.1: 16 GT/s 128b/130b -> 1.969 GB/s (hpc-notes.pages.dev; thelab.gr 31.508 "
               "x16)"},
    {.gen = 5, .gts = 32.0, .lane_gbs = 3.938,
     .source = "hardware.md §2.1: 32 GT/s 128b/130b -> 3.938 GB/s (hpc-notes.pages.dev/reference/pcie)"},
    {.gen = 6, .gts = 64.0, .lane_gbs = 7.56,
     .source = "hardware.md §2.1: 64 GT/s PAM4 + FLIT -> ~7.56-7.88 GB/s, low end taken [R] (low-quality "
               "sources)"},
});
// clang-format on

constexpr int kMaxPcieWidth = 32;  // the widest link the PCIe spec defines

}  // namespace

std::span<const PcieGenSpec> pcie_generations() {
  return kPcieGenerations;
}

const PcieGenSpec& pcie_gen(int gen) {
  if (gen < 1 || gen > static_cast<int>(kPcieGenerations.size())) {
    throw std::out_of_range("PCIe generation " + std::to_string(gen) + " is outside 1.." +
                            std::to_string(kPcieGenerations.size()));
  }
  return kPcieGenerations[static_cast<std::size_t>(gen - 1)];
}

double pcie_link_gbs(int gen, int width) {
  if (width < 1 || width > kMaxPcieWidth) {
    throw std::out_of_range("PCIe link width x" + std::to_string(width) + " is outside x1..x" +
                            std::to_string(kMaxPcieWidth));
  }
  return width * pcie_gen(gen).lane_gbs;
}

std::string_view to_string(Vendor v) {
  switch (v) {
    case Vendor::Nvidia:
      return "nvidia";
    case Vendor::Amd:
      return "amd";
    case Vendor::Intel:
      return "intel";
    case Vendor::Broadcom:
      return "broadcom";
    case Vendor::Microchip:
      return "microchip";
    case Vendor::Mellanox:
      return "mellanox";
    case Vendor::Other:
      return "other";
  }
  return "unknown";
}

std::string_view to_string(InterSocketKind k) {
  switch (k) {
    case InterSocketKind::None:
      return "none";
    case InterSocketKind::Qpi:
      return "qpi";
    case InterSocketKind::Upi:
      return "upi";
    case InterSocketKind::Xgmi:
      return "xgmi";
  }
  return "unknown";
}

std::string_view to_string(PowerTransients p) {
  switch (p) {
    case PowerTransients::Cem5Envelope:
      return "cem5-envelope";
    case PowerTransients::GeforceAmpere:
      return "geforce-ampere";
    case PowerTransients::Geforce3090Ti:
      return "geforce-3090-ti";
    case PowerTransients::GeforceAda:
      return "geforce-ada";
    case PowerTransients::GeforceBlackwell:
      return "geforce-blackwell";
  }
  return "unknown";
}

}  // namespace rigsim::topology
