// The GEMM cases of ../shared/reference/dev-cases.json (category "gemm"): the compute model's predicted
// TFLOP/s against the published measurement, per case and as the median |error|. The numbers are
// printed, not judged: the test fails only if the model cannot evaluate a case it has a GPU for.
// Skips with a message when ../shared is absent (a plain clone of the project).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "calibration/compute.hpp"
#include "common/input.hpp"

namespace rigsim::calibration {
namespace {

/// dev-cases.json's gpu_model texts and the catalog entries they are. Where the text leaves a variant
/// open, the choice does not change the prediction (same peak, SM count and power class).
const std::map<std::string, std::string> kGpuKeys = {
    {"A100 SXM", "a100-sxm4-80gb"},
    {"A100 PCIe", "a100-pcie-80gb"},
    {"A100 80GB", "a100-sxm4-80gb"},       // mli's table does not say SXM or PCIe
    {"A800 80GB PCIe", "a100-pcie-80gb"},  // A800: an A100 with NVLink cut down, same compute
    {"A100-SXM4-40GB", "a100-sxm4-40gb"},
    {"H100 SXM", "h100-sxm5"},
    {"RTX 4090", "rtx-4090"},
    {"RTX 3090 Ti", "rtx-3090-ti"},
    {"RTX A6000", "rtx-a6000"},
    {"V100", "v100-sxm2"},  // the case's "theory 125" is the SXM2 part
};

struct Shape {
  double m, n, k;
  std::string note;
};

/// The GEMM shape a case ran: "MxNxK" (mamf-finder's best shape), "M=N=K=8192" or "n=8192"; else
/// 8192^3, the largest size of mli's micro_bench notebook that the cases without a size come from.
Shape shape_of(const std::string& workload) {
  std::smatch mt;
  if (std::regex_search(workload, mt, std::regex(R"((\d+)x(\d+)x(\d+))")))
    return {std::stod(mt[1]), std::stod(mt[2]), std::stod(mt[3]), "stated"};
  if (std::regex_search(workload, mt, std::regex(R"(M=N=K=(\d+))")) ||
      std::regex_search(workload, mt, std::regex(R"(\bn=(\d+))")))
    return {std::stod(mt[1]), std::stod(mt[1]), std::stod(mt[1]), "stated"};
  return {8192, 8192, 8192, "assumed"};
}

Dtype dtype_of(const std::string& text) {
  return text.find("BF16") != std::string::npos ? Dtype::Bf16 : Dtype::Fp16;
}

struct Row {
  std::string id, key, shape;
  Dtype dtype;
  double predicted, measured, error;
  std::string why;
};

std::optional<Row> evaluate(const nlohmann::json& c, const CostModel& cost) {
  const std::string model = c.at("system").at("gpu_model").get<std::string>();
  const auto key = kGpuKeys.find(model);
  if (key == kGpuKeys.end()) {
    std::printf("  skip %s: no catalog GPU for \"%s\"\n", c.at("id").get<std::string>().c_str(),
                model.c_str());
    return std::nullopt;
  }
  const std::string workload = c.at("workload").get<std::string>();
  const Shape s = shape_of(workload);
  const Dtype dtype = dtype_of(workload + " " + c.at("metric").get<std::string>());
  const double e = bytes_per_element(dtype);
  const KernelWork k{
      KernelClass::Gemm, dtype, 2 * s.m * s.n * s.k, (s.m * s.k + s.k * s.n + s.m * s.n) * e, s.m, s.n, s.k};
  const KernelTime t = kernel_time(*topology::find_gpu(key->second), cost, k);
  const double predicted = k.flops / t.time.value / 1e12;
  const double measured = c.at("value").get<double>();
  char shape[64];
  std::snprintf(shape, sizeof shape, "%.0fx%.0fx%.0f%s", s.m, s.n, s.k, s.note == "assumed" ? "*" : "");
  return Row{c.at("id").get<std::string>(),     key->second, shape, dtype, predicted, measured,
             (predicted - measured) / measured, t.why};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void print(const std::vector<Row>& rows) {
  std::printf("\n%-36s %-16s %-18s %-5s %9s %9s %8s\n", "case", "gpu", "shape (m x n x k)", "dtype",
              "predicted", "measured", "error");
  for (const Row& r : rows)
    std::printf("%-36s %-16s %-18s %-5s %9.1f %9.1f %+7.1f%%\n", r.id.c_str(), r.key.c_str(), r.shape.c_str(),
                std::string(to_string(r.dtype)).c_str(), r.predicted, r.measured, 100 * r.error);
  std::printf("(TFLOP/s; * = size not stated in the case, 8192^3 assumed)\n\n");
  for (const Row& r : rows) std::printf("  %s: %s\n", r.id.c_str(), r.why.c_str());
}

TEST(ComputeDevCases, GemmPredictedVersusMeasured) {
  const std::filesystem::path path =
      std::filesystem::path(RIGSIM_SHARED_DIR) / "reference" / "dev-cases.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent: no dev cases to compare with";
  const nlohmann::json cases = load_json_file(path.string());
  const CostModel cost = default_cost_model();
  std::vector<Row> rows;
  for (const nlohmann::json& c : cases) {
    if (c.at("category").get<std::string>() != "gemm") continue;
    if (auto row = evaluate(c, cost)) rows.push_back(*row);
  }
  print(rows);
  if (rows.empty()) GTEST_SKIP() << "no gemm case with a catalog GPU";
  std::vector<double> abs_errors;
  for (const Row& r : rows) abs_errors.push_back(std::fabs(r.error));
  const double med = median(abs_errors);
  std::printf("\nmedian |error| over %zu gemm cases: %.1f %%\n", rows.size(), 100 * med);
  RecordProperty("gemm_cases", static_cast<int>(rows.size()));
  RecordProperty("gemm_median_abs_error_percent", std::to_string(100 * med));
  for (const Row& r : rows) EXPECT_TRUE(std::isfinite(r.predicted) && r.predicted > 0) << r.id;
}

}  // namespace
}  // namespace rigsim::calibration
