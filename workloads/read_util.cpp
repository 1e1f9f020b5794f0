#include "workloads/read_util.hpp"

namespace rigsim::workloads::detail {

int in_range(const ObjectReader& r, const std::string& key, int value, int min, int max) {
  if (value < min || value > max)
    r.fail(key, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                    std::to_string(value));
  return value;
}

}  // namespace rigsim::workloads::detail
