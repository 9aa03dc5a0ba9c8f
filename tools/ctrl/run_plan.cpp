#include "run_plan.hpp"

#include "command.hpp"

#include <ctrl/loop/args.hpp>
#include <ctrl/loop/profile_file.hpp>

#include <ctrl/io/files.hpp>
#include <ctrl/partition/load_balanced.hpp>
#include <ctrl/partition/pareto.hpp>
#include <ctrl/partition/profile_csv.hpp>
#include <ctrl/sizes.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace ctrl::tool {

namespace {

nlohmann::json read_json(const std::string& path) {
  std::string text;
  try {
    text = io::read_input(path);  // a FIFO is refused, not waited on
  } catch (const Error& e) {
    throw exit_error(exit_bad_input, fmt::format("--front {}", e.what()));
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw exit_error(exit_bad_input, fmt::format("--front {}: not JSON ({})", path, e.what()));
  }
}

// An integer of the front file. nlohmann's get<index_t> casts whatever number the value holds: a
// float beyond index_t (1e19) is undefined behaviour, an unsigned one beyond it wraps.
index_t front_integer(const nlohmann::json& v, const std::string& front, const char* what) {
  constexpr auto most = std::numeric_limits<index_t>::max();
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(most)))
    throw exit_error(exit_bad_input,
                     fmt::format("--front {}: {} {} is not an integer of at most {}", front, what, v.dump(), most));
  return v.get<index_t>();
}

partition::Size parse_count(const std::string& text, const std::string& what) {
  return loop::parse_positive(text, what);
}

Plan plan_from_front(const RunArgs& a, const partition::Profile* profile) {
  Plan plan;
  const nlohmann::json doc = read_json(a.front);
  try {
    plan.names = doc.at("processors").get<std::vector<std::string>>();
    const auto workload = front_integer(doc.at("workload"), a.front, "the workload");
    plan.total_energy = doc.value("energy", std::string("dynamic")) == "total";
    plan.front_base_power = doc.value("base_power", 0.0);
    const auto& front = doc.at("front");
    if (!front.is_array() || front.empty()) throw exit_error(exit_bad_input, "--front " + a.front + ": the front is empty");
    std::size_t k = 0;
    std::string what;
    if (a.pick == "fastest" || a.pick == "time-optimal") {
      k = 0;
      what = "fastest";
    } else if (a.pick == "least-energy" || a.pick == "energy-optimal") {
      k = front.size() - 1;
      what = "least energy";
    } else if (a.pick == "load-balanced") {
      if (profile == nullptr)
        throw exit_error(exit_bad_input, "--pick load-balanced needs --profile (the front file does not hold it)");
      partition::EnergyModel model;
      model.kind = plan.total_energy ? partition::EnergyKind::total : partition::EnergyKind::dynamic;
      model.base_power = plan.front_base_power;
      const auto lb = partition::load_balanced(*profile, workload, model);
      if (!lb)
        throw exit_error(exit_infeasible, fmt::format("no load-balanced distribution of {} with the sizes of {}",
                                                      workload, a.profile));
      plan.rows.assign(lb->distribution.begin(), lb->distribution.end());
      plan.front_time = lb->time;
      plan.front_energy = lb->energy;
      plan.source = fmt::format("{}: the load-balanced distribution of {} (from {})", a.front, workload, a.profile);
      return plan;
    } else {
      const auto idx = parse_count(a.pick, "--pick");
      if (static_cast<std::size_t>(idx) > front.size())
        throw exit_error(exit_bad_input, fmt::format("--pick {}: the front has {} points (1 to {})", a.pick,
                                                     front.size(), front.size()));
      k = static_cast<std::size_t>(idx - 1);
      what = fmt::format("point {}", idx);
    }
    const auto& point = front.at(k);
    const auto& parts = point.at("distribution");
    if (!parts.is_array())
      throw exit_error(exit_bad_input, fmt::format("--front {}: point {}: the distribution is not a list", a.front, k + 1));
    for (const auto& part : parts) plan.rows.push_back(front_integer(part, a.front, "a distribution part"));
    plan.front_time = point.at("time").get<double>();
    plan.front_energy = point.at("energy").get<double>();
    plan.source = fmt::format("{} point {} of {} ({})", a.front, k + 1, front.size(), what);
    if (plan.rows.size() != plan.names.size())
      throw exit_error(exit_bad_input, fmt::format("--front {}: a distribution of {} parts for {} processors", a.front,
                                                   plan.rows.size(), plan.names.size()));
    // A hand-edited point would otherwise run (and be compared with predictions) as another workload.
    index_t sum = 0;
    try {
      sum = checked_sum(plan.rows);
    } catch (const UsageError& e) {
      throw exit_error(exit_bad_input, fmt::format("--front {}: point {}: {}", a.front, k + 1, e.what()));
    }
    if (sum != workload)
      throw exit_error(exit_bad_input, fmt::format("--front {}: point {}: the distribution sums to {}, not to the "
                                                   "front's workload {}",
                                                   a.front, k + 1, sum, workload));
  } catch (const nlohmann::json::exception& e) {
    throw exit_error(exit_bad_input,
                     fmt::format("--front {}: not a front written by `ctrl pareto --format json` ({})", a.front, e.what()));
  }
  return plan;
}

