// Text and JSON of `rigsim validate` and `rigsim calibrate`.
#include "report/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "calibration/cost_model.hpp"
#include "common/input.hpp"

namespace rigsim::report {
namespace {

using model::PointCheck;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string lpad(const std::string& s, std::size_t width) {
  return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}

std::string name_of(const PointCheck& c) {
  return c.id.empty() ? c.what : c.id;
}

std::string percent(double e) {
  return fmt("%+.1f%%", 100 * e);
}

/// A point's key in a baseline: its id, else its series and index ("2/5").
std::string point_key(const std::string& id, std::size_t series, std::size_t point) {
  return id.empty() ? std::to_string(series) + "/" + std::to_string(point) : id;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// `ratios`: predicted / measured of each point.
CategoryError summarize(const std::string& category, const std::vector<double>& ratios) {
  std::vector<double> errors;
  for (double r : ratios) errors.push_back(std::abs(r - 1));
  CategoryError e;
  e.category = category;
  e.points = errors.size();
  e.median_abs = median(errors);
  e.max_abs = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
  // A hair of slack so a ratio printed as exactly 10 % or x1.25 counts as within.
  e.within_10 = std::count_if(errors.begin(), errors.end(), [](double x) { return x <= 0.10 + 1e-12; });
  e.within_x125 = std::count_if(ratios.begin(), ratios.end(),
                                [](double r) { return r <= 1.25 + 1e-12 && r >= 0.8 - 1e-12; });
  return e;
}

/// A value as a person reads it: 4 significant digits, a duration key in microseconds.
std::string key_value(const std::string& key, double v) {
  return calibration::is_duration_key(key) ? fmt("%.4g us", v * 1e6) : fmt("%.4g", v);
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

/// "Error per file": points, median and max |error|, within 10 %, A/B pairs holding; a file by its
/// base name (the report's file headers give the paths).
std::string file_table(const std::vector<FileError>& rows) {
  std::size_t w = 18;
  const auto base = [](const std::string& path) { return path.substr(path.find_last_of('/') + 1); };
  for (const FileError& r : rows) w = std::max(w, base(r.error.category).size() + 2);
  std::ostringstream out;
  out << "\nError per file: |predicted / measured - 1|\n"
      << pad("file", w) << lpad("points", 7) << lpad("median", 9) << lpad("max", 9) << lpad("<=10%", 7)
      << lpad("pairs", 7) << "\n";
  for (const FileError& r : rows)
    out << pad(base(r.error.category), w) << lpad(std::to_string(r.error.points), 7)
        << lpad(fmt("%.1f%%", 100 * r.error.median_abs), 9) << lpad(fmt("%.1f%%", 100 * r.error.max_abs), 9)
        << lpad(std::to_string(r.error.within_10), 7)
        << lpad(r.pairs ? std::to_string(r.pairs_holding) + "/" + std::to_string(r.pairs) : "-", 7) << "\n";
  return out.str();
}

}  // namespace

std::vector<CategoryError> category_errors(const std::vector<ValidatedFile>& files) {
  std::map<std::string, std::vector<double>> by;
  std::vector<double> all;
  for (const ValidatedFile& f : files)
    for (const PointCheck& c : f.checks) {
      by[c.category].push_back(c.predicted / c.measured);
      all.push_back(c.predicted / c.measured);
    }
  std::vector<CategoryError> out;
  for (const auto& [category, ratios] : by) out.push_back(summarize(category, ratios));
  out.push_back(summarize("all", all));
  return out;
}

std::vector<FileError> file_errors(const std::vector<ValidatedFile>& files) {
  std::vector<FileError> out;
  for (const ValidatedFile& f : files) {
    if (f.checks.empty()) continue;
    std::vector<double> ratios;
    for (const PointCheck& c : f.checks) ratios.push_back(c.predicted / c.measured);
    FileError e{summarize(f.file, ratios)};
    for (const PairCheck& p : pair_checks({f})) {
      ++e.pairs;
      e.pairs_holding += p.holds ? 1 : 0;
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<PairCheck> pair_checks(const std::vector<ValidatedFile>& files) {
  std::vector<PairCheck> out;
  for (const ValidatedFile& f : files)
    for (const calibration::Pair& pair : f.pairs) {
      const auto find = [&f](const std::string& id) -> const PointCheck* {
        for (const PointCheck& c : f.checks)
          if (c.id == id) return &c;
        return nullptr;
      };
      const PointCheck* a = find(pair.a);
      const PointCheck* b = find(pair.b);
      if (!a || !b) continue;
      PairCheck p{f.file, pair, a->measured / b->measured, a->predicted / b->predicted, false};
      const auto side = [](double ratio, double equal) {
        return ratio > 1 + equal ? 1 : ratio < 1 - equal ? -1 : 0;
      };
      p.holds = side(p.measured, 0) == side(p.predicted, kPairEqual);
      out.push_back(std::move(p));
    }
  return out;
}

std::string validate_text(const std::vector<ValidatedFile>& files, const std::string& cost_model) {
  std::ostringstream out;
  out << "rigsim validate: measured vs predicted (cost model: " << cost_model << ")\n";
  std::size_t w = 24;
  for (const ValidatedFile& f : files)
    for (const PointCheck& c : f.checks) w = std::max(w, name_of(c).size());
  std::vector<const PointCheck*> all;
  for (const ValidatedFile& f : files) {
    out << "\n== " << f.file << (f.rig.empty() ? "" : ": " + f.rig) << "\n   layout " << f.layout << "\n";
    out << pad("point", w) << "  " << pad("category", 17) << pad("metric", 10) << lpad("measured", 10)
        << lpad("predicted", 11) << lpad("error", 9) << "\n";
    for (const PointCheck& c : f.checks) {
      out << pad(name_of(c), w) << "  " << pad(c.category, 17) << pad(c.metric + " " + c.unit, 10)
          << lpad(fmt("%.4g", c.measured), 10) << lpad(fmt("%.4g", c.predicted), 11)
          << lpad(percent(c.error()), 9) << "\n";
      all.push_back(&c);
    }
  }
  out << "\nError per category: |predicted / measured - 1|\n"
      << pad("category", 18) << lpad("points", 7) << lpad("median", 9) << lpad("max", 9) << lpad("<=10%", 7)
      << lpad("<=x1.25", 9) << "\n";
  for (const CategoryError& e : category_errors(files))
    out << pad(e.category, 18) << lpad(std::to_string(e.points), 7)
        << lpad(fmt("%.1f%%", 100 * e.median_abs), 9) << lpad(fmt("%.1f%%", 100 * e.max_abs), 9)
        << lpad(std::to_string(e.within_10), 7) << lpad(std::to_string(e.within_x125), 9) << "\n";
  if (files.size() > 1) out << file_table(file_errors(files));
  std::stable_sort(all.begin(), all.end(), [](const PointCheck* a, const PointCheck* b) {
    return std::abs(std::log(a->predicted / a->measured)) > std::abs(std::log(b->predicted / b->measured));
  });
  if (!all.empty()) out << "\nWorst points (predicted / measured):\n";
  for (std::size_t i = 0; i < std::min<std::size_t>(5, all.size()); ++i)
    out << "  " << name_of(*all[i]) << ": x" << fmt("%.2f", all[i]->predicted / all[i]->measured) << " ("
        << all[i]->category << (all[i]->bottleneck.empty() ? "" : ", limited by " + all[i]->bottleneck)
        << ")\n";
  const std::vector<PairCheck> pairs = pair_checks(files);
  if (!pairs.empty()) {
    const auto holding =
        std::count_if(pairs.begin(), pairs.end(), [](const PairCheck& p) { return p.holds; });
    out << "\nA/B pairs (one rig, one setting changed), a / b: " << holding << " of " << pairs.size()
        << " predicted in the measured direction\n";
    for (const PairCheck& p : pairs)
      out << (p.holds ? "  ok    " : "  WRONG ") << p.pair.a << " vs " << p.pair.b << " (" << p.pair.changed
          << "): measured x" << fmt("%.3f", p.measured) << ", predicted x" << fmt("%.3f", p.predicted)
          << (std::abs(p.predicted - 1) <= kPairEqual ? " (no change)" : "") << "\n";
  }
  return out.str();
}

nlohmann::json validate_json(const std::vector<ValidatedFile>& files, const std::string& cost_model) {
  nlohmann::json out = {{"cost_model", cost_model}, {"files", nlohmann::json::array()}};
  for (const ValidatedFile& f : files) {
    nlohmann::json points = nlohmann::json::array();
    for (const PointCheck& c : f.checks) {
      nlohmann::json p = {{"what", c.what},     {"category", c.category}, {"metric", c.metric},
                          {"unit", c.unit},     {"measured", c.measured}, {"predicted", c.predicted},
                          {"error", c.error()}, {"series", c.series},     {"point", c.point}};
      if (!c.id.empty()) p["id"] = c.id;
      if (!c.bottleneck.empty()) p["bottleneck"] = c.bottleneck;
      if (!c.key.empty()) p["key"] = c.key;
      points.push_back(std::move(p));
    }
    out["files"].push_back(
        {{"file", f.file}, {"layout", f.layout}, {"rig", f.rig}, {"points", std::move(points)}});
  }
  nlohmann::json cats = nlohmann::json::array();
  for (const CategoryError& e : category_errors(files))
    cats.push_back({{"category", e.category},
                    {"points", e.points},
                    {"median_abs_error", e.median_abs},
                    {"max_abs_error", e.max_abs},
                    {"within_10_percent", e.within_10},
                    {"within_x1_25", e.within_x125}});
  out["categories"] = std::move(cats);
  nlohmann::json by_file = nlohmann::json::array();
  for (const FileError& r : file_errors(files))
    by_file.push_back({{"file", r.error.category},
                       {"points", r.error.points},
                       {"median_abs_error", r.error.median_abs},
                       {"max_abs_error", r.error.max_abs},
                       {"within_10_percent", r.error.within_10},
                       {"pairs", r.pairs},
                       {"pairs_holding", r.pairs_holding}});
  out["by_file"] = std::move(by_file);
  nlohmann::json pairs = nlohmann::json::array();
  for (const PairCheck& p : pair_checks(files))
    pairs.push_back({{"file", p.file},
                     {"a", p.pair.a},
                     {"b", p.pair.b},
                     {"changed", p.pair.changed},
                     {"measured_ratio", p.measured},
                     {"predicted_ratio", p.predicted},
                     {"holds", p.holds}});
  out["pairs"] = std::move(pairs);
  return out;
}

Baseline read_baseline(const nlohmann::json& report, const std::string& file) {
  const auto need = [&](const nlohmann::json& j, const char* key, const std::string& at,
                        bool (nlohmann::json::*is)() const, const char* what) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(key) || !(j.at(key).*is)())
      throw InputError(file, at + "/" + key,
                       std::string("expected ") + what + " (a report of rigsim validate --json)");
    return j.at(key);
  };
  Baseline b;
  b.file = file;
  const nlohmann::json& files = need(report, "files", "", &nlohmann::json::is_array, "an array of files");
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string at = "/files/" + std::to_string(i);
    const std::string name =
        need(files[i], "file", at, &nlohmann::json::is_string, "a string").get<std::string>();
    const nlohmann::json& points =
        need(files[i], "points", at, &nlohmann::json::is_array, "an array of points");
    for (std::size_t k = 0; k < points.size(); ++k) {
      const std::string pat = at + "/points/" + std::to_string(k);
      const double error =
          need(points[k], "error", pat, &nlohmann::json::is_number, "a number").get<double>();
      const auto series = need(points[k], "series", pat, &nlohmann::json::is_number_unsigned, "an index");
      const auto point = need(points[k], "point", pat, &nlohmann::json::is_number_unsigned, "an index");
      const std::string id =
          points[k].contains("id") && points[k]["id"].is_string() ? points[k]["id"].get<std::string>() : "";
      b.errors[{name, point_key(id, series.get<std::size_t>(), point.get<std::size_t>())}] = error;
    }
  }
  for (const nlohmann::json& c :
       need(report, "categories", "", &nlohmann::json::is_array, "an array of categories"))
    if (c.is_object() && c.value("category", "") == "all") {
      b.totals.median_abs = c.value("median_abs_error", 0.0);
      b.totals.points = c.value("points", std::size_t{0});
      b.totals.within_10 = c.value("within_10_percent", std::size_t{0});
    }
  if (report.contains("pairs") && report["pairs"].is_array())
    for (const nlohmann::json& p : report["pairs"]) {
      ++b.totals.pairs;
      if (p.is_object() && p.value("holds", false)) ++b.totals.pairs_holding;
    }
  return b;
}

std::vector<MovedPoint> moved_points(const std::vector<ValidatedFile>& files, const Baseline& b) {
  std::vector<MovedPoint> out;
  for (const ValidatedFile& f : files)
    for (const PointCheck& c : f.checks) {
      const auto it = b.errors.find({f.file, point_key(c.id, c.series, c.point)});
      MovedPoint m{f.file, name_of(c), std::nullopt, c.error()};
      if (it != b.errors.end()) {
        if (percent(it->second) == percent(c.error())) continue;  // unchanged as the report prints it
        m.before = it->second;
      }
      out.push_back(std::move(m));
    }
  return out;
}

ValidateTotals validate_totals(const std::vector<ValidatedFile>& files) {
  ValidateTotals t;
  const std::vector<CategoryError> cats = category_errors(files);
  if (!cats.empty()) {
    t.median_abs = cats.back().median_abs;
    t.points = cats.back().points;
    t.within_10 = cats.back().within_10;
  }
  for (const PairCheck& p : pair_checks(files)) {
    ++t.pairs;
    t.pairs_holding += p.holds ? 1 : 0;
  }
  return t;
}

std::string baseline_text(const std::vector<ValidatedFile>& files, const Baseline& b) {
  const ValidateTotals now = validate_totals(files);
  const ValidateTotals& was = b.totals;
  const std::vector<MovedPoint> moved = moved_points(files, b);
  std::ostringstream out;
  out << "\nAgainst the baseline " << b.file << ": " << moved.size() << " of " << now.points
      << " points moved; median |error| " << fmt("%.1f%%", 100 * was.median_abs) << " -> "
      << fmt("%.1f%%", 100 * now.median_abs) << ", within 10 % " << was.within_10 << " of " << was.points
      << " -> " << now.within_10 << " of " << now.points << ", A/B pairs holding " << was.pairs_holding
      << " of " << was.pairs << " -> " << now.pairs_holding << " of " << now.pairs << "\n";
  std::size_t w = 24;
  for (const MovedPoint& m : moved) w = std::max(w, m.point.size());
  std::string file;
  for (const MovedPoint& m : moved) {
    if (m.file != file) out << "  " << (file = m.file) << "\n";
    out << "    " << pad(m.point, w) << lpad(m.before ? percent(*m.before) : "new", 9) << " -> "
        << lpad(percent(m.after), 8) << "\n";
  }
  return out.str();
}

nlohmann::json baseline_json(const std::vector<ValidatedFile>& files, const Baseline& b) {
  const ValidateTotals now = validate_totals(files);
  const ValidateTotals& was = b.totals;
  nlohmann::json moved = nlohmann::json::array();
  for (const MovedPoint& m : moved_points(files, b)) {
    nlohmann::json j = {{"file", m.file}, {"point", m.point}, {"error_after", m.after}};
    j["error_before"] = m.before ? nlohmann::json(*m.before) : nlohmann::json(nullptr);
    moved.push_back(std::move(j));
  }
  return {{"file", b.file},
          {"moved", std::move(moved)},
          {"median_abs_error", {{"before", was.median_abs}, {"after", now.median_abs}}},
          {"within_10_percent", {{"before", was.within_10}, {"after", now.within_10}}},
          {"pairs_holding", {{"before", was.pairs_holding}, {"after", now.pairs_holding}}}};
}

std::string fit_text(const model::FitResult& r, const std::string& layout) {
  std::ostringstream out;
  out << "rigsim calibrate: " << r.before.size() << " points on " << layout << ", " << r.passes << " pass"
      << (r.passes == 1 ? "" : "es") << "\n\n"
      << pad("key", 25) << lpad("start", 11) << lpad("fitted", 11) << lpad("points", 8)
      << lpad("err before", 12) << lpad("after", 8) << "  from\n";
  for (const model::FittedKey& k : r.keys) {
    out << pad(k.key, 25) << lpad(key_value(k.key, k.initial), 11)
        << lpad(k.determined ? key_value(k.key, k.value) : "kept", 11) << lpad(std::to_string(k.points), 8)
        << lpad(fmt("%.1f%%", 100 * k.error_before), 12) << lpad(fmt("%.1f%%", 100 * k.error_after), 8)
        << "  " << join(k.categories) << "\n";
    if (!k.why.empty()) out << "    " << k.why << "\n";
  }
  std::vector<std::string> untouched;
  for (const std::string& key : model::fit_keys())
    if (std::none_of(r.keys.begin(), r.keys.end(), [&](const model::FittedKey& k) { return k.key == key; }))
      untouched.push_back(key);
  if (!untouched.empty())
    out << "\nNot determined by these measurements (defaults kept): " << join(untouched) << "\n";
  out << "\nMedian |error| over all points: " << fmt("%.1f%%", 100 * model::median_abs_error(r.before))
      << " before, " << fmt("%.1f%%", 100 * model::median_abs_error(r.after)) << " after\n";
  return out.str();
}

nlohmann::json profile_json(const model::FitResult& r, const nlohmann::json& rig,
                            const std::vector<std::string>& inputs, const std::string& layout) {
  nlohmann::json out = nlohmann::json::object();
  out["schema"] = std::string(calibration::kProfileSchema);
  out["source"] = "rigsim calibrate";
  out["rig"] = rig;
  nlohmann::json keys = nlohmann::json::object();
  for (const model::FittedKey& k : r.keys) {
    nlohmann::json j = {{"start", k.initial},
                        {"points", k.points},
                        {"categories", k.categories},
                        {"median_abs_error_before", k.error_before},
                        {"median_abs_error_after", k.error_after}};
    if (k.determined) {
      j["fitted"] = k.value;
      out[k.key] = calibration::is_duration_key(k.key) ? nlohmann::json(fmt("%.6gus", k.value * 1e6))
                                                       : nlohmann::json(k.value);
    } else {
      j["kept"] = k.why;
    }
    keys[k.key] = std::move(j);
  }
  nlohmann::json kept = nlohmann::json::array();
  for (const std::string& key : model::fit_keys())
    if (!keys.contains(key)) kept.push_back(key);
  out["fit"] = {{"measurements", inputs},
                {"layout", layout},
                {"passes", r.passes},
                {"median_abs_error_before", model::median_abs_error(r.before)},
                {"median_abs_error_after", model::median_abs_error(r.after)},
                {"keys", std::move(keys)},
                {"not_determined", std::move(kept)}};
  return out;
}

}  // namespace rigsim::report
