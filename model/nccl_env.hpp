// NCCL's environment (NCCL_P2P_LEVEL, NCCL_ALGO, ...) as rigsim's collective options. What NCCL reads
// from its environment is given to rigsim as `--nccl-env KEY=VALUE` or taken from the shell; every key
// is either applied, or named in an error (never ignored).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/collectives.hpp"

namespace rigsim::model {

using NcclEnv = std::vector<std::pair<std::string, std::string>>;

/// "KEY=VALUE" arguments of --nccl-env; a missing '=' or a key not starting with NCCL_ is an error.
NcclEnv parse_nccl_env_args(const std::vector<std::string>& args);

/// The NCCL_* variables of a process environment (`environ`), in sorted order (deterministic).
NcclEnv nccl_env_from(const char* const* environ);

/// Applies each setting to `options` in order (a later one wins). Keys rigsim models:
///   NCCL_P2P_LEVEL (LOC NVL NVB PIX PXB PHB SYS, NODE = PHB), NCCL_P2P_DISABLE (0/1),
///   NCCL_ALGO (Ring, Tree, NVLS; one algorithm), NCCL_PROTO (LL, LL128, Simple; one protocol),
///   NCCL_MAX_NCHANNELS (1-32: distinct rings simulated and NCCL's channel count),
///   NCCL_MIN_NCHANNELS (0-32: NCCL's channel count, by copies of its rings), NCCL_NVLS_ENABLE (0/1/2),
///   NCCL_BUFFSIZE (bytes, a power of two from 64 KiB: Simple chunks are BUFFSIZE/2 on rings and
///   BUFFSIZE/8 on chains and trees, as NCCL's CHUNKSTEPS/NCCL_STEPS),
///   NCCL_NVLS_CHUNKSIZE (bytes, NVLS's largest chunk; NCCL 2.21 and later), NCCL_NVLS_NCHANNELS (1-32),
///   NCCL_SHM_DISABLE (0/1: without P2P, the network transport through a NIC instead of host memory),
///   NCCL_NET_GDR_LEVEL (LOC PIX PXB PHB SYS, NODE = PHB), NCCL_NET_GDR_READ (0/1): options.net, which
///   the caller gives its Platform (the network transport's routes),
///   NCCL_GRAPH_FILE (an NCCL graph XML: its ring graph's channels replace rigsim's ring search),
///   NCCL_TOPO_FILE (recorded in options.topo_file: `bench` loads it as the layout).
/// Keys NCCL reads that rigsim does not model (NCCL_CROSS_NIC, NCCL_PXN_DISABLE, ...: every variable of
/// nccl_variable_since) and unknown keys are errors naming the key and what to do.
/// Throws rigsim::InputError located at "--nccl-env KEY".
void apply_nccl_env(const NcclEnv& env, CollectiveOptions& options);

/// The first NCCL release (of 2.14.3 ... 2.30.7) whose source reads environment variable `name`, e.g.
/// "2.21.5" for NCCL_NVLS_CHUNKSIZE; nullopt when no release of that range reads it (a typo, or a key of
/// another library).
std::optional<std::string_view> nccl_variable_since(std::string_view name);

}  // namespace rigsim::model
