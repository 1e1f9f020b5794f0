// fit(): one key at a time, each solved by secant iterations on the mean log error of the points the
// model attributes to it, passes repeated until nothing moves (see fit.hpp).
#include "model/fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace rigsim::model {
namespace {

using calibration::CostModel;
using calibration::Measurements;

constexpr int kMaxPasses = 4;
constexpr int kMaxIterations = 12;
constexpr double kTolerance = 1e-4;  // |mean ln(pred/meas)| at which a key is solved
constexpr double kConverged = 1e-3;  // relative change of every key that ends the passes
constexpr double kMinEfficiency = 0.01;
constexpr double kMaxLatency = 1e-2;  // seconds: no fixed cost of a copy or a collective is larger

using PointRef = std::pair<std::size_t, std::size_t>;  // series, point

bool is_latency_key(const std::string& key) {
  return calibration::is_duration_key(key) && key != "staging_sync_latency";
}

/// Whether `c` teaches `key`: attributed to it, in the regime the key governs.
bool teaches(const PointCheck& c, const std::string& key) {
  if (c.key != key) return false;
  return is_latency_key(key) ? c.regime == Regime::Latency : c.regime == Regime::Bandwidth;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double median_error_of(const std::vector<PointCheck>& checks, const std::set<PointRef>& points) {
  std::vector<double> e;
  for (const PointCheck& c : checks)
    if (points.contains({c.series, c.point})) e.push_back(std::abs(c.error()));
  return median_of(std::move(e));
}

class Fitter {
 public:
  Fitter(const PlatformMaker& make, const Executor& execute, const Measurements& m)
      : make_(make), execute_(execute), m_(m) {}

  std::vector<PointCheck> run(const CostModel& cm, const std::vector<std::size_t>& series = {}) const {
    std::map<int, std::optional<Platform>> platforms;
    const PlatformFor platform_for = [&](int nodes) -> const Platform& {
      auto& slot = platforms[nodes];
      if (!slot) slot.emplace(make_(cm, nodes));
      return *slot;
    };
    return validate(platform_for, execute_, m_, series);
  }

  /// Mean ln(predicted / measured) over `points` with `key` set to `value`.
  double objective(CostModel cm, const std::string& key, double value, const std::vector<PointRef>& points,
                   const std::vector<std::size_t>& series) const {
    calibration::set_scalar(cm, key, value);
    const std::set<PointRef> wanted(points.begin(), points.end());
    double sum = 0;
    std::size_t n = 0;
    for (const PointCheck& c : run(cm, series))
      if (wanted.contains({c.series, c.point}) && c.predicted > 0) {
        sum += std::log(c.predicted / c.measured);
        ++n;
      }
    return n > 0 ? sum / static_cast<double>(n) : 0.0;
  }

  /// Solves one key; returns its value, or nullopt when the points do not depend on it.
  std::optional<double> solve(const CostModel& cm, const std::string& key, double start,
                              const std::vector<PointRef>& points, std::string& why) const {
    std::set<std::size_t> in;
    for (const auto& [s, p] : points) in.insert(s);
    const std::vector<std::size_t> series(in.begin(), in.end());
    // Efficiencies are solved in log space (a bandwidth-bound rate is proportional to them), fixed
    // costs in seconds.
    const bool log_space = !calibration::is_duration_key(key);
    const auto to_value = [&](double u) { return log_space ? std::exp(u) : u; };
    const auto clamp = [&](double u) {
      return log_space ? std::clamp(u, std::log(kMinEfficiency), 0.0) : std::clamp(u, 0.0, kMaxLatency);
    };
    double u0 = log_space ? std::log(std::max(start, kMinEfficiency)) : start;
    double f0 = objective(cm, key, to_value(u0), points, series);
    if (std::abs(f0) < kTolerance) return to_value(u0);
    double u1 = clamp(log_space ? u0 - f0 : u0 + std::max(1e-6, 0.2 * u0));
    if (u1 == u0) u1 = clamp(log_space ? u0 + f0 : u0 - std::max(1e-6, 0.2 * u0));
    double f1 = objective(cm, key, to_value(u1), points, series);
    if (std::abs(f1 - f0) < 1e-6) {
      why = "the predictions of its points do not change with it";
      return std::nullopt;
    }
    for (int i = 0; i < kMaxIterations && std::abs(f1) > kTolerance; ++i) {
      if (f1 == f0) break;
      const double u2 = clamp(u1 - f1 * (u1 - u0) / (f1 - f0));
      if (u2 == u1) {
        why = "held at its bound " + std::to_string(to_value(u2)) + ": the measurements ask for more";
        break;
      }
      u0 = u1, f0 = f1, u1 = u2;
      f1 = objective(cm, key, to_value(u1), points, series);
    }
    return to_value(u1);
  }

 private:
  const PlatformMaker& make_;
  const Executor& execute_;
  const Measurements& m_;
};

/// Whether setting `key` to `value` makes the median |error| of its own points worse than now: the
/// points then disagree on the mechanism (e.g. one category asks for more bandwidth, another for less,
/// and the mean log error balances them at a value good for neither). Sets `why` when it does.
bool worsens(const Fitter& fitter, const CostModel& cm, const std::string& key, double value,
             const std::vector<PointRef>& points, std::string& why) {
  const std::set<PointRef> wanted(points.begin(), points.end());
  CostModel fitted = cm;
  calibration::set_scalar(fitted, key, value);
  std::set<std::size_t> in;
  for (const auto& [s, p] : points) in.insert(s);
  const std::vector<std::size_t> series(in.begin(), in.end());
  const double now = median_error_of(fitter.run(cm, series), wanted);
  const double then = median_error_of(fitter.run(fitted, series), wanted);
  if (then <= now) return false;
  char buf[160];
  std::snprintf(
      buf, sizeof buf,
      "kept: its points disagree (the best mean fit raises their median error from %.2f%% to %.2f%%)",
      100 * now, 100 * then);
  why = std::string(buf) + "; the layout may be wrong for some of them";
  return true;
}

/// The value a key starts from: the model's, or for an override left at 0 (NVLink, socket links: per
/// generation or kind) the geometric mean of the factors its points' links have now; for the P2P write
/// latency left at 0 (per generation), the geometric mean of its points' predicted latencies.
double start_value(const CostModel& cm, const std::string& key, const std::vector<PointCheck>& checks) {
  const double v = *calibration::scalar_of(cm, key);
  if (v == 0 && key == "p2p_write_latency") {
    double sum = 0;
    std::size_t n = 0;
    for (const PointCheck& c : checks)
      if (teaches(c, key) && c.predicted > 0) sum += std::log(c.predicted * 1e-6), ++n;  // predicted in us
    return n > 0 ? std::exp(sum / static_cast<double>(n)) : 0.0;
  }
  if (v > 0 || calibration::is_duration_key(key)) return v;
  double sum = 0;
  std::size_t n = 0;
  for (const PointCheck& c : checks)
    if (teaches(c, key) && c.efficiency > 0) sum += std::log(c.efficiency), ++n;
  return n > 0 ? std::exp(sum / static_cast<double>(n)) : 0.0;
}

}  // namespace

const std::vector<std::string>& fit_keys() {
  static const std::vector<std::string> keys{"gemm_efficiency",
                                             "gemm_fp8_efficiency",
                                             "gpu_memory_efficiency",
                                             "memory_efficiency",
                                             "pcie_efficiency",
                                             "pcie_efficiency_sm90",
                                             "chipset_efficiency",
                                             "pcie_duplex_efficiency",
                                             "nvlink_efficiency",
                                             "inter_socket_efficiency",
                                             "network_efficiency",
                                             "staging_sync_latency",
                                             "p2p_write_latency",
                                             "host_copy_latency",
                                             "nccl_base_latency",
                                             "nccl_ll_base_latency",
                                             "nccl_ll128_base_latency",
                                             "nccl_tree_base_latency",
                                             "nccl_tree_ll_base_latency",
                                             "nccl_tree_ll128_base_latency",
                                             "nccl_nvls_latency",
                                             "nccl_launch_per_gpu"};
  return keys;
}

double median_abs_error(const std::vector<PointCheck>& checks) {
  std::vector<double> e;
  for (const PointCheck& c : checks) e.push_back(std::abs(c.error()));
  return median_of(std::move(e));
}

FitResult fit(const PlatformMaker& make, const Executor& execute, const Measurements& m,
              const CostModel& start) {
  const Fitter fitter(make, execute, m);
  FitResult out;
  out.model = start;
  out.before = fitter.run(start);
  std::map<std::string, FittedKey> fitted;
  std::map<std::string, std::set<PointRef>> taught;
  std::vector<PointCheck> checks = out.before;
  for (out.passes = 1; out.passes <= kMaxPasses; ++out.passes) {
    bool moved = false;
    for (const std::string& key : fit_keys()) {
      std::vector<PointRef> points;
      std::set<std::string> categories;
      for (const PointCheck& c : checks)
        if (teaches(c, key) && c.predicted > 0) {
          points.push_back({c.series, c.point});
          categories.insert(c.category);
        }
      if (points.empty()) continue;
      FittedKey& k = fitted[key];
      if (k.key.empty()) {
        k.key = key;
        k.initial = start_value(start, key, checks);
      }
      k.points = points.size();
      k.categories.assign(categories.begin(), categories.end());
      taught[key] = std::set<PointRef>(points.begin(), points.end());
      const double from = start_value(out.model, key, checks);
      k.why.clear();
      const std::optional<double> v = fitter.solve(out.model, key, from, points, k.why);
      k.determined = v.has_value() && !worsens(fitter, out.model, key, *v, points, k.why);
      if (!k.determined) continue;
      k.value = *v;
      calibration::set_scalar(out.model, key, *v);
      moved = moved || std::abs(*v - from) > kConverged * std::max(std::abs(from), 1e-9);
    }
    checks = fitter.run(out.model);
    if (!moved) break;
  }
  out.passes = std::min(out.passes, kMaxPasses);
  out.after = checks;
  // The promise to the user: a profile fitted on a rig never predicts that rig worse than the model it
  // started from. Should the keys together do so (each one alone did not), nothing is fitted.
  if (median_abs_error(out.after) > median_abs_error(out.before)) {
    out.model = start;
    out.after = out.before;
    for (auto& [key, k] : fitted)
      if (k.determined)
        k.determined = false, k.why = "kept: together the fitted keys predicted this rig worse";
  }
  for (const std::string& key : fit_keys()) {
    auto it = fitted.find(key);
    if (it == fitted.end()) continue;
    FittedKey& k = it->second;
    if (!k.determined) k.value = k.initial;
    k.error_before = median_error_of(out.before, taught[key]);
    k.error_after = median_error_of(out.after, taught[key]);
    out.keys.push_back(k);
  }
  out.model.source = "fitted by rigsim calibrate";
  return out;
}

}  // namespace rigsim::model
