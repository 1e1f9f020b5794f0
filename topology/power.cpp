#include "topology/power.hpp"

#include <algorithm>
#include <cmath>

namespace rigsim::topology::power {

std::string window_name(double seconds) {
  if (seconds < 1e-3) return std::to_string(static_cast<int>(std::lround(seconds * 1e6))) + " us";
  return std::to_string(static_cast<int>(std::lround(seconds * 1e3))) + " ms";
}

// PCIe CEM 5.0 card excursion limit as given in Intel's ATX 3.0 design guide (doc 336521 rev 2.1,
// Table 3-1): R = 3 for T <= 100 us, R = 4 - 0.2171 ln(T/us) beyond, so 2.5 at 1 ms, 2.0 at 10 ms,
// 1.5 at 100 ms. The 3x at 100 us is Intel's own statement ("exceed the maximum sustained power of the
// card by 3x ... for 100 micro-seconds", tweaktown.com/news/85717); the curve is seen through a
// secondary source (docs/research/power-transients.md, "Spec envelope").
double cem5_envelope(double seconds) {
  const double us = seconds * 1e6;
  if (us <= 100) return 3.0;
  return std::max(1.0, 4.0 - 0.2171 * std::log(us));
}

namespace {

// Measured peaks per generation, as multiples of the card's rated power, at 100 us / 1 ms / 10 ms /
// 100 ms (rows G1-G10 of docs/research/power-transients.md); a bin of pulses lasting a..b counts at the
// shortest window not shorter than a (the higher figure where two bins meet there). Where nothing was
// measured at a window, the next shorter window's figure carries over (a load held longer does not peak
// higher: every measured series falls with duration), capped by the CEM 5.0 envelope at that window; a window
// with nothing shorter measured takes the envelope.
constexpr double kUnmeasured = -1;

struct Profile {
  PowerTransients profile;
  std::array<double, 4> measured;  // kUnmeasured where no published figure covers the window
  std::string_view source;
};

const Profile kProfiles[] = {
    {PowerTransients::Cem5Envelope,
     {kUnmeasured, kUnmeasured, kUnmeasured, kUnmeasured},
     "no published transient measurement: the PCIe CEM 5.0 excursion envelope"},
    // 3080: ~600 W peaks on 320 W before NVIDIA's driver mitigation, ~520 W after = 1.625 (igor'sLAB via
    // a research note); the post-fix 3090 ~1.625. Both in the note's 100 us class.
    {PowerTransients::GeforceAmpere,
     {520.0 / 320.0, kUnmeasured, kUnmeasured, kUnmeasured},
     "measured on the RTX 3080/3090 with current drivers (igor'sLAB)"},
    // 3090 Ti: ~580 W peaks on 450 W, "the first card designed to the excursion spec" (igor'sLAB via the
    // same note).
    {PowerTransients::Geforce3090Ti,
     {580.0 / 450.0, kUnmeasured, kUnmeasured, kUnmeasured},
     "measured on the RTX 3090 Ti (igor'sLAB)"},
    // 4090 (450 W reference): 638.24 W at 1 ms readings (Powenetics, hwbusters.com RTX 4090 power
    // analysis, OC run); 20 ms averages capped at 38-39 A, ~468 W (igor'sLAB via the note). Nothing
    // resolves pulses under 1 ms.
    {PowerTransients::GeforceAda,
     {kUnmeasured, 638.24 / 450.0, kUnmeasured, 468.0 / 450.0},
     "measured on the RTX 4090 at 1 ms and 20 ms (hwbusters, igor'sLAB); under 1 ms the CEM 5.0 envelope"},
    // 5090 FE (575 W): 901.1 W under 1 ms, 823.6 W for 1-5 ms, 738.2 W for 5-10 ms (igor'sLAB via
    // SlashGear/TechPowerUp); 627.5 W for 10-20 ms and 659 W lasting 0.1 s or more (Tom's Hardware,
    // Powenetics): the higher one at 100 ms.
    {PowerTransients::GeforceBlackwell,
     {901.1 / 575.0, 823.6 / 575.0, 738.2 / 575.0, 659.0 / 575.0},
     "measured on the RTX 5090 (igor'sLAB, Tom's Hardware)"},
};

const Profile& profile_of(PowerTransients p) {
  for (const Profile& row : kProfiles)
    if (row.profile == p) return row;
  return kProfiles[0];
}

}  // namespace

double gpu_transient_factor(PowerTransients profile, std::size_t window) {
  const auto& measured = profile_of(profile).measured;
  double factor = kUnmeasured;
  for (std::size_t w = 0; w <= window; ++w) {
    const double envelope = cem5_envelope(kWindowsS.at(w));
    if (measured.at(w) != kUnmeasured)
      factor = measured[w];
    else
      factor = factor == kUnmeasured ? envelope : std::min(factor, envelope);
  }
  return factor;
}

std::string_view gpu_transient_source(PowerTransients profile) {
  return profile_of(profile).source;
}

std::string_view to_string(PsuKind k) {
  switch (k) {
    case PsuKind::Atx3:
      return "atx3";
    case PsuKind::Atx3No12vhpwr:
      return "atx3-no-12vhpwr";
    case PsuKind::Atx2:
      return "atx2";
    case PsuKind::Server:
      return "server";
  }
  return "unknown";
}

std::string_view describe(PsuKind k) {
  switch (k) {
    case PsuKind::Atx3:
      return "ATX 3.x";
    case PsuKind::Atx3No12vhpwr:
      return "ATX 3.x (no 12VHPWR)";
    case PsuKind::Atx2:
      return "ATX 2.x";
    case PsuKind::Server:
      return "server";
  }
  return "unknown";
}

double psu_transient_factor(PsuKind kind, double unit_w, std::size_t window) {
  // ATX 3.x power excursion table (Intel design guide Table 3-3, as printed in the ATX12VO guide
  // 613768): PSUs over 450 W with a 12VHPWR connector 200/180/160/120 %, PSUs of 450 W or less or
  // without one 150/145/135/110 %, at 100 us / 1 ms / 10 ms / 100 ms.
  static constexpr std::array<double, 4> kAtx3 = {2.0, 1.8, 1.6, 1.2};
  static constexpr std::array<double, 4> kAtx3Small = {1.5, 1.45, 1.35, 1.1};
  // ATX 2.x promises no excursion: peak rail currents 1.14-1.25x for up to 17 s (ATX12V 2.0 Table 6),
  // and the lowest measured over-power trip of a unit is 124.77 % (hwbusters, Toughpower PT 850).
  static constexpr std::array<double, 4> kAtx2 = {1.25, 1.25, 1.25, 1.25};
  // Intel server PSU modules (P4000 family TPS): 1.40x for 3 ms pulses at any input voltage (750 W
  // module, 1050 W peaks), 175 A on 133 A = 1.32x for 20 s or more (1600 W module).
  static constexpr std::array<double, 4> kServer = {1.40, 1.40, 1.32, 1.32};
  switch (kind) {
    case PsuKind::Atx3:
      return unit_w <= 450 ? kAtx3Small.at(window) : kAtx3.at(window);
    case PsuKind::Atx3No12vhpwr:
      return kAtx3Small.at(window);
    case PsuKind::Atx2:
      return kAtx2.at(window);
    case PsuKind::Server:
      return kServer.at(window);
  }
  return 1.0;
}

}  // namespace rigsim::topology::power
