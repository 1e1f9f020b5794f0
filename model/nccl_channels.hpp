// How many channels NCCL runs a ring collective on (reference nccl.md §d.4): the ring search
// (src/graph/search.cc ncclTopoCompute) packs rings at a per-channel speed from its speed table,
// ncclTopoDupChannels doubles fast ones, connect.cc doubles every channel again and then applies
// NCCL_MAX_NCHANNELS and NCCL_MIN_NCHANNELS. rigsim simulates the distinct rings it found (identical
// copies of a ring cross the same links, so in a flow model they carry the same bytes at the same
// rate); this is the count NCCL would report ("Channel 00/24") and the one its tuning model uses.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "model/platform.hpp"

namespace rigsim::model {

struct NcclChannels {
  int graph = 1;         // the ring graph's channels after the search and ncclTopoDupChannels
  double graph_gbs = 0;  // its per-channel speed (bwIntra), GB/s: what tuning.cc multiplies by `graph`
  int comm = 2;          // channels the collectives run on (comm->nChannels)
  int p2p = 0;           // send/recv channels (comm->p2pnChannels; 0 until nccl_p2p_channels ran)
  int p2p_per_peer = 0;  // of which one peer may use (comm->p2pnChannelsPerPeer)
  std::string reason;    // how the count came about, for people
};

/// NCCL's bandwidth figure for Platform link `link`, GB/s: a PCIe or chipset link lanes x lane rate /
/// 80 (topo.cc kvDictPciGen: Gen3 x16 12, Gen4 x16 24, Gen5 x16 48), a socket link NCCL's per-CPU
/// constant (PlatformLink::nccl_bandwidth), any other link the platform's rate (NVLink rates already
/// carry NCCL's per-architecture figures, DECISIONS "NVLink efficiency per generation").
double nccl_link_gbs(const Platform& platform, std::size_t link);

/// NCCL's search speed table (GB/s per channel, fastest first) for compute capability `sm` (SM<90,
/// SM90, SM100 tables) within a server or across servers (search.cc speedArrayIntra / Inter).
std::span<const double> nccl_speed_table(int sm, bool inter);

/// NCCL's channel count for rings whose hops are `rings` (one vector of connections per distinct ring
/// rigsim found). `min_sm`: the lowest compute capability of the ranks (it picks NCCL's speed table);
/// `multi_node`: the inter-node table and connect.cc's Hopper doubling; `min_channels` /
/// `max_channels`: NCCL_MIN_NCHANNELS (0 = unset) and NCCL_MAX_NCHANNELS (32 = unset).
NcclChannels nccl_channels(const Platform& platform, const std::vector<std::vector<Connection>>& rings,
                           int min_sm, bool multi_node, int min_channels, int max_channels);

/// The same for a ring graph NCCL loaded from NCCL_GRAPH_FILE: `graph_channels` at `speed_gbs` (the
/// file's nchannels and speedintra), not searched or doubled by the search; connect.cc's steps apply.
NcclChannels nccl_channels_from_graph(int graph_channels, double speed_gbs, int min_sm, bool multi_node,
                                      int min_channels, int max_channels);

/// NCCL's send/recv channels (paths.cc ncclTopoComputeP2pChannels, ncclTopoGetNchannels): p2p =
/// the next power of two of min(comm channels, NCCL_MAX_P2P_NCHANNELS 32); per peer = the next power of
/// two of the least over the ranks' pairs of: 2 x the NVLink links of an NVLink path, 2 for any other
/// path within a server, 2 for a peer in another server (NCCL_NCHANNELS_PER_NET_PEER's default start),
/// and at most p2p. Sets c.p2p and c.p2p_per_peer.
void nccl_p2p_channels(const Platform& platform, const std::vector<topology::DeviceId>& ranks,
                       NcclChannels& c);

}  // namespace rigsim::model