Plan plan_from_profile(const RunArgs& a, const partition::Profile& profile) {
  Plan plan;
  plan.names = profile.names();
  const auto workload = parse_count(a.workload, "--workload");
  partition::EnergyModel model;
  if (a.pick == "load-balanced") {
    const auto lb = partition::load_balanced(profile, workload, model);
    if (!lb)
      throw exit_error(exit_infeasible, fmt::format("no load-balanced distribution of {} with the sizes of {}", workload,
                                                    a.profile));
    plan.rows.assign(lb->distribution.begin(), lb->distribution.end());
    plan.front_time = lb->time;
    plan.front_energy = lb->energy;
    plan.source = fmt::format("the load-balanced distribution of {} from {}", workload, a.profile);
    return plan;
  }
  const partition::Front front = partition::pareto_front(profile, workload, model);
  if (front.empty())
    throw exit_error(exit_infeasible, fmt::format("workload {} cannot be split exactly with the sizes in {}", workload,
                                                  a.profile));
  std::size_t k = 0;
  if (a.pick == "fastest") k = 0;
  else if (a.pick == "least-energy") k = front.size() - 1;
  else {
    const auto idx = parse_count(a.pick, "--pick");
    if (static_cast<std::size_t>(idx) > front.size())
      throw exit_error(exit_bad_input, fmt::format("--pick {}: the front has {} points", a.pick, front.size()));
    k = static_cast<std::size_t>(idx - 1);
  }
  plan.rows.assign(front[k].distribution.begin(), front[k].distribution.end());
  plan.front_time = front[k].time;
  plan.front_energy = front[k].energy;
  plan.source = fmt::format("point {} of {} of the front of {} from {}", k + 1, front.size(), workload, a.profile);
  return plan;
}

}  // namespace

