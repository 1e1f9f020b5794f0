// NCCL's channel count for rings (see nccl_channels.hpp). NCCL source read at v2.21.5 and v2.30.7
// (src/graph/search.cc, src/graph/connect.cc, src/init.cc); the steps are the same in both.
#include "model/nccl_channels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <span>

namespace rigsim::model {
namespace {

using topology::LinkKind;

// search.cc speedArrayIntra / speedArrayInter and their sm90 and sm100 variants (GB/s per channel).
constexpr double kIntra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
constexpr double kInter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                             7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kIntra90[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr double kInter90[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                               15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kIntra100[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr double kInter100[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

constexpr int kMaxChannels = 32;      // MAXCHANNELS
constexpr int kRingGraphMax = 16;     // init.cc: ringGraph.maxChannels = MAXCHANNELS/2
constexpr double kFallbackGbs = 0.1;  // search.cc: "falling back to simple order", bw 0.1
constexpr double kTol = 1e-9;

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::span<const double> table(int sm, bool inter) {
  if (sm >= 100) return inter ? std::span<const double>(kInter100) : std::span<const double>(kIntra100);
  if (sm >= 90) return inter ? std::span<const double>(kInter90) : std::span<const double>(kIntra90);
  return inter ? std::span<const double>(kInter) : std::span<const double>(kIntra);
}

/// The rate each ring gets where the rings share links: NCCL's figure of every link the rings cross,
/// divided by how often they cross it in that direction, each ring counted `weight` times. Host memory
/// and the package-internal host bridge links are not in NCCL's graph. `intra_only`: only the hops that
/// stay inside one server (a tree's chains).
double ring_share_gbs(const Platform& pf, const std::vector<std::vector<Connection>>& rings,
                      bool intra_only = false, double weight = 1.0) {
  const auto& topo = pf.topology();
  std::map<Crossing, int> uses;
  for (const auto& ring : rings)
    for (const Connection& h : ring) {
      if (h.src == h.dst) continue;
      if (intra_only && topo.device(h.src).node != topo.device(h.dst).node) continue;
      // NCCL's search walks the GPU-to-GPU paths whatever transport a hop ends up using (SHM too).
      const Transport t = h.transport == Transport::Shm ? Transport::P2p : h.transport;
      for (const Crossing& c : pf.route(h.src, h.dst, t).crossings) {
        if (c.link >= topo.links().size()) continue;  // DRAM and "both directions" links
        if (topo.links()[c.link].kind == LinkKind::Internal) continue;
        ++uses[c];
      }
    }
  double share = std::numeric_limits<double>::infinity();
  for (const auto& [c, n] : uses) share = std::min(share, nccl_link_gbs(pf, c.link) / (n * weight));
  return share;
}

/// The tree graph's bwIntra (NcclChannels::tree_gbs): NCCL's tree search packs the ring's `g` channels at
/// the ring's speed `s` (the same NICs, the same duplication), then its second pass raises bwIntra one
/// step of the speed table at a time while it is below 2 x bwInter and the chains still fit: each
/// channel's chain inside a server (the ring's hops that stay in it) takes bwIntra on every link it
/// crosses, in NCCL's figures (search.cc ncclTopoCompute pass 2, ncclTopoFollowPath; v2.8.4 to v2.30.7).
double tree_intra_gbs(const Platform& pf, const std::vector<std::vector<Connection>>& rings, int g, double s,
                      std::span<const double> speeds) {
  // Each distinct ring stands for g / rings of the graph's channels.
  const double weight = static_cast<double>(g) / static_cast<double>(std::max<std::size_t>(1, rings.size()));
  const double share = ring_share_gbs(pf, rings, true, weight);
  std::size_t i = 0;
  while (i + 1 < speeds.size() && speeds[i] > s * (1 + kTol)) ++i;
  // The second pass starts from the table speed at bwInter and raises only a graph found at it.
  if (std::abs(speeds[i] - s) > kTol * s) return s;
  double cur = speeds[i];
  while (i > 0 && cur < 2 * s * (1 - kTol) && speeds[i - 1] <= share * (1 + kTol)) cur = speeds[--i];
  return cur;
}

/// connect.cc's step on a ring graph of `g` channels at `s` GB/s (see nccl_channels()).
/// `path_gbs`: the bandwidth the search found for all rings together (0: g x s), which sets
/// NcclChannels::block_gbs.
NcclChannels connect(NcclChannels out, int g, double s, double path_gbs, int min_sm, bool multi_node,
                     int min_channels, int max_channels);

}  // namespace

std::span<const double> nccl_speed_table(int sm, bool inter) {
  return table(sm, inter);
}

double nccl_link_gbs(const Platform& platform, std::size_t link) {
  const auto& topo = platform.topology();
  if (link < topo.links().size()) {
    const topology::Link& l = topo.links()[link];
    if ((l.kind == LinkKind::Pcie || l.kind == LinkKind::ChipsetUplink) && !l.declared_effective &&
        l.gen > 0) {
      // kvDictPciGen: lane rate in units of 100 Mb/s per generation; width x rate / 80 GB/s.
      constexpr double kLane[] = {0, 15, 30, 60, 120, 240, 480};
      return l.width * kLane[std::clamp(l.gen, 1, 6)] / 80.0;
    }
  }
  return platform.links()[link].nccl_bandwidth.value / 1e9;
}

NcclChannels nccl_channels(const Platform& platform, const std::vector<std::vector<Connection>>& rings,
                           int min_sm, bool multi_node, int min_channels, int max_channels) {
  NcclChannels out;
  const double b = rings.empty() ? 0.0 : ring_share_gbs(platform, rings);
  const auto speeds = nccl_speed_table(min_sm, multi_node);
  int g = 0;
  double s = 0;
  if (!std::isfinite(b) || b <= 0) {
    g = 1;
    s = kFallbackGbs;
    out.reason = "no link to search on: 1 ring channel";
  } else if (rings.size() > 1) {
    // rigsim packed distinct rings onto disjoint NVLink capacity (ring_channels, NCCL's search on
    // NVLink); each runs at the fastest table speed its share allows.
    g = static_cast<int>(std::min<std::size_t>(rings.size(), kRingGraphMax));
    s = speeds.back();
    for (double v : speeds)
      if (v <= b * (1 + kTol)) {
        s = v;
        break;
      }
    out.reason = std::to_string(g) + " distinct rings at " + fixed(s, 1) + " GB/s each";
  } else {
    // One ring path: the search starts at the fastest speed the path carries and packs as many rings
    // on it as fit (at most 16), then tries slower speeds while they stay above 0.49 of the best,
    // keeping the largest channels x speed and stopping once it covers the path.
    std::size_t i = 0;
    while (i + 1 < speeds.size() && speeds[i] > b * (1 + kTol)) ++i;
    for (std::size_t k = i; k < speeds.size(); ++k) {
      if (g > 0 && speeds[k] / s <= 0.49) break;
      const int c = std::min(kRingGraphMax, static_cast<int>(std::floor(b / speeds[k] * (1 + kTol))));
      if (c >= 1 && c * speeds[k] > g * s * (1 + kTol)) {
        g = c;
        s = speeds[k];
      }
      if (g * s >= b * (1 - kTol)) break;
    }
    if (g == 0) {
      g = 1;
      s = kFallbackGbs;
      out.reason =
          "the path (" + fixed(b, 1) + " GB/s) is slower than NCCL's slowest search speed: 1 channel";
    } else {
      out.reason = "the ring path carries " + fixed(b, 1) + " GB/s in NCCL's figures: " + std::to_string(g) +
                   " ring(s) at " + fixed(s, 1) + " GB/s";
    }
  }
  // ncclTopoDupChannels: rings of 25 GB/s or more are doubled at half the speed (not on SM > 80 when
  // more than 4 rings run below 50 GB/s).
  if (s >= 25.0 && !(min_sm > 80 && s < 50.0 && g > 4)) {
    const int dup = std::min(2 * g, kRingGraphMax);
    s /= static_cast<double>((dup + g - 1) / g);
    g = dup;
    out.reason += ", doubled to " + std::to_string(g) + " at " + fixed(s, 1) + " GB/s";
  }
  const double path = std::isfinite(b) && b > 0 ? b * static_cast<double>(rings.size()) : 0.0;
  NcclChannels c = connect(out, g, s, path, min_sm, multi_node, min_channels, max_channels);
  c.tree_gbs = multi_node ? tree_intra_gbs(platform, rings, g, s, speeds) : s;
  if (c.tree_gbs > s * (1 + kTol))
    c.reason += "; the tree graph's chains at " + fixed(c.tree_gbs, 1) + " GB/s inside a server";
  return c;
}

NcclChannels nccl_channels_from_graph(int graph_channels, double speed_gbs, int min_sm, bool multi_node,
                                      int min_channels, int max_channels) {
  NcclChannels out;
  out.reason = "NCCL_GRAPH_FILE: " + std::to_string(graph_channels) + " ring channel(s) at " +
               fixed(speed_gbs, 1) + " GB/s (a loaded graph is neither searched nor doubled by the search)";
  return connect(out, std::max(1, graph_channels), speed_gbs, 0.0, min_sm, multi_node, min_channels,
                 max_channels);
}

namespace {

NcclChannels connect(NcclChannels out, int g, double s, double path_gbs, int min_sm, bool multi_node,
                     int min_channels, int max_channels) {
  // connect.cc: every channel is duplicated; Hopper across nodes doubles again below 16 when the
  // intra-node speed exceeds 45 GB/s; then NCCL_MAX_NCHANNELS, then NCCL_MIN_NCHANNELS (copies).
  int comm = std::min(kMaxChannels, 2 * g);
  if (multi_node && min_sm >= 90 && s > 45.0 && comm < 16) comm = std::min(kMaxChannels, 2 * comm);
  out.reason += "; " + std::to_string(comm) + " channels after connect.cc's duplication";
  out.block_gbs = (path_gbs > 0 ? path_gbs : g * s) / comm;
  const int capped = std::clamp(std::min(comm, max_channels), 1, kMaxChannels);
  if (capped != comm) out.reason += ", " + std::to_string(capped) + " under NCCL_MAX_NCHANNELS";
  comm = capped;
  if (min_channels > comm) {
    comm = std::min(min_channels, kMaxChannels);
    out.reason += ", " + std::to_string(comm) + " under NCCL_MIN_NCHANNELS";
  }
  out.graph = std::min(g, comm);
  out.graph_gbs = s;
  out.tree_gbs = s;
  out.comm = comm;
  return out;
}

}  // namespace

}  // namespace rigsim::model

namespace rigsim::model {

namespace {

int next_pow2(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

/// ncclTopoGetNchannels for a local peer: 2 x the NVLink links of the path (its rate over one link's),
/// else 2.
int peer_channels(const Platform& pf, topology::DeviceId a, topology::DeviceId b) {
  const auto& topo = pf.topology();
  if (topo.device(a).node != topo.device(b).node) return 2;
  const Route r = pf.route(a, b, Transport::P2p);
  int links = 0;
  for (const Crossing& c : r.crossings) {
    if (c.link >= topo.links().size() || topo.links()[c.link].kind != topology::LinkKind::NvLink) return 2;
    const int w = std::max(1, topo.links()[c.link].width);
    links = links == 0 ? w : std::min(links, w);
  }
  return 2 * std::max(1, links);
}

}  // namespace

void nccl_p2p_channels(const Platform& platform, const std::vector<topology::DeviceId>& ranks,
                       NcclChannels& c) {
  const int p2p = std::max(1, std::min(c.comm, kMaxChannels));  // NCCL_MIN/MAX_P2P_NCHANNELS 1 / 32
  int least = p2p;
  for (topology::DeviceId a : ranks)
    for (topology::DeviceId b : ranks)
      if (a != b) least = std::min(least, peer_channels(platform, a, b));
  c.p2p = next_pow2(p2p);
  c.p2p_per_peer = next_pow2(least);
  c.reason += "; send/recv: " + std::to_string(c.p2p) + " p2p channels, " + std::to_string(c.p2p_per_peer) +
              " per peer";
}

int nccl_p2p_op_channels(double bytes, std::size_t ranks, const NcclChannels& c, bool multi_node, double step,
                         int nccl_version) {
  int max = std::max(1, c.p2p_per_peer), min = max;
  const long n_ranks = static_cast<long>(ranks);
  // 2.14-2.17 always, 2.18-2.19 within one server: nChannelsMin halved until one channel per operation,
  // nChannelsMax until at most 4 ("avoid overloading channels with 8+ operations"); 2.20 on: only the
  // first, everywhere.
  const bool old_rules = nccl_version < 22000 && (nccl_version < 21800 || !multi_node);
  if (nccl_version >= 22000 || old_rules)
    while (min * n_ranks > c.p2p && min > 1) min /= 2;
  if (old_rules)
    while (max * n_ranks > 4L * c.p2p && max > 1) max /= 2;
  if (bytes <= 0) return 1;
  const double min_part = multi_node && nccl_version >= 22000 ? step / 2 : step / 8;
  const double max_part = multi_node ? step : step * 32;
  int n = static_cast<int>(std::min<double>(min, std::ceil(bytes / min_part)));
  double part = std::max(min_part, std::ceil(bytes / n));
  while (part > max_part && n <= max / 2) {
    n *= 2;
    part = std::ceil(bytes / n);
  }
  return n;
}

double nccl_p2p_chunk(bool multi_node, bool all_nvlink, double simple_buffer) {
  const double chunk = multi_node || !all_nvlink ? 128.0 * 1024 : 512.0 * 1024;
  return simple_buffer > 0 ? std::min(chunk, simple_buffer / 8) : chunk;
}

bool over_nvlink_only(const Connection& hop) {
  return hop.transport == Transport::P2p &&
         (hop.path == topology::PathClass::NVL || hop.path == topology::PathClass::NVB);
}

double block_rate(const NcclChannels& c, double measured_gbs) {
  return (measured_gbs > 0 ? measured_gbs : c.block_gbs) * 1e9;
}

}  // namespace rigsim::model
