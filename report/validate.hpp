// Reports of `rigsim validate` (measured vs predicted per point, error per category) and `rigsim
// calibrate` (what was fitted, from which points, with the error before and after).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/fit.hpp"
#include "model/validate.hpp"

namespace rigsim::report {

/// The points of one measurements file checked against one layout.
struct ValidatedFile {
  std::string file;    // the measurements (or tool output) file
  std::string layout;  // the layout it ran on
  std::string rig;     // the rig's name, when the file gives one
  std::vector<model::PointCheck> checks;
  std::vector<calibration::Pair> pairs;  // the file's A/B pairs (ids of checked points)
};

/// An A/B pair checked: does the prediction move from a to b the way the measurement does?
struct PairCheck {
  std::string file;
  calibration::Pair pair;
  double measured = 0;   // measured a / measured b, on their metric
  double predicted = 0;  // predicted a / predicted b
  /// Both ratios on the same side of 1. A prediction within kPairEqual of 1 is "equal": it holds only
  /// where the measurement is equal too.
  bool holds = false;
};
/// Predicted ratios this close to 1 count as no change (the report prints 4 significant digits).
inline constexpr double kPairEqual = 1e-3;

/// Every declared pair of every file, in file order. A pair whose points were not checked (a series
/// left out) is skipped.
std::vector<PairCheck> pair_checks(const std::vector<ValidatedFile>& files);

struct CategoryError {
  std::string category;
  std::size_t points = 0;
  double median_abs = 0;  // median |predicted / measured - 1|
  double max_abs = 0;
  std::size_t within_10 = 0;    // points with |predicted / measured - 1| <= 10 %
  std::size_t within_x125 = 0;  // points with predicted / measured in [1 / 1.25, 1.25]
};

/// Per transport class, then "all", over every file.
std::vector<CategoryError> category_errors(const std::vector<ValidatedFile>& files);

/// One measurements file's points summarised as a category is (its `category` is the file's name),
/// with its A/B pairs and how many of them hold: which rigs the model misses, not only which paths.
struct FileError {
  CategoryError error;
  std::size_t pairs = 0, pairs_holding = 0;
};
/// One entry per file that has checked points, in file order.
std::vector<FileError> file_errors(const std::vector<ValidatedFile>& files);

/// A table per file (point, category, metric, measured, predicted, error), then the errors per
/// category and overall, then the worst points, then the A/B pairs. `cost_model` names the profile used.
std::string validate_text(const std::vector<ValidatedFile>& files, const std::string& cost_model);
nlohmann::json validate_json(const std::vector<ValidatedFile>& files, const std::string& cost_model);

/// An earlier report of `rigsim validate --json` (the baseline): each point's signed error, keyed by
/// file and point (its id, or "series/point" where it has none), the overall errors and the pairs
/// that held, so a change to the model can be read as the points it moved.
/// The summary of one validate report: median |error| and points within 10 % over all points, and the
/// A/B pairs predicted in the measured direction.
struct ValidateTotals {
  double median_abs = 0;
  std::size_t points = 0, within_10 = 0;
  std::size_t pairs = 0, pairs_holding = 0;
};

/// The totals of the files' points and pairs, as the report's "all" row and pair list count them.
ValidateTotals validate_totals(const std::vector<ValidatedFile>& files);

struct Baseline {
  std::string file;                                              // where it was read from
  std::map<std::pair<std::string, std::string>, double> errors;  // (file, point) -> signed error
  ValidateTotals totals;
};

/// Reads a `validate --json` document; throws InputError naming the file and JSON pointer of what is
/// missing or of the wrong type.
Baseline read_baseline(const nlohmann::json& report, const std::string& file);

/// The points whose printed error differs from the baseline's, in file order: (file, point name,
/// error before, error after); a point the baseline lacks has no "before".
struct MovedPoint {
  std::string file, point;
  std::optional<double> before;
  double after = 0;
};
std::vector<MovedPoint> moved_points(const std::vector<ValidatedFile>& files, const Baseline& b);

/// "Against the baseline FILE": points moved, median |error| and points within 10 % before and after,
/// the A/B pairs holding before and after, then every moved point.
std::string baseline_text(const std::vector<ValidatedFile>& files, const Baseline& b);
nlohmann::json baseline_json(const std::vector<ValidatedFile>& files, const Baseline& b);

/// What calibrate fitted: each key with its start and fitted value, points and categories, and the
/// median error of those points before and after; the keys it could not determine; overall errors.
std::string fit_text(const model::FitResult& r, const std::string& layout);
/// The profile written by calibrate: every fitted key at top level (as `--cost-model` reads it), with
/// "schema", "rig" (description of the measured rig) and "fit" (per key: start value, points,
/// categories, errors; undetermined keys marked "kept": the default).
nlohmann::json profile_json(const model::FitResult& r, const nlohmann::json& rig,
                            const std::vector<std::string>& inputs, const std::string& layout);

}  // namespace rigsim::report
