// Collective plans as pure values: NCCL's algorithms (reference nccl.md §d.4, §d.5) decomposed into
// a DAG of Transfers (model/task_graph.hpp) that the executor runs. No SimGrid here: plans are built
// and tested on their own.
//
// Two models of the same algorithm:
//  - Step: every ring step (or tree / chain chunk) of every channel is a Transfer, with the data
//    dependencies of NCCL's kernels. Exact for small collectives; costs C·L·K·n transfers for a ring.
//  - Steady: the pipelined steady state of the same algorithm — one long flow per edge carrying
//    all the bytes that edge moves, all concurrent, started after NCCL's latency term. Linear in n,
//    and flows still share links in the simulation, so contention is kept.
// `Auto` uses Step for small plans and Steady for large ones (CollectiveOptions).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/cost_model.hpp"
#include "common/units.hpp"
#include "model/nccl_channels.hpp"
#include "model/platform.hpp"
#include "model/task_graph.hpp"
#include "topology/p2p.hpp"
#include "topology/topology.hpp"

namespace rigsim::model {

enum class CollectiveOp { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv };
/// Nvls: NVLink SHARP all_reduce — the NVSwitch reduces (multimem.ld_reduce) and multicasts
/// (multimem.st); one server, Hopper and newer GPUs on an NVLink4+ NVSwitch (NCCL's NVLS algorithm).
/// NvlsTree: NCCL's NVLS_TREE across servers (NCCL 2.18 and later) — NVLS inside each server, and each
/// GPU, head of its shard, exchanges the server's partial sum with the same GPU of the other servers
/// over its NIC (a tree of the servers).
enum class Algorithm { Ring, Tree, Pairwise, Nvls, NvlsTree };
enum class PlanModel { Auto, Step, Steady };
/// NCCL's protocols (nccl.md §d.5): LL (8-byte flag per 8 bytes of data, lowest latency, half the
/// bandwidth), LL128 (8 flag bytes per 128-byte line, NVLink machines only) and Simple (full bandwidth,
/// highest latency).
enum class Protocol { LL, LL128, Simple };

/// "all_reduce", "all_gather", ... (nccl-tests binary names without "_perf").
std::string_view to_string(CollectiveOp op);
std::string_view to_string(Algorithm a);
std::string_view to_string(PlanModel m);
std::optional<CollectiveOp> parse_collective(std::string_view name);
std::optional<PlanModel> parse_plan_model(std::string_view name);
std::string_view to_string(Protocol p);  // "LL", "LL128", "Simple" (NCCL_PROTO spelling)
std::optional<Protocol> parse_protocol(std::string_view name);
/// Every op name, in declaration order (for help texts and suggestions).
std::vector<std::string> collective_names();

struct CollectiveOptions {
  PlanModel model = PlanModel::Auto;
  /// all_reduce only: force Ring or Tree like NCCL_ALGO; nullopt: NCCL's tuning-model choice
  /// (tree is considered only when the ranks span several nodes).
  std::optional<Algorithm> algorithm;
  /// NCCL_NVLS_ENABLE: NVLS is considered where the hardware has it (false: never).
  bool nvls_enable = true;
  /// Ring and chain collectives (all_reduce, all_gather, reduce_scatter, broadcast, reduce): force a
  /// protocol like NCCL_PROTO; nullopt: NCCL's tuning-model choice (choose_protocol). Trees and
  /// pairwise send/recv always use Simple.
  std::optional<Protocol> protocol;
  topology::P2pPolicy p2p;  // NCCL_P2P_LEVEL / NCCL_P2P_DISABLE / NCCL_SHM_DISABLE
  /// NCCL_NET_GDR_LEVEL / NCCL_NET_GDR_READ: a property of the Platform the plan runs on (routes of the
  /// network transport); the command that reads the environment builds its Platform with it.
  NetPolicy net;
  std::size_t root = 0;  // rank index of the root (broadcast, reduce), as nccl-tests' -r
  /// Most distinct rings simulated (rings over disjoint NVLink directions); NCCL's MAXCHANNELS is 32.
  int max_channels = 16;
  /// NCCL_MIN_NCHANNELS (0: unset) and NCCL_MAX_NCHANNELS (32: unset): bounds on NCCL's channel count
  /// (CollectivePlan::nccl), applied after connect.cc's duplication as NCCL does.
  int nccl_min_channels = 0;
  int nccl_max_channels = 32;
  /// NCCL_GRAPH_FILE: the ring graph NCCL loads instead of searching (graph id 0): one entry per
  /// channel, the GPUs' CUDA device indices on the server in ring order, and its speed (speedintra,
  /// GB/s). Empty: rigsim searches as NCCL does.
  std::vector<std::vector<int>> graph_rings;
  double graph_speed_gbs = 0;
  /// NCCL_TOPO_FILE as given (the command that reads the environment loads it as the layout).
  std::string topo_file;
  /// Ring step payload per transfer. NCCL's Simple protocol moves ALLREDUCE_CHUNKSTEPS (4) steps of
  /// 512 KiB (4 MiB buffer / NCCL_STEPS 8) = 2 MiB per chunk [R: NCCL src/include/collectives.h,
  /// src/include/device.h, recalled]. A step's slice is cut into ceil(slice / chunk) equal pieces.
  Bytes ring_chunk{2.0 * 1024 * 1024};
  /// Chain (broadcast, reduce) and tree pipeline chunk: BROADCAST_CHUNKSTEPS 1 x 512 KiB [R, same].
  Bytes chain_chunk{512.0 * 1024};
  /// NCCL_NVLS_CHUNKSIZE: NVLS's largest chunk (src/transport/nvls.cc, 128 KiB; fixed before 2.21).
  Bytes nvls_chunk{128.0 * 1024};
  /// NCCL_NVLS_NCHANNELS: NVLS's channels; 0: NCCL's default for the GPUs and release (nvls_pipeline).
  int nvls_channels = 0;
  /// Caps on pipelined pieces (simulation cost only: pieces run on established connections and pay no
  /// setup, so above the cap they are simply larger than NCCL's chunk).
  int max_ring_loops = 8;
  int max_chain_chunks = 512;
  int max_tree_chunks = 256;
  /// Auto picks Steady above this many ranks or when the step plan would exceed this many transfers.
  std::size_t steady_above_ranks = 16;
  std::size_t steady_above_transfers = 20000;
};

/// One channel's ring order and its hops: hop i goes order[i] -> order[i+1 mod n]. A chain (broadcast,
/// reduce) is a ring rotated to start or end at the root, without the closing hop: n-1 hops.
struct Ring {
  std::vector<topology::DeviceId> order;
  std::vector<Connection> hops;
};

/// NCCL's protocol choice for a ring or chain (tuning.cc time model, nccl.md §d.5): per protocol
/// time = latency + bytes / bandwidth, the fastest enabled one wins.
struct ProtocolChoice {
  Protocol chosen = Protocol::Simple;
  bool enabled[3] = {true, false, true};  // indexed by Protocol; LL128 only on NVLink (typeIntra <= NVB)
  Seconds latency[3];                     // NCCL's latency term per protocol
  BytesPerSecond bus_bw[3];               // bus bandwidth NCCL decides with (Simple: channels x hop rate)
  Seconds time[3];                        // latency + size x (steps / ranks) / bus_bw
  double wire_factor[3] = {1, 1, 1};      // bytes on the wire per byte of data in the simulation
};

/// NCCL's NVLS all_reduce kernel (src/device/all_reduce.h, 2.18 ... 2.30, buffers not registered) runs
/// three warp groups in every channel's block, a pipeline over loops of heads x chunk per channel:
/// scatter (the input into the NVLS buffers), reduce (multimem.ld_reduce of the head's chunk through
/// the switch and multimem.st of the sum to every GPU) and gather (the sums out to the output). The
/// first loop's scatter precedes any reduce and the last loop's gather follows the last reduce.
/// NVLS_TREE's kernel has the same scatter and gather around the switch, with its own chunk rule; its
/// network stages would lengthen the fill further, which is not modelled (the fill is a lower bound there).
struct NvlsPipeline {
  int channels = 0;       // nvlsChannels
  std::size_t heads = 0;  // one per GPU of a server
  Bytes chunk;            // enqueue.cc's NVLS chunk at this size
  Bytes loop;             // channels x heads x chunk: one loop of every channel
  Bytes fill;             // 2 x min(size, loop): the pipeline's fill and drain at the NVLS rate
};

struct CollectivePlan {
  CollectiveOp op = CollectiveOp::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  PlanModel model = PlanModel::Step;      // resolved: Step or Steady
  Protocol protocol = Protocol::Simple;   // resolved
  ProtocolChoice protocol_choice;         // the time model behind it (ring and chain plans)
  std::vector<topology::DeviceId> ranks;  // rank i is ranks[i]
  Bytes size;                             // nccl-tests "size" column (see nccl_tests.hpp)
  std::vector<Ring> rings;                // one per channel (Ring algorithm; chains for bcast/reduce)
  /// Tree algorithm: parent rank index per rank for each tree (-1: root); trees 2r and 2r + 1 are the
  /// double binary tree on ring r's chains.
  std::vector<std::vector<long>> tree_parents;
  std::vector<Connection> connections;  // every distinct pair that exchanges data
  int channels = 1;   // distinct rings (or trees) simulated; copies of a ring would cross the same links
  NcclChannels nccl;  // the channels NCCL runs (ring collectives): its search, duplication and env bounds
  Bytes chunk;        // bytes per pipelined transfer (Step model)
  Seconds latency;    // NCCL's latency term: base + steps x per-step latency
  /// alltoall / sendrecv: the channels NCCL splits one send over at this size (nccl_p2p_op_channels)
  /// and, where the sends cross NVLink only (or any P2P path, where the GPU generation has a measured
  /// block rate), what one channel's thread block moves (GB/s; 0: no limit).
  int p2p_op_channels = 0;
  double p2p_cta_gbs = 0;
  NvlsPipeline nvls;  // NVLS and NVLS_TREE all_reduce only
  /// Tree (Simple, LL128) and NVLS_TREE: the kernel's blocks (NCCL's graph channels, NVLS heads) and the
  /// NCCL per-channel figure each moves at most (GB/s of bus bandwidth; 0: no such bound), by name.
  int block_channels = 0;
  double block_channel_gbs = 0;
  std::string block_figure;
  bool block_figure_measured = false;  // a measured rate of the cost model's, not one of NCCL's figures
  std::vector<Transfer> transfers;
};

/// Plans `op` of `size` bytes (nccl-tests size semantics) over `ranks` (GPU device ids, rank order).
/// Throws rigsim::InputError for an empty or duplicated rank list, a root out of range, or a plan too
/// large to simulate.
/// Every connection, its transport, setup and rate come from `platform` (Platform::connect).
CollectivePlan plan_collective(const Platform& platform, CollectiveOp op,
                               const std::vector<topology::DeviceId>& ranks, Bytes size,
                               const CollectiveOptions& options = {});

// ---- ring_order.cpp ----------------------------------------------------------------------------

/// The ring NCCL would build over `gpus`: NVLink and same-switch neighbours first, fewest crossings
/// of slow hops, highest ring throughput. Deterministic; on one server it starts at gpus[0]. Across servers
/// the per-server rings are chained server by server, entering each at the GPU closest to its NIC.
/// Hops are judged by the Platform's connections and routes (the rates the simulation gives them).
std::vector<topology::DeviceId> ring_order(const Platform& platform,
                                           const std::vector<topology::DeviceId>& gpus,
                                           const topology::P2pPolicy& policy = {});

/// Ring orders, one per channel: the ring above, plus further rings over NVLink directions no
/// earlier ring uses (NCCL's channel search debiting link bandwidth, nccl.md §d.4), kept while they
/// raise the total throughput under an equal split of the data. At most `max_channels`.
std::vector<std::vector<topology::DeviceId>> ring_channels(const Platform& platform,
                                                           const std::vector<topology::DeviceId>& gpus,
                                                           const topology::P2pPolicy& policy,
                                                           int max_channels);

}  // namespace rigsim::model
