// Parses the command line and runs the chosen subcommand, mapping errors to the documented exit
// codes (docs/tool.md). Shared by the tool and the test drivers that carry a subset of commands.
#pragma once
#include "command.hpp"

namespace ctrl::tool {

int dispatch(CLI::App& app, const action& run, int argc, char** argv);

}  // namespace ctrl::tool
