#include "workloads/read_util.hpp"

namespace rigsim::workloads::detail {

int in_range(const ObjectReader& r, const std::string& key, int value, int min, int max) {
  if (value < min || value > max)
    r.fail(key, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                    std::to_string(value));
  return value;
}

std::vector<std::string> string_list(ObjectReader& r, const std::string& key) {
  std::vector<std::string> out;
  const nlohmann::json* arr = r.optional_array(key);
  if (arr == nullptr) return out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    if (!(*arr)[i].is_string())
      throw InputError(r.file(), r.pointer_of(key) + "/" + std::to_string(i), "expected a string");
    out.push_back((*arr)[i].get<std::string>());
  }
  return out;
}

}  // namespace rigsim::workloads::detail