Prepared prepare_run(const RunArgs& a, const loop::Workload& app) {
  const bool by_split = !a.split.empty();
  // The outputs, before any work: regular files (or new ones), none of them an input.
  const io::FileArgument files[] = {{"--front", a.front, false},
                                    {"--profile", a.profile, false},
                                    {"--selection", a.platform.selection, false},
                                    {"--json", a.json_file, true},
                                    {"--output", a.output, true}};
  io::check_distinct_files(files);
  for (const auto& f : files)
    if (f.output && !f.path.empty()) io::check_output(f.path);
  // The profile: predictions per processor, N, and the base powers the predictions were made with.
  std::optional<partition::Profile> profile;
  loop::ProfileFile meta;
  if (!a.profile.empty()) {
    loop::LoadedProfile loaded = loop::read_profile(a.profile);
    profile = std::move(loaded.profile);
    if (loaded.file) meta = std::move(*loaded.file);
    if (!meta.rows.empty() && meta.rows.front().app != a.app)
      throw exit_error(exit_bad_input, fmt::format("--profile {} is a profile of {}, not of {}", a.profile,
                                                   meta.rows.front().app, a.app));
  }

  Prepared out;
  Plan& plan = out.plan;
  if (by_split) {
    for (const auto& s : a.split) {
      const auto [name, rows] = loop::parse_split(s);
      if (std::find(plan.names.begin(), plan.names.end(), name) != plan.names.end())
        throw exit_error(exit_bad_input, fmt::format("--split: {} is given twice", name));
      plan.names.push_back(name);
      plan.rows.push_back(rows);
    }
    plan.source = "--split";
  } else if (!a.front.empty()) {
    plan = plan_from_front(a, profile ? &*profile : nullptr);
  } else {
    plan = plan_from_profile(a, *profile);
  }
  if (profile && profile->names() != plan.names && !by_split)
    throw exit_error(exit_bad_input, fmt::format("the front's processors differ from those of --profile {}", a.profile));
  index_t m = 0;
  try {
    m = checked_sum(plan.rows);
  } catch (const UsageError& e) {
    throw exit_error(exit_bad_input, fmt::format("{}: {}", plan.source, e.what()));
  }
  if (m <= 0) throw exit_error(exit_bad_input, "run: the distribution gives no rows to any processor");

  out.cols = app.default_cols();
  out.cols_from = "the default of " + a.app;
  if (!a.cols.empty()) {
    out.cols = loop::parse_positive(a.cols, "--cols");
    out.cols_from = "--cols";
    if (!meta.rows.empty() && meta.rows.front().cols != out.cols)
      throw exit_error(exit_bad_input, fmt::format("--cols {} but --profile {} was measured with N = {}", out.cols,
                                                   a.profile, meta.rows.front().cols));
  } else if (!meta.rows.empty()) {
    out.cols = meta.rows.front().cols;
    out.cols_from = a.profile;
  }
  // Before any rank allocates: the whole problem must be one that can be indexed and allocated.
  try {
    app.check_size(m, out.cols, plan.names.size());
  } catch (const UsageError& e) {
    throw exit_error(exit_bad_input, fmt::format("{} ({} row{}) with N = {} (from {}): {}", plan.source, m,
                                                 m == 1 ? "" : "s", out.cols, out.cols_from, e.what()));
  }

  // What the profile predicts for each processor at its rows (nothing for sizes it lacks).
  if (profile) {
    const std::vector<std::string> pnames = profile->names();
    for (std::size_t i = 0; i < plan.names.size(); ++i) {
      if (plan.rows[i] == 0) {
        out.predicted[plan.names[i]] = {0.0, 0.0};
        continue;
      }
      const auto it = std::find(pnames.begin(), pnames.end(), plan.names[i]);
      if (it == pnames.end()) continue;
      if (const auto* pt = (*profile)[static_cast<std::size_t>(it - pnames.begin())].find(plan.rows[i]))
        out.predicted[plan.names[i]] = {pt->time, pt->energy};
    }
  }
  for (const auto& r : meta.rows)
    if (r.base_power && !out.base_power.contains(r.processor)) out.base_power[r.processor] = *r.base_power;
  return out;
}

std::string to_text(const Prepared& p) {
  const Plan& plan = p.plan;
  nlohmann::json j{{"names", plan.names},         {"rows", plan.rows},
                   {"source", plan.source},       {"total_energy", plan.total_energy},
                   {"front_base_power", plan.front_base_power},
                   {"cols", p.cols},              {"cols_from", p.cols_from},
                   {"predicted", p.predicted},    {"base_power", p.base_power}};
  j["front_time"] = plan.front_time ? nlohmann::json(*plan.front_time) : nlohmann::json();
  j["front_energy"] = plan.front_energy ? nlohmann::json(*plan.front_energy) : nlohmann::json();
  return j.dump();
}

Prepared prepared_from_text(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  Prepared p;
  p.plan.names = j.at("names").get<std::vector<std::string>>();
  p.plan.rows = j.at("rows").get<std::vector<index_t>>();
  p.plan.source = j.at("source").get<std::string>();
  p.plan.total_energy = j.at("total_energy").get<bool>();
  p.plan.front_base_power = j.at("front_base_power").get<double>();
  if (!j.at("front_time").is_null()) p.plan.front_time = j.at("front_time").get<double>();
  if (!j.at("front_energy").is_null()) p.plan.front_energy = j.at("front_energy").get<double>();
  p.cols = j.at("cols").get<index_t>();
  p.cols_from = j.at("cols_from").get<std::string>();
  p.predicted = j.at("predicted").get<std::map<std::string, std::pair<double, double>>>();
  p.base_power = j.at("base_power").get<std::map<std::string, double>>();
  return p;
}

}  // namespace ctrl::tool
