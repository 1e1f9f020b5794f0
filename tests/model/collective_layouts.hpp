// In-memory layouts and a round-number cost model for the collective tests (plans, ring order and
// the simulated bench). Each layout's answer follows from its description.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "calibration/cost_model.hpp"
#include "common/input.hpp"
#include "tests/model/sim_fixture.hpp"
#include "tests/topology/layout_fixture.hpp"

namespace rigsim::model::testing {

/// The built-in model with every efficiency at 1 (links at wire rate) and NCCL-like latencies with
/// round numbers, so closed forms are easy to state.
inline calibration::CostModel round_cost_model() {
  calibration::CostModel m = calibration::default_cost_model();
  m.pcie_efficiency = m.nvlink_efficiency = m.inter_socket_efficiency = 1.0;
  m.chipset_efficiency = m.memory_efficiency = m.network_efficiency = 1.0;
  m.gpu_memory_efficiency = m.pcie_duplex_efficiency = 1.0;
  m.nccl_base_latency = microseconds(10);
  m.nccl_step_latency_nvlink = microseconds(2);
  m.nccl_step_latency_pcie = microseconds(5);
  m.nccl_step_latency_net = microseconds(20);
  m.source = "tests: round numbers";
  return m;
}

/// DGX-1 (V100) hybrid cube mesh: two fully connected quads (some pairs with two links) joined
/// GPU i <-> GPU i+4; six NVLink2 links per GPU (NVIDIA DGX-1 V100 system architecture white paper,
/// nvidia-smi topo -m of a DGX-1V). PCIe: two GPUs per PLX switch, two switches per socket.
inline const char* kDgx1Like = R"({
  "name": "dgx1-like",
  "cpus": [{"id": "cpu0", "model": "xeon-e5-v4"}, {"id": "cpu1", "model": "xeon-e5-v4"}],
  "host_bridges": [{"id": "rc0", "cpu": "cpu0", "lanes": 40}, {"id": "rc1", "cpu": "cpu1", "lanes": 40}],
  "switches": [
    {"id": "plx0", "model": "pex8747", "parent": "rc0"}, {"id": "plx1", "model": "pex8747", "parent": "rc0"},
    {"id": "plx2", "model": "pex8747", "parent": "rc1"}, {"id": "plx3", "model": "pex8747", "parent": "rc1"}
  ],
  "gpus": [
    {"id": "g0", "model": "v100-sxm2", "parent": "plx0"}, {"id": "g1", "model": "v100-sxm2", "parent": "plx0"},
    {"id": "g2", "model": "v100-sxm2", "parent": "plx1"}, {"id": "g3", "model": "v100-sxm2", "parent": "plx1"},
    {"id": "g4", "model": "v100-sxm2", "parent": "plx2"}, {"id": "g5", "model": "v100-sxm2", "parent": "plx2"},
    {"id": "g6", "model": "v100-sxm2", "parent": "plx3"}, {"id": "g7", "model": "v100-sxm2", "parent": "plx3"}
  ],
  "nvlinks": [
    {"gpus": ["g0", "g1"], "links": 1, "bridge": false}, {"gpus": ["g0", "g2"], "links": 1, "bridge": false},
    {"gpus": ["g0", "g3"], "links": 2, "bridge": false}, {"gpus": ["g0", "g4"], "links": 2, "bridge": false},
    {"gpus": ["g1", "g2"], "links": 2, "bridge": false}, {"gpus": ["g1", "g3"], "links": 1, "bridge": false},
    {"gpus": ["g1", "g5"], "links": 2, "bridge": false}, {"gpus": ["g2", "g3"], "links": 2, "bridge": false},
    {"gpus": ["g2", "g6"], "links": 1, "bridge": false}, {"gpus": ["g3", "g7"], "links": 1, "bridge": false},
    {"gpus": ["g4", "g5"], "links": 1, "bridge": false}, {"gpus": ["g4", "g6"], "links": 1, "bridge": false},
    {"gpus": ["g4", "g7"], "links": 2, "bridge": false}, {"gpus": ["g5", "g6"], "links": 2, "bridge": false},
    {"gpus": ["g5", "g7"], "links": 1, "bridge": false}, {"gpus": ["g6", "g7"], "links": 2, "bridge": false}
  ]
})";

