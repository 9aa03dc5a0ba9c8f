#include "mpi/distributed_team.hpp"

#include "mpi/processor_codec.hpp"
#include <ctrl/loop/selection.hpp>

#include <ctrl/io/npy.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace ctrl::loop::mpi {

using loop::Block;
using loop::Check;
using loop::ProcessorInfo;
using loop::RoundResult;
using nlohmann::json;

namespace {

std::vector<json> parse_all(const std::vector<std::string>& texts) {
  std::vector<json> out;
  for (const auto& t : texts) out.push_back(json::parse(t));
  return out;
}

std::vector<std::string> errors_of(const std::vector<json>& all) {
  std::vector<std::string> out;
  for (const auto& j : all) out.push_back(j.value("error", std::string()));
  return out;
}

}  // namespace

DistributedTeam::DistributedTeam(Communicator& comm, const std::vector<DeviceSpec>& mine, loop::TeamOptions options,
                                 const std::vector<std::string>* order)
    : comm_(comm) {
  json me{{"host", comm_.host()}, {"error", ""}, {"usage", false}};
  try {
    if (!mine.empty()) team_ = std::make_unique<loop::Team>(mine, options);
    json procs = json::array(), cores = json::array();
    if (team_)
      for (std::size_t k = 0; k < team_->size(); ++k) {
        procs.push_back(encode(team_->info(k)));
        cores.push_back(mine[k].on_cores() ? loop::spec_cores(mine[k]) : std::vector<int>{});
      }
    me["processors"] = procs;
    me["cores"] = cores;
    me["round"] = team_ ? team_->round_seconds() : 0.0;
  } catch (const UsageError& e) {
    me["error"] = e.what();
    me["usage"] = true;
  } catch (const std::exception& e) {
    me["error"] = e.what();
  }
  const auto all = parse_all(comm_.allgather(me.dump(), "comparing the ranks' devices"));
  for (const auto& j : all) hosts_.push_back(j.at("host").get<std::string>());
  bool usage = false;
  for (const auto& j : all) usage |= j.at("usage").get<bool>();
  raise_if_any(errors_of(all), usage);

  // Every rank's processors, named HOST/DEVICE, in rank order.
  std::vector<std::vector<int>> cores;
  std::vector<std::vector<std::size_t>> index_of(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) {
    round_s_ = std::max(round_s_, all[r].at("round").get<double>());
    const auto& procs = all[r].at("processors");
    for (std::size_t k = 0; k < procs.size(); ++k) {
      ProcessorInfo p = decode_processor(procs[k]);
      p.name = loop::processor_name(hosts_[r], p.spec);
      index_of[r].push_back(infos_.size());
      infos_.push_back(std::move(p));
      owner_.push_back(static_cast<int>(r));
      slot_.push_back(k);
      cores.push_back(all[r].at("cores")[k].get<std::vector<int>>());
    }
  }
  if (infos_.empty() && order == nullptr)
    throw loop::AgreedUsageError("no processors: the selection gives no rank any device");

  // Two ranks on one host must not share a core or a device, nor attribute one meter to both.
  for (std::size_t a = 0; a < infos_.size(); ++a)
    for (std::size_t b = a + 1; b < infos_.size(); ++b) {
      if (owner_[a] == owner_[b] || hosts_[owner_[a]] != hosts_[owner_[b]]) continue;
      const auto& ca = cores[a];
      const bool shared_core = std::any_of(ca.begin(), ca.end(), [&](int c) {
        return std::find(cores[b].begin(), cores[b].end(), c) != cores[b].end();
      });
      if (shared_core || (!infos_[a].spec.on_cores() && infos_[a].spec == infos_[b].spec))
        throw loop::AgreedUsageError(fmt::format(
            "{} of rank {} and {} of rank {} are the same cores or device of host {}: every processor needs its own "
            "(give each rank its own devices in the selection, with 'rank N:' lines)",
            infos_[a].spec.str(), owner_[a], infos_[b].spec.str(), owner_[b], hosts_[owner_[a]]));
      if (infos_[a].has_energy() && infos_[a].energy_source == infos_[b].energy_source)
        for (const std::size_t x : {a, b}) {
          const std::size_t y = x == a ? b : a;
          const std::string why = fmt::format("no sensor of its own: {} also measures {} (rank {})",
                                              infos_[x].energy_source, infos_[y].name, owner_[y]);
          if (owner_[x] == comm_.rank()) team_->drop_meter(slot_[x], why);
          loop::mark_energy_absent(infos_[x], why);
        }
    }

  if (order != nullptr) {  // the caller's order of processors (a front's)
    std::map<std::string, std::size_t> by_name;
    for (std::size_t i = 0; i < infos_.size(); ++i) by_name[infos_[i].name] = i;
    std::vector<std::size_t> perm;
    std::string missing;
    for (const auto& n : *order) {
      const auto it = by_name.find(n);
      if (it == by_name.end())
        missing += (missing.empty() ? "" : ", ") + n;
      else
        perm.push_back(it->second);
    }
    if (!missing.empty())
      throw loop::AgreedUsageError(fmt::format(
          "no rank has {} in its selection (it names processors HOST/DEVICE: the host of the rank and a device of its "
          "line)",
          missing));
    if (perm.size() != infos_.size())
      throw loop::AgreedUsageError("the selection gives the ranks processors that the distribution does not name");
    std::vector<ProcessorInfo> infos;
    std::vector<int> owner;
    std::vector<std::size_t> slot;
    for (const std::size_t i : perm) {
      infos.push_back(infos_[i]);
      owner.push_back(owner_[i]);
      slot.push_back(slot_[i]);
    }
    infos_ = std::move(infos);
    owner_ = std::move(owner);
    slot_ = std::move(slot);
  }
  mine_.assign(team_ ? team_->size() : 0, 0);
  for (std::size_t i = 0; i < infos_.size(); ++i)
    if (owner_[i] == comm_.rank()) mine_[slot_[i]] = i;
}

