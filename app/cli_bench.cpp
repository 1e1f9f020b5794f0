// placeholder until the collectives land: `rigsim bench` is registered here.
#include "app/cli.hpp"
namespace rigsim::app {
void add_bench(CLI::App&, Action&) {}
}  // namespace rigsim::app
