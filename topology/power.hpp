// Power-supply rules of thumb used for layout warnings, with their sources
// (reference hardware.md §1.4).
#pragma once

namespace rigsim::topology::power {

/// Everything that is not a GPU or CPU (board, drives, fans, memory), W.
/// Source: Intel's ATX 3.0 sizing example "300 W GPU + 300 W CPU + 150 W rest" (tweaktown.com/news/85717).
inline constexpr double kRestOfSystemW = 150.0;

/// A GPU may draw up to 3x its rated power for 100 us.
/// Source: PCI-SIG CEM 5.0 / ATX 3.0 power excursion envelope (tweaktown.com/news/85717).
inline constexpr double kGpuTransientFactor = 3.0;

/// An ATX 3.0 PSU must carry 200 % of its rating for 100 us.
/// Source: ATX 3.0 specification as quoted by Intel (tweaktown.com/news/85717; forumsguide.net).
inline constexpr double kPsuTransientFactor = 2.0;

}  // namespace rigsim::topology::power