DistributedTeam::~DistributedTeam() = default;

std::vector<DeviceSpec> DistributedTeam::local_devices() const {
  std::vector<DeviceSpec> out;
  for (std::size_t i = 0; i < infos_.size(); ++i)
    if (owner_[i] == comm_.rank()) out.push_back(infos_[i].spec);
  return out;
}

void DistributedTeam::raise_if_any(const std::vector<std::string>& errors, bool usage) const {
  const std::string text = comm_.describe_errors(errors, hosts_);
  if (text.empty()) return;
  if (usage) throw loop::AgreedUsageError(text);
  throw loop::AgreedDeviceError(text);
}

int DistributedTeam::batch_for(double run_s) const { return loop::runs_to_fill(round_s_, run_s); }

void DistributedTeam::require_one_block_each(const std::vector<Block>& blocks) const {
  if (blocks.size() != infos_.size())
    throw UsageError(fmt::format("a round needs one block per processor: {} blocks for {} processors", blocks.size(),
                                 infos_.size()));
}

std::vector<Block> DistributedTeam::local_blocks(const std::vector<Block>& blocks) const {
  require_one_block_each(blocks);
  std::vector<Block> out;
  for (const std::size_t g : mine_) out.push_back(blocks[g]);
  return out;
}

RoundResult DistributedTeam::run(loop::Problem& problem, const std::vector<Block>& blocks, int batch) {
  return round(problem, blocks, std::max(batch, 1), 0.0);
}

RoundResult DistributedTeam::fill(loop::Problem& problem, const std::vector<Block>& blocks, double seconds) {
  return round(problem, blocks, 0, seconds);
}

RoundResult DistributedTeam::round(loop::Problem& problem, const std::vector<Block>& blocks, int batch,
                                   double seconds) {
  const std::vector<Block> mine = local_blocks(blocks);
  comm_.barrier("starting a round");  // the common start of every rank's processors
  json me{{"error", ""}};
  try {
    if (team_) me["round"] = encode(batch > 0 ? team_->run(problem, mine, batch) : team_->fill(problem, mine, seconds));
  } catch (const std::exception& e) {
    me["error"] = e.what();
  }
  const auto all = parse_all(comm_.allgather(me.dump(), "gathering a round's results"));
  raise_if_any(errors_of(all), false);
  RoundResult r;
  const std::size_t n = infos_.size();
  r.batch = std::max(batch, 1);
  r.runs.assign(n, 0);
  r.time_s.assign(n, 0.0);
  r.dynamic_j.assign(n, std::nullopt);
  std::vector<RoundResult> parts(all.size());
  for (std::size_t rk = 0; rk < all.size(); ++rk)
    if (all[rk].contains("round")) {
      parts[rk] = decode_round(all[rk].at("round"));
      r.wall_s = std::max(r.wall_s, parts[rk].wall_s);
      r.window_s = std::max(r.window_s, parts[rk].window_s);
    }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& part = parts[static_cast<std::size_t>(owner_[i])];
    r.runs[i] = part.runs.at(slot_[i]);
    r.time_s[i] = part.time_s.at(slot_[i]);
    r.dynamic_j[i] = part.dynamic_j.at(slot_[i]);
  }
  return r;
}

void DistributedTeam::set_base_power(std::size_t i, double watts, std::string origin) {
  if (owner_.at(i) == comm_.rank()) team_->set_base_power(slot_[i], watts, origin);
  infos_[i].base_power_w = watts;
  infos_[i].base_power_origin = std::move(origin);
}

std::vector<std::string> DistributedTeam::measure_base_power(double seconds) {
  comm_.barrier("starting the idle measurement");  // every device idle at once
  json me{{"error", ""}};
  try {
    json base = json::array();
    const auto lines = team_ ? team_->measure_base_power(seconds) : std::vector<std::string>{};
    if (team_)
      for (std::size_t k = 0; k < team_->size(); ++k) base.push_back(encode(team_->info(k)));
    me["lines"] = lines;
    me["processors"] = base;
  } catch (const std::exception& e) {
    me["error"] = e.what();
  }
  const auto all = parse_all(comm_.allgather(me.dump(), "gathering base powers"));
  raise_if_any(errors_of(all), false);
  std::vector<std::string> lines;
  for (std::size_t rk = 0; rk < all.size(); ++rk)
    for (const auto& l : all[rk].at("lines")) lines.push_back(hosts_[rk] + "/" + l.get<std::string>());
  for (std::size_t i = 0; i < infos_.size(); ++i) {
    const auto p = decode_processor(all[static_cast<std::size_t>(owner_[i])].at("processors").at(slot_[i]));
    infos_[i].base_power_w = p.base_power_w;
    infos_[i].base_power_origin = p.base_power_origin;
  }
  return lines;
}

