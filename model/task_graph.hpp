// The contract between the model (collective plans, benches, training programs: pure values) and the
// engine (engine/, the only SimGrid user): a DAG of tasks. A task is either a transfer of bytes between
// two devices, which occupies the links of its route, or a compute task, which occupies one stream of
// one device for a time. Tasks wait for the tasks in `after` and for the previous task of their
// stream. This header includes no SimGrid.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/units.hpp"
#include "topology/p2p.hpp"
#include "topology/topology.hpp"

namespace rigsim::model {

/// How bytes move between two devices (NCCL's transports, reference nccl.md §d.3).
enum class Transport {
  Auto,     // decide from the topology's P2P decision: P2p if allowed, else Shm
  P2p,      // direct route (NVLink or PCIe peer-to-peer)
  Shm,      // staged through pinned host memory on the receiver's side (NCCL): two pipelined legs
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
  /// The transfer follows the previous piece of the same pipeline on the same connection (a Simple
  /// chain's chunk j > 0): NCCL posts it while the one before is still in flight (NCCL_STEPS slots),
  /// so the links' latency, paid by the first piece, is not paid again. Default false.
  bool streamed = false;
  std::vector<std::size_t> after;  // indices into the same vector, all smaller than this one's
  std::string tag;                 // for traces and bottleneck attribution, e.g. "ring step 3"
  /// A compute task (src == dst, no bytes): the time it occupies its stream once started, in seconds.
  Seconds duration;
  /// Stream the task runs on (any id the caller chooses, e.g. rank x 4 + stream kind); tasks of one
  /// stream run one at a time in index order, as on a CUDA stream. -1: no stream (only `after` orders it).
  long stream = -1;
  /// HostCopy only: the host end uses the memory of this device's NUMA node instead of the device end's
  /// own (Platform::route). A staged GPU-to-GPU copy reads its H2D leg from the buffer its D2H leg wrote.
  std::optional<topology::DeviceId> host_memory_near;
  /// The most this transfer's sender moves, in payload bytes per second (0: no limit of its own): the
  /// thread blocks NCCL gives a send/recv over NVLink (collectives.cpp: plan_pairwise) or a ring or chain
  /// where the GPU generation has a measured block rate (cap_blocks), a tree's blocks. The engine takes
  /// the lower of it and the route's own per-transfer limit (Route::flow_cap).
  BytesPerSecond rate_cap;
};

/// A compute task: `duration` seconds on `device`'s stream `stream`, after `after`.
inline Transfer compute_task(topology::DeviceId device, Seconds duration, long stream,
                             std::vector<std::size_t> after, std::string tag) {
  Transfer t;
  t.src = t.dst = device;
  t.transport = Transport::P2p;  // a device to itself: no route, nothing moves
  t.duration = duration;
  t.stream = stream;
  t.after = std::move(after);
  t.tag = std::move(tag);
  return t;
}

struct TransferTiming {
  Seconds start;   // when it started (dependencies and the previous task of its stream done + latency)
  Seconds finish;  // when its last byte arrived (compute: start + duration)
};

/// Utilisation of one platform link over a run: bytes carried / (capacity x makespan).
struct LinkUsage {
  std::string link;        // platform link name, e.g. "gpu0<->plx0 up"
  double utilization = 0;  // 0..1
  Bytes bytes;
};

struct RunResult {
  std::vector<TransferTiming> transfers;  // same order as the input
  Seconds makespan;                       // finish of the last transfer
  std::vector<LinkUsage> busiest;         // links by decreasing utilisation (top few)
};

class Platform;

/// Runs a task graph on a platform: engine::run in the application, a fake in tests of the model alone.
/// The model never includes the engine; code that needs a simulation takes one of these as a value.
using Executor =
    std::function<RunResult(const Platform&, const std::vector<Transfer>&, const topology::P2pPolicy&)>;
/// Starts independent task graphs as the phases of one simulation, one after another, and returns what
/// waits for their results (engine::run_phases_async). Several such calls go side by side. The task
/// graphs must outlive the wait.
using PhasesExecutor = std::function<std::function<std::vector<RunResult>()>(
    const Platform&, const std::vector<const std::vector<Transfer>*>&, const topology::P2pPolicy&)>;

}  // namespace rigsim::model
