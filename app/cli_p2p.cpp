// placeholder until the simulation engine lands: `rigsim p2p` is registered here.
#include "app/cli.hpp"
namespace rigsim::app {
void add_p2p(CLI::App&, Action&) {}
}  // namespace rigsim::app
