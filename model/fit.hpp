// `rigsim calibrate`: a CostModel profile fitted to the measurements of one rig.
//
// Each measured point is attributed by the model's own mechanism (validate.hpp): a bandwidth-regime
// point teaches the efficiency of the link class that limits it (PCIe, NVLink, socket link, DRAM, the
// duplex budget of host DMA, device memory) or, for a pipelined host-staged copy, the per-chunk
// hand-off; a latency-regime point teaches the fixed cost of its transport or NCCL protocol. For each
// key, one number is solved so that the mean of ln(predicted / measured) over its points is zero
// (secant iterations, re-simulating those points each time); keys are solved one after another in a
// fixed order (device memory and host copies before what depends on them), and the whole pass is
// repeated until no key moves by more than 0.1 % (a bottleneck may shift as keys change). Keys no
// point depends on keep their value and are reported as not determined.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "calibration/cost_model.hpp"
#include "calibration/measurements.hpp"
#include "model/validate.hpp"

namespace rigsim::model {

/// Builds the rig's platform under a cost model for a series of `nodes` servers.
using PlatformMaker = std::function<Platform(const calibration::CostModel&, int nodes)>;

struct FittedKey {
  std::string key;
  double initial = 0;  // factor, or seconds for a duration
  double value = 0;
  bool determined = false;
  std::string why;                      // for an undetermined key, or a key held at a bound
  std::size_t points = 0;               // points that taught it (last pass)
  std::vector<std::string> categories;  // their transport classes
  double error_before = 0;              // median |error| of those points with the initial model
  double error_after = 0;               // and with the fitted one
};

struct FitResult {
  calibration::CostModel model;
  std::vector<FittedKey> keys;  // in fit order; only keys some point was attributed to
  std::vector<PointCheck> before, after;
  int passes = 0;
};

/// Fits `start` to every point of `m`. Throws rigsim::InputError as validate() does.
FitResult fit(const PlatformMaker& make, const Executor& execute, const calibration::Measurements& m,
              const calibration::CostModel& start);

/// The keys fit() may set, in the order it solves them.
const std::vector<std::string>& fit_keys();

/// Median of |error| over `checks` (0 when empty).
double median_abs_error(const std::vector<PointCheck>& checks);

}  // namespace rigsim::model