/// Eight A100 SXM4 on one NVSwitch fabric (HGX A100 style), each GPU on its own EPYC root port: n GPUs
/// joined by identical links (12 NVLink3 links x 25 GB/s per direction to the fabric).
inline const char* kEightOnNvswitch = R"({
  "name": "eight-on-nvswitch",
  "cpus": [{"id": "cpu0", "model": "epyc-7003"}],
  "host_bridges": [
    {"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
    {"id": "rc2", "cpu": "cpu0", "lanes": 16}, {"id": "rc3", "cpu": "cpu0", "lanes": 16},
    {"id": "rc4", "cpu": "cpu0", "lanes": 16}, {"id": "rc5", "cpu": "cpu0", "lanes": 16},
    {"id": "rc6", "cpu": "cpu0", "lanes": 16}, {"id": "rc7", "cpu": "cpu0", "lanes": 16}
  ],
  "gpus": [
    {"id": "g0", "model": "a100-sxm4-40gb", "parent": "rc0"}, {"id": "g1", "model": "a100-sxm4-40gb", "parent": "rc1"},
    {"id": "g2", "model": "a100-sxm4-40gb", "parent": "rc2"}, {"id": "g3", "model": "a100-sxm4-40gb", "parent": "rc3"},
    {"id": "g4", "model": "a100-sxm4-40gb", "parent": "rc4"}, {"id": "g5", "model": "a100-sxm4-40gb", "parent": "rc5"},
    {"id": "g6", "model": "a100-sxm4-40gb", "parent": "rc6"}, {"id": "g7", "model": "a100-sxm4-40gb", "parent": "rc7"}
  ],
  "nvswitches": [{"id": "nvs", "model": "nvswitch-gen2", "chips": 6,
                  "gpus": ["g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7"]}]
})";

/// Four A100 SXM4 fully connected, four NVLink3 links per pair and no NVSwitch (NVIDIA's HGX A100
/// 4-GPU board: nvidia-smi NV4 between every pair), each GPU on its own EPYC root port. Each GPU's 12
/// links reach its three peers, 80 GB/s per pair and direction in NCCL's figures (4 x 20).
inline const char* kFourA100Mesh = R"({
  "name": "four-a100-mesh",
  "cpus": [{"id": "cpu0", "model": "epyc-7003"}],
  "host_bridges": [
    {"id": "rc0", "cpu": "cpu0", "lanes": 16}, {"id": "rc1", "cpu": "cpu0", "lanes": 16},
    {"id": "rc2", "cpu": "cpu0", "lanes": 16}, {"id": "rc3", "cpu": "cpu0", "lanes": 16}
  ],
  "gpus": [
    {"id": "g0", "model": "a100-sxm4-80gb", "parent": "rc0"}, {"id": "g1", "model": "a100-sxm4-80gb", "parent": "rc1"},
    {"id": "g2", "model": "a100-sxm4-80gb", "parent": "rc2"}, {"id": "g3", "model": "a100-sxm4-80gb", "parent": "rc3"}
  ],
  "nvlinks": [
    {"gpus": ["g0", "g1"], "links": 4, "bridge": false}, {"gpus": ["g0", "g2"], "links": 4, "bridge": false}, {"gpus": ["g0", "g3"], "links": 4, "bridge": false},
    {"gpus": ["g1", "g2"], "links": 4, "bridge": false}, {"gpus": ["g1", "g3"], "links": 4, "bridge": false}, {"gpus": ["g2", "g3"], "links": 4, "bridge": false}
  ]
})";

/// kFourA100Mesh with one ConnectX-6 200G per GPU, each pair under its own Gen4 switch on its own root
/// port (GPU-NIC PIX, any other GPU's NIC PHB): a server of a cluster whose rings must leave through
/// the NIC they entered by.
inline std::string four_a100_mesh_nics() {
  nlohmann::json j = nlohmann::json::parse(kFourA100Mesh);
  j["name"] = "four-a100-mesh-nics";
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string k = std::to_string(i);
    j["switches"].push_back({{"id", "sw" + k}, {"model", "pex88096"}, {"parent", "rc" + k}});
    j["gpus"][i]["parent"] = "sw" + k;
    j["nics"].push_back({{"id", "nic" + k}, {"model", "connectx-6-200g"}, {"parent", "sw" + k}});
  }
  return j.dump();
}

using topology::testing::spec_from_text;

}  // namespace rigsim::model::testing
