#include "platform_choice.hpp"

#include "command.hpp"
#include "dispatch.hpp"

#include <ctrl/loop/selection.hpp>

#if CTRL_HAVE_MPI
#include "distributed/communicator.hpp"
#include "distributed/distributed_team.hpp"
#endif

#include <ctrl/errors.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace ctrl::tool {

namespace {

#if CTRL_HAVE_MPI
std::unique_ptr<distributed::Communicator> comm;

distributed::Communicator& communicator(double timeout_s) {
  if (!comm) {
    if (!(timeout_s > 0)) throw exit_error(exit_bad_input, fmt::format("--rank-timeout {}: a positive number of seconds is needed", timeout_s));
    comm = std::make_unique<distributed::Communicator>(timeout_s);
    error_prefix = [] { return comm && comm->size() > 1 ? comm->who() + ": " : std::string(); };
    // An error this rank alone has ends the whole job, so that no rank waits for this one; an
    // Agreed error is every rank's, and they leave together.
    before_error = [](const std::exception& e, int code) {
      if (comm && comm->size() > 1 && dynamic_cast<const loop::Agreed*>(&e) == nullptr) comm->abort(code, e.what());
    };
    // One report per job: the other ranks keep stderr for their errors only.
    if (comm->rank() != 0 && std::freopen("/dev/null", "w", stdout) == nullptr) std::fputs("ctrl: cannot silence stdout\n", stderr);
  }
  return *comm;
}

// Raises on every rank the errors some ranks have (the same message everywhere).
void agree(distributed::Communicator& c, const std::string& error, const char* what) {
  const std::string all = c.describe_errors(c.allgather(error, what), {});
  if (!all.empty()) throw loop::AgreedUsageError(all);
}
#endif

}  // namespace

void PlatformArgs::add_to(CLI::App* cmd) {
  cmd->add_option("--selection", selection,
                  "A device-selection file: run on every rank of the MPI job that started ctrl, each with its devices "
                  "(docs/distributed.md)");
  cmd->add_option("--rank-timeout", rank_timeout, "In an MPI job: the longest wait for another rank at any step, s")
      ->capture_default_str();
}

bool PlatformArgs::distributed(bool devices_given) const {
  if (!selection.empty() && devices_given)
    throw exit_error(exit_bad_input, "give the processors either with --device or with --selection, not both");
#if CTRL_HAVE_MPI
  const int world = distributed::launcher_world_size();
  if (selection.empty() && distributed::under_mpi_launcher() && world > 1)
    throw exit_error(exit_bad_input, fmt::format("started by an MPI launcher with {} ranks: give --selection FILE (each "
                                                 "rank's devices; `ctrl devices --write-selection FILE` writes one)",
                                                 world));
  return !selection.empty();
#else
  if (!selection.empty())
    throw exit_error(exit_bad_input, "--selection: this ctrl was built without MPI (install OpenMPI and rebuild)");
  return false;
#endif
}

std::unique_ptr<loop::Platform> open_platform(const PlatformArgs& args, const std::vector<DeviceSpec>& devices,
                                                   const loop::TeamOptions& options,
                                                   const std::vector<std::string>* order) {
  if (!args.distributed(!devices.empty())) return std::make_unique<loop::Team>(devices, options);
#if CTRL_HAVE_MPI
  auto& c = communicator(args.rank_timeout);
  // Rank 0 reads the file (the nodes need not share a file system) and sends it to every rank.
  std::string text, error;
  if (c.rank() == 0) {
    try {
      text = loop::read_selection(args.selection).text();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  c.broadcast(error, "reading the selection");
  if (!error.empty()) throw loop::AgreedUsageError(error);
  c.broadcast(text, "sending the selection");
  std::vector<DeviceSpec> mine;
  try {
    const loop::Selection sel = loop::parse_selection(text, args.selection);
    for (const auto& d : sel.devices_for(c.rank(), c.host()))
      if (order == nullptr ||
          std::find(order->begin(), order->end(), loop::processor_name(c.host(), d)) != order->end())
        mine.push_back(d);
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree(c, error, "reading each rank's devices");
  return std::make_unique<distributed::DistributedTeam>(c, mine, options, order);
#else
  (void)order;
  (void)options;
  throw exit_error(exit_bad_input, "--selection: this ctrl was built without MPI");
#endif
}

#if CTRL_HAVE_MPI
namespace {
struct agreed_exit_error : exit_error, loop::Agreed {
  using exit_error::exit_error;
};
}  // namespace
#endif

std::string from_root(const PlatformArgs& args, bool distributed, const std::function<std::string()>& make) {
  if (!distributed) return make();
#if CTRL_HAVE_MPI
  auto& c = communicator(args.rank_timeout);
  std::string text, error = "0";
  if (c.rank() == 0) {
    try {
      text = make();
    } catch (const exit_error& e) {
      error = fmt::format("{}{}", e.code, e.what());
    } catch (const UsageError& e) {
      error = fmt::format("{}{}", static_cast<int>(exit_bad_input), e.what());
    } catch (const std::exception& e) {
      error = fmt::format("{}{}", static_cast<int>(exit_failure), e.what());
    }
  }
  c.broadcast(error, "sharing rank 0's plan");
  if (error != "0") throw agreed_exit_error(error.front() - '0', error.substr(1));
  c.broadcast(text, "sharing rank 0's plan");
  return text;
#else
  (void)args;
  return make();
#endif
}

void agree_on_problem(const PlatformArgs& args, bool distributed, const std::string& problem) {
  if (!distributed) return;
#if CTRL_HAVE_MPI
  auto& c = communicator(args.rank_timeout);
  std::string root = problem;
  c.broadcast(root, "comparing every rank's application and inputs");
  const std::string error =
      root == problem ? std::string()
                      : fmt::format("started with '{}', but rank 0 with '{}': every rank must be given the same "
                                    "application and inputs",
                                    problem, root);
  agree(c, error, "comparing every rank's application and inputs");
#else
  (void)args;
  (void)problem;
#endif
}

std::vector<std::string> gather_across_ranks(const std::string& mine, double timeout_s) {
#if CTRL_HAVE_MPI
  if (distributed::under_mpi_launcher() && distributed::launcher_world_size() > 1)
    return communicator(timeout_s).allgather(mine, "gathering every rank's machine");
#endif
  (void)timeout_s;
  return {mine};
}

int this_rank() {
#if CTRL_HAVE_MPI
  if (comm) return comm->rank();
#endif
  return 0;
}

void finish_distributed() {
#if CTRL_HAVE_MPI
  error_prefix = nullptr;
  before_error = nullptr;
  comm.reset();
#endif
}

}  // namespace ctrl::tool