std::unique_ptr<loop::Problem> DistributedTeam::make_problem(const loop::Workload& app,
                                                             const std::vector<Block>& extent, index_t cols,
                                                             std::uint64_t seed) {
  // This rank's window: from its first processor's first row to its last one's last.
  index_t lo = 0, hi = 0;
  bool any = false;
  for (const Block& b : local_blocks(extent)) {
    if (b.empty()) continue;
    lo = any ? std::min(lo, b.begin) : b.begin;
    hi = any ? std::max(hi, b.end) : b.end;
    any = true;
  }
  std::unique_ptr<loop::Problem> problem;
  json me{{"error", ""}};
  try {
    if (app.blocks_meet() && comm_.size() > 1)
      throw UsageError(fmt::format("{} {}, which must run in one process: run it without mpirun (docs/distributed.md)",
                                   app.name(),
                                   app.exchanges_halos() ? "exchanges halos between neighbouring blocks"
                                                         : "redistributes its data between the blocks of a run"));
    problem = app.make_problem(hi - lo, cols, std::max<std::size_t>(mine_.size(), 1), seed, lo);
  } catch (const std::exception& e) {
    me["error"] = fmt::format("{} rows of {}: {}", hi - lo, app.name(), e.what());
  }
  raise_if_any(errors_of(parse_all(comm_.allgather(me.dump(), "preparing the ranks' arrays"))), false);
  return problem;
}

Check DistributedTeam::verify(const loop::Problem& problem, const std::vector<Block>& blocks) {
  json me{{"error", ""}};
  try {
    me["check"] = encode(problem.verify(local_blocks(blocks)));
  } catch (const std::exception& e) {
    me["error"] = e.what();
  }
  const auto all = parse_all(comm_.allgather(me.dump(), "gathering the checks"));
  raise_if_any(errors_of(all), false);
  Check out;
  for (std::size_t rk = 0; rk < all.size(); ++rk) {
    const Check c = decode_check(all[rk].at("check"));
    if (out.method.empty() || c.rows_checked > 0) out.method = c.method.empty() ? out.method : c.method;
    out.ok = out.ok && c.ok;
    out.worst = std::max(out.worst, c.worst);
    out.rows_checked += c.rows_checked;
    if (!c.ok)
      out.detail += (out.detail.empty() ? "" : "; ") + comm_.who(static_cast<int>(rk), hosts_[rk]) + ": " + c.detail;
  }
  return out;
}

void DistributedTeam::write_output(const loop::Problem& problem, const std::vector<Block>& blocks,
                                   const std::string& path) {
  // Every rank sends its blocks' rows in processor order; the root puts them in place.
  require_one_block_each(blocks);
  std::vector<std::byte> mine;
  std::size_t rows = 0;
  for (std::size_t i = 0; i < infos_.size(); ++i)
    if (owner_[i] == comm_.rank() && !blocks[i].empty()) {
      const auto bytes = problem.output_bytes(blocks[i]);
      mine.insert(mine.end(), bytes.begin(), bytes.end());
      rows += static_cast<std::size_t>(blocks[i].rows());
    }
  const std::size_t row_bytes =
      static_cast<std::size_t>(problem.cols()) * npy::detail::find_dtype(problem.output_dtype())->itemsize;
  std::vector<std::size_t> per_rank;
  const std::vector<std::byte> all = comm_.gather_rows(mine, rows, row_bytes, per_rank, "gathering the outputs");
  std::string error;
  if (is_root()) {
    try {
      std::vector<std::size_t> cursor(per_rank.size(), 0);  // rows taken from each rank's part
      std::vector<std::size_t> start(per_rank.size(), 0);
      for (std::size_t r = 1; r < per_rank.size(); ++r) start[r] = start[r - 1] + per_rank[r - 1];
      std::vector<std::byte> ordered;
      ordered.reserve(all.size());
      index_t total = 0;
      for (std::size_t i = 0; i < infos_.size(); ++i) {
        if (blocks[i].empty()) continue;
        const auto r = static_cast<std::size_t>(owner_[i]);
        const auto n = static_cast<std::size_t>(blocks[i].rows());
        const auto at = all.begin() + static_cast<std::ptrdiff_t>((start[r] + cursor[r]) * row_bytes);
        ordered.insert(ordered.end(), at, at + static_cast<std::ptrdiff_t>(n * row_bytes));
        cursor[r] += n;
        total += blocks[i].rows();
      }
      loop::save_rows(path, problem, blocks, total, ordered);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  comm_.broadcast(error, "writing the output");
  if (!error.empty()) throw loop::AgreedUsageError(error);
}

}  // namespace ctrl::loop::mpi
