// `rigsim compare` reports: layouts ranked by training throughput for one workload.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "report/training.hpp"

namespace rigsim::report {
namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

/// "dp8 tp1 pp1" of a plan description (the rest of the plan is the same on every row: the title has it).
std::string degrees(const std::string& plan) {
  std::size_t cut = 0;
  for (int words = 0; words < 3 && cut != std::string::npos; ++words) cut = plan.find(' ', cut + 1);
  return plan.substr(0, cut);
}

int tier(const CompareRow& r) {
  if (!r.result) return 2;
  return r.result->fits ? 0 : 1;
}

double per_kusd(const CompareRow& r) {
  return r.result && r.price_usd > 0 ? r.result->tokens_per_s / (r.price_usd / 1000.0) : 0;
}

}  // namespace

void compare_rank(std::vector<CompareRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const CompareRow& a, const CompareRow& b) {
    if (tier(a) != tier(b)) return tier(a) < tier(b);
    if (!a.result) return a.layout < b.layout;
    return a.result->tokens_per_s > b.result->tokens_per_s;
  });
}

std::string compare_text(const std::string& title, const std::vector<CompareRow>& rows) {
  std::ostringstream out;
  out << title << "\n\n";
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-4s %-30s %4s %-12s %10s %9s %6s %5s %11s  %s\n", "#", "layout", "gpus",
                "dp tp pp", "step s", "tokens/s", "MFU %", "fits", "tok/s/k$", "busiest link");
  out << buf;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CompareRow& r = rows[i];
    if (!r.result) {
      std::snprintf(buf, sizeof buf, "%-4zu %-30s %4d  cannot run: %s\n", i + 1, r.layout.c_str(), r.gpus,
                    r.error.c_str());
      out << buf;
      continue;
    }
    const auto& t = *r.result;
    std::snprintf(buf, sizeof buf, "%-4zu %-30s %4d %-12s %10.3f %9.0f %6.1f %5s %11s  %s\n", i + 1,
                  r.layout.c_str(), r.gpus, degrees(r.plan).c_str(), t.step_time_s, t.tokens_per_s,
                  100 * t.mfu, t.fits ? "yes" : "NO",
                  r.price_usd > 0 ? fmt("%.0f", per_kusd(r)).c_str() : "-", r.bottleneck.c_str());
    out << buf;
  }
  out << "\nRanked by tokens/s among the layouts where the step fits in GPU memory, then those where it "
         "does\n"
         "not (their times are what the step would take with enough memory). tok/s/k$: tokens/s per 1,000 "
         "USD\n"
         "of GPUs at the catalog's used prices (or the layout's own price).\n";
  out << "\nWhy:\n";
  for (const CompareRow& r : rows) {
    if (!r.result) continue;
    out << "  " << r.layout << ": " << r.why << "\n";
    for (const auto& n : r.notes) out << "    note: " << n << "\n";
  }
  return out.str();
}

nlohmann::json compare_json(const std::string& title, const std::vector<CompareRow>& rows) {
  using nlohmann::json;
  json j;
  j["title"] = title;
  j["rows"] = json::array();
  for (const CompareRow& r : rows) {
    json row{{"layout", r.layout}, {"file", r.file}, {"gpus", r.gpus}, {"plan", r.plan}, {"notes", r.notes}};
    if (!r.result) {
      row["error"] = r.error;
    } else {
      row["step_time_s"] = r.result->step_time_s;
      row["tokens_per_s"] = r.result->tokens_per_s;
      row["mfu"] = r.result->mfu;
      row["fits"] = r.result->fits;
      row["bottleneck"] = r.bottleneck;
      row["why"] = r.why;
      if (r.price_usd > 0) {
        row["price_usd"] = r.price_usd;
        row["price_source"] = r.price_source;
        row["tokens_per_s_per_kusd"] = per_kusd(r);
      }
    }
    j["rows"].push_back(row);
  }
  return j;
}

}  // namespace rigsim::report
