// libFuzzer entry point; RIGSIM_FUZZ_TARGET (a compile definition) picks the reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rigsim::fuzz::RIGSIM_FUZZ_TARGET(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
