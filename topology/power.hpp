// Power-supply checks of a layout: the sustained load and the load peaks ("transients") of GPUs against
// what each kind of PSU carries for the same length of time. Every factor and its source is in
// power.cpp; the measurements behind them are gathered in docs/research/power-transients.md.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "topology/catalog.hpp"

namespace rigsim::topology::power {

/// Everything that is not a GPU or CPU (board, drives, fans, memory), W.
/// Source: Intel's ATX 3.0 sizing example "300 W GPU + 300 W CPU + 150 W rest" (tweaktown.com/news/85717).
inline constexpr double kRestOfSystemW = 150.0;

/// The load durations checked: those of the ATX 3.x power-excursion table (100 us, 1 ms, 10 ms, 100 ms).
inline constexpr std::array<double, 4> kWindowsS = {100e-6, 1e-3, 10e-3, 100e-3};

/// "100 us", "1 ms", ...
std::string window_name(double seconds);

/// The PCIe CEM 5.0 excursion envelope: the multiple of its rated power a card may draw for `seconds`
/// (3 up to 100 us, then 4 - 0.2171 ln(T / 1 us), down to 1 at about 1 s).
double cem5_envelope(double seconds);

/// Peak draw over a load of `window` (one of kWindowsS) as a multiple of the card's rated power.
double gpu_transient_factor(PowerTransients profile, std::size_t window);
/// Where that figure comes from, for the warning ("measured on the RTX 5090 ...").
std::string_view gpu_transient_source(PowerTransients profile);

/// What kind of supply a layout has.
enum class PsuKind { Atx3, Atx3No12vhpwr, Atx2, Server };
inline constexpr PsuKind kPsuKinds[] = {PsuKind::Atx3, PsuKind::Atx3No12vhpwr, PsuKind::Atx2,
                                        PsuKind::Server};
std::string_view to_string(PsuKind k);  // "atx3", "atx3-no-12vhpwr", "atx2", "server"
std::string_view describe(PsuKind k);   // "ATX 3.x", ...

/// How many times its rating a supply of this kind carries for a load of `window` (one of kWindowsS).
/// An ATX 3.x unit of 450 W or less falls in the spec's lower column whatever its connector.
double psu_transient_factor(PsuKind kind, double unit_w, std::size_t window);

}  // namespace rigsim::topology::power
