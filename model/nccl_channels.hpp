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
  /// The tree graph's bwIntra across servers, GB/s: the ring's speed, raised by the search's second pass
  /// (search.cc "increase bwIntra for trees") while below twice its bwInter (graph_gbs) and the chains
  /// inside each server still carry it; what tuning.cc counts a tree's channels at on two servers.
  double tree_gbs = 0;
  int comm = 2;          // channels the collectives run on (comm->nChannels)
  /// What one channel's thread block carries where NCCL's channels fill the links its search found:
  /// the path's bandwidth in NCCL's figures (all rings together; a loaded graph: channels x speed) over
  /// the channels connect.cc makes, before NCCL_MIN/MAX_NCHANNELS (GB/s).
  double block_gbs = 0;
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

/// The channels NCCL splits one send (or recv) of `bytes` over (enqueue.cc scheduleP2pTasksToPlan with
/// calcP2pChunkSize, from 2.23 addP2pToPlan): it starts from nChannelsMin = p2pnChannelsPerPeer halved
/// until nChannelsMin x ranks <= p2pnChannels, at most one channel per minimum part (step / 8; from 2.20
/// step / 2 across servers), and doubles while a part exceeds 32 steps (one step across servers), up to
/// nChannelsMax = p2pnChannelsPerPeer (2.14-2.19: halved until nChannelsMax x ranks <= 4 x
/// p2pnChannels; 2.18-2.19 apply both halvings within one server only). `step`: comm->p2pChunkSize
/// (nccl_p2p_chunk); `nccl_version` as 22105 for 2.21.5. Needs c.p2p and c.p2p_per_peer
/// (nccl_p2p_channels).
int nccl_p2p_op_channels(double bytes, std::size_t ranks, const NcclChannels& c, bool multi_node, double step,
                         int nccl_version);

/// NCCL's comm->p2pChunkSize, bytes (init.cc, 2.18-2.29): NCCL_P2P_NET_CHUNKSIZE 128 KiB across servers,
/// NCCL_P2P_NVL_CHUNKSIZE 512 KiB where every GPU pair is NVLink, else NCCL_P2P_PCI_CHUNKSIZE 128 KiB;
/// at most the Simple buffer (NCCL_BUFFSIZE, `simple_buffer` bytes) over NCCL_STEPS 8.
double nccl_p2p_chunk(bool multi_node, bool all_nvlink, double simple_buffer);

/// Whether `hop` is P2P over NVLink links only: NCCL's NVL or NVB path class (Topology::nvlink_path
/// gives those classes to NVLink-only paths, directly, through an NVSwitch or through one GPU).
bool over_nvlink_only(const Connection& hop);

/// What one thread block (one NCCL channel) moves, bytes per second: `measured_gbs` where
/// the GPU generation has a measured figure (CostModel::nccl_block_gbs, > 0), else c.block_gbs, the share
/// of the bandwidth NCCL's ring search found that each of the channels it runs the rings on carries.
/// On a DGX A100 240 GB/s over 24 channels = 10 GB/s, an NCCL maintainer's "we need to launch 2 CTAs per
/// NVLink in order to saturate the BW for large messages" (NVIDIA/nccl#1703) with 20 GB/s NVLinks; on an
/// HGX H100 370.8 / 24 = 15.5 GB/s, what NCCL's 24 ring channels ("24 coll channels", NCCL's log on a
/// p5.48xlarge) must each move for the 366 GB/s that 4x H100 rings measure.
double block_rate(const NcclChannels& c, double measured_gbs = 0);

}  // namespace rigsim::model
