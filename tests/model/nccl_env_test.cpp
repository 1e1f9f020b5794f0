// NCCL's environment as rigsim options (issue 9, "NCCL's environment"): every key applied or named.
#include "model/nccl_env.hpp"

#include <gtest/gtest.h>

#include <utility>

#include "common/input.hpp"

namespace rigsim::model {
namespace {

std::string error_of(const NcclEnv& env) {
  CollectiveOptions o;
  try {
    apply_nccl_env(env, o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(NcclEnv, ModelledKeysSetTheOptionsNcclWould) {
  CollectiveOptions o;
  apply_nccl_env(parse_nccl_env_args({"NCCL_P2P_LEVEL=NODE", "NCCL_ALGO=tree", "NCCL_PROTO=LL128",
                                      "NCCL_MAX_NCHANNELS=4", "NCCL_NVLS_ENABLE=0", "NCCL_BUFFSIZE=8388608"}),
                 o);
  EXPECT_EQ(o.p2p.level, topology::PathClass::PHB);
  EXPECT_EQ(o.algorithm, Algorithm::Tree);
  EXPECT_EQ(o.protocol, Protocol::LL128);
  EXPECT_EQ(o.max_channels, 4);
  EXPECT_FALSE(o.nvls_enable);
  // BUFFSIZE 8 MiB: Simple ring chunks of 4 of NCCL_STEPS 8 slots = 4 MiB, chain chunks 1 slot = 1 MiB.
  EXPECT_DOUBLE_EQ(o.ring_chunk.value, 4.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(o.chain_chunk.value, 1.0 * 1024 * 1024);
  EXPECT_FALSE(o.p2p.shm_disable);
  EXPECT_EQ(o.net, NetPolicy{});
  apply_nccl_env({{"NCCL_SHM_DISABLE", "1"},
                  {"NCCL_NET_GDR_LEVEL", "node"},
                  {"NCCL_NET_GDR_READ", "0"},
                  {"NCCL_MIN_NCHANNELS", "8"},
                  {"NCCL_PXN_DISABLE", "1"}},
                 o);
  EXPECT_TRUE(o.p2p.shm_disable);
  EXPECT_FALSE(o.net.pxn);
  EXPECT_EQ(o.net.gdr_level, topology::PathClass::PHB);  // NODE is NCCL's PHB
  EXPECT_EQ(o.net.gdr_read, 0);
  EXPECT_EQ(o.nccl_min_channels, 8);
  apply_nccl_env({{"NCCL_P2P_DISABLE", "1"}, {"NCCL_ALGO", "NVLS"}}, o);
  EXPECT_TRUE(o.p2p.disable);
  EXPECT_EQ(o.algorithm, Algorithm::Nvls);
  apply_nccl_env({{"NCCL_ALGO", "NVLSTree"}}, o);  // NCCL's spelling, any case
  EXPECT_EQ(o.algorithm, Algorithm::NvlsTree);
  apply_nccl_env({{"NCCL_NVLS_CHUNKSIZE", "524288"}, {"NCCL_NVLS_NCHANNELS", "24"}}, o);
  EXPECT_DOUBLE_EQ(o.nvls_chunk.value, 524288);
  EXPECT_EQ(o.nvls_channels, 24);
}

TEST(NcclEnv, PathLevelsTakeNcclsOldNumbering) {
  // ncclGetLevel (src/graph/paths.cc): a value starting with a digit is strtol'd and mapped through
  // levelsOldToNew = {LOC, PIX, PXB, PHB, SYS, SYS}; above 5 it is 5. nccl-tests#256 runs
  // NCCL_NET_GDR_LEVEL=2 (PXB).
  using topology::PathClass;
  const std::pair<const char*, PathClass> cases[] = {{"0", PathClass::LOC}, {"1", PathClass::PIX},
                                                     {"2", PathClass::PXB}, {"3", PathClass::PHB},
                                                     {"4", PathClass::SYS}, {"5", PathClass::SYS},
                                                     {"9", PathClass::SYS}, {"0x2", PathClass::PXB}};
  for (const auto& [value, level] : cases) {
    CollectiveOptions o;
    apply_nccl_env({{"NCCL_NET_GDR_LEVEL", value}, {"NCCL_P2P_LEVEL", value}}, o);
    EXPECT_EQ(o.net.gdr_level, level) << value;
    EXPECT_EQ(o.p2p.level, level) << value;
  }
  EXPECT_NE(error_of({{"NCCL_NET_GDR_LEVEL", "-1"}}).find("old numbering 0-5"), std::string::npos);
  EXPECT_NE(error_of({{"NCCL_P2P_LEVEL", "near"}}).find("old numbering 0-5"), std::string::npos);
}

TEST(NcclEnv, ALaterSettingWins) {
  CollectiveOptions o;
  apply_nccl_env({{"NCCL_PROTO", "LL"}, {"NCCL_PROTO", "Simple"}}, o);
  EXPECT_EQ(o.protocol, Protocol::Simple);
}

TEST(NcclEnv, UnmodelledUnknownAndBadValuesAreNamed) {
  EXPECT_NE(error_of({{"NCCL_CROSS_NIC", "1"}}).find("--nccl-env NCCL_CROSS_NIC: NCCL reads it but rigsim does not"),
            std::string::npos);
  EXPECT_NE(error_of({{"NCCL_NET_GDR_LEVEL", "NVB"}}).find("expected LOC, PIX, PXB, PHB (NODE), SYS or"),
            std::string::npos);
  EXPECT_NE(error_of({{"NCCL_SHM_DISABLE", "2"}}).find("from 0 to 1"), std::string::npos);
  EXPECT_NE(error_of({{"NCCL_P2P_LEVL", "SYS"}}).find("did you mean"), std::string::npos)
      << error_of({{"NCCL_P2P_LEVL", "SYS"}});
  EXPECT_NE(error_of({{"NCCL_P2P_LEVEL", "FAR"}}).find("expected LOC, NVL"), std::string::npos);
  EXPECT_NE(error_of({{"NCCL_ALGO", "ring,tree"}}).find("no lists"), std::string::npos);
  EXPECT_NE(error_of({{"NCCL_MAX_NCHANNELS", "0"}}).find("from 1 to 32"), std::string::npos);
  EXPECT_NE(error_of({{"NCCL_BUFFSIZE", "1000000"}}).find("power of two"), std::string::npos);
  EXPECT_NE(error_of({{"NCCL_P2P_DISABLE", "yes"}}).find("expected an integer"), std::string::npos);
  // A variable NCCL reads that rigsim leaves alone is told apart from a typo.
  EXPECT_NE(error_of({{"NCCL_IB_QPS_PER_CONNECTION", "4"}}).find("NCCL reads it (releases 2.14.3 and later)"),
            std::string::npos)
      << error_of({{"NCCL_IB_QPS_PER_CONNECTION", "4"}});
  EXPECT_NE(error_of({{"NCCL_P2P_PXN_LEVEL", "0"}}).find("NCCL_PXN_DISABLE=1 turns PXN off"),
            std::string::npos);
  EXPECT_NE(error_of({{"NCCL_PXN_DISABLE", "yes"}}).find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of({{"NCCL_FOO", "1"}}).find("unknown NCCL variable"), std::string::npos);
  EXPECT_THROW(parse_nccl_env_args({"NCCL_ALGO"}), InputError);
  EXPECT_THROW(parse_nccl_env_args({"CUDA_VISIBLE_DEVICES=0"}), InputError);
}

TEST(NcclEnv, EveryVariableNcclReadsIsKnownWithItsFirstRelease) {
  EXPECT_EQ(nccl_variable_since("NCCL_NVLS_CHUNKSIZE"), "2.21.5");  // enqueue.cc param, new in 2.21
  EXPECT_EQ(nccl_variable_since("NCCL_NVLS_ENABLE"), "2.17.1");
  EXPECT_EQ(nccl_variable_since("NCCL_P2P_LEVEL"), "2.14.3");  // read through ncclGetLevel, not NCCL_PARAM
  EXPECT_EQ(nccl_variable_since("NCCL_FOO"), std::nullopt);
  EXPECT_EQ(nccl_variable_since("NCCL_NVLS"), std::nullopt);  // a prefix is not a name
  // Every key rigsim applies or explains is one NCCL reads.
  for (const char* k :
       {"NCCL_P2P_DISABLE", "NCCL_ALGO", "NCCL_PROTO", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS",
        "NCCL_BUFFSIZE", "NCCL_SHM_DISABLE", "NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ", "NCCL_GRAPH_FILE",
        "NCCL_TOPO_FILE", "NCCL_CROSS_NIC", "NCCL_IB_HCA", "NCCL_PXN_DISABLE"})
    EXPECT_TRUE(nccl_variable_since(k).has_value()) << k;
}

TEST(NcclEnv, ShellEnvironmentIsFilteredAndSorted) {
  const char* env[] = {"PATH=/bin", "NCCL_PROTO=LL", "HOME=/root", "NCCL_ALGO=Ring", nullptr};
  const NcclEnv e = nccl_env_from(env);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].first, "NCCL_ALGO");
  EXPECT_EQ(e[1].first, "NCCL_PROTO");
}

}  // namespace
}  // namespace rigsim::model
