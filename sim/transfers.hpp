// The contract between collective plans (pure values) and the SimGrid executor: a DAG of data
// transfers between devices of a Topology. This header includes no SimGrid.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/units.hpp"
#include "topology/topology.hpp"

namespace rigsim::sim {

/// How bytes move between two devices (NCCL's transports, reference nccl.md §d.3).
enum class Transport {
  Auto,     // decide from the topology's P2P decision: P2p if allowed, else Shm
  P2p,      // direct route (NVLink or PCIe peer-to-peer)
  Shm,      // staged through pinned host memory of the sender's socket: two pipelined legs
  Net,      // through NICs and the network (multi-node)
  HostCopy  // host memory <-> device copy (cudaMemcpy H2D / D2H); one end is a CPU socket
};

/// One flow of `bytes` from `src` to `dst`, started once every transfer in `after` has finished
/// and `latency` has elapsed (per-step protocol latency; the route's own latency is added by the
/// platform: the transport's setup from the CostModel plus the latencies of the links crossed).
struct Transfer {
  topology::DeviceId src = 0;
  topology::DeviceId dst = 0;
  Bytes bytes;
  Seconds latency;
  Transport transport = Transport::Auto;
  /// The connection is already set up (a step of a collective on a connection NCCL established at
  /// communicator init): the platform charges only the links' latencies, not the transport's setup
  /// (Route::setup). Default false: every transfer pays its setup, as before this flag existed.
  bool connected = false;
  std::vector<std::size_t> after;  // indices into the same vector, all smaller than this one's
  std::string tag;                 // for traces and bottleneck attribution, e.g. "ring step 3"
};

struct TransferTiming {
  Seconds start;   // when it became ready (dependencies done + latency)
  Seconds finish;  // when its last byte arrived
};

/// Utilisation of one platform link over a run: bytes carried / (capacity x makespan).
struct LinkUsage {
  std::string link;      // platform link name, e.g. "gpu0<->plx0 up"
  double utilization = 0;  // 0..1
  Bytes bytes;
};

struct RunResult {
  std::vector<TransferTiming> transfers;  // same order as the input
  Seconds makespan;                       // finish of the last transfer
  std::vector<LinkUsage> busiest;         // links by decreasing utilisation (top few)
};

}  // namespace rigsim::sim
