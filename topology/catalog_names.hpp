// Catalog keys from the names machines report: CUDA's GPU names ("NVIDIA GeForce RTX 4090") and
// /proc/cpuinfo or hwloc CPU model strings ("AMD EPYC 7543 32-Core Processor"). Used by the probe and
// the importers, so a layout sketch names the same parts whichever way the machine was read.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rigsim::topology {

/// The catalog key of a CPU model name ("AMD EPYC 7543 32-Core Processor" -> epyc-7003), by the
/// vendors' numbering rules; nullopt for a family the catalog lacks.
std::optional<std::string> cpu_key_from_name(const std::string& model_name);
/// The catalog CPUs whose CPUID family and model (catalog cpuid_family / cpuid_model) are these, in
/// catalog order: for a machine whose model name names no part (a VM's "Intel(R) Xeon(R) Processor").
/// Several where product lines share a model number (6/85: Skylake-SP, Cascade Lake-SP and X299).
std::vector<std::string> cpu_keys_from_cpuid(int family, int model);
/// The catalog key of a GPU name ("NVIDIA GeForce RTX 4090" -> rtx-4090): the catalog entry whose
/// name's words all appear in it (memory size and form factor only when the name states them), the
/// most specific one when several do; nullopt when none or an ambiguous tie.
std::optional<std::string> gpu_key_from_name(const std::string& name);

}  // namespace rigsim::topology
