#include <ctrl/loop/pick.hpp>

#include <ctrl/loop/args.hpp>
#include <ctrl/loop/front.hpp>
#include <ctrl/loop/quantity.hpp>

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace ctrl::loop {

namespace {

constexpr std::string_view budget_forms =
    "'energy@time+5%', 'time@energy-20%', 'energy@time<=2.5s' or 'time@energy<=300J'";

// "+5%", "-20%", "5%" -> 0.05, -0.2, 0.05; above -100 %.
double parse_change(std::string_view text, std::string_view pick) {
  const auto refuse = [&](std::string_view why) {
    return UsageError(fmt::format("the pick '{}': {} (a budget is {})", pick, why, budget_forms));
  };
  if (text.empty() || text.back() != '%') throw refuse("a relative bound ends with %");
  text.remove_suffix(1);
  if (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  const bool plus = !text.empty() && text.front() == '+';
  if (plus) text.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) throw refuse("not a percentage");
  if (plus && v < 0) throw refuse("not a percentage");
  if (v <= -100) throw refuse("a bound of -100 % or less leaves nothing");
  return v / 100;
}

Pick parse_budget(std::string_view text) {
  const std::size_t at = text.find('@');
  const std::string_view goal = text.substr(0, at), rest = text.substr(at + 1);
  Bound b;
  std::string_view limit;
  if (goal == "energy" && rest.starts_with("time")) {
    b.on = Bound::time;
    limit = rest.substr(4);
  } else if (goal == "time" && rest.starts_with("energy")) {
    b.on = Bound::energy;
    limit = rest.substr(6);
  } else {
    throw UsageError(
        fmt::format("the pick '{}': a budget minimises one of time and energy within a bound on the "
                    "other: {}",
                    text, budget_forms));
  }
  if (limit.starts_with("<=")) {
    limit.remove_prefix(2);
    b.relative = false;
    const std::string what = fmt::format("the pick '{}': the bound", text);
    b.value = b.on == Bound::time ? parse_seconds(limit, what) : parse_joules(limit, what);
  } else {
    b.value = parse_change(limit, text);
  }
  return Pick::within(b);
}

std::string quantity_name(Bound::Quantity q) { return q == Bound::time ? "time" : "energy"; }

std::string format_value(Bound::Quantity q, double v) {
  return q == Bound::time ? format_seconds(v) : format_joules(v);
}

double value_of(const partition::Solution& s, Bound::Quantity q) { return q == Bound::time ? s.time : s.energy; }

// The bound in s or J: relative bounds are to the fastest point (the front's first).
double limit_of(const Bound& b, const partition::Front& front) {
  return b.relative ? value_of(front.front(), b.on) * (1 + b.value) : b.value;
}

std::string point_text(const partition::Front& front, std::size_t k) {
  return fmt::format("point {} of {} ({}, {})", k + 1, front.size(), format_seconds(front[k].time),
                     format_joules(front[k].energy));
}

std::optional<double> change(double v, double base) {
  return base > 0 ? std::optional<double>(v / base - 1) : std::nullopt;
}

PointChoice choose_within(const Pick& pick, const partition::Front& front, const std::string& where) {
  const Bound& b = pick.bound;
  const Bound::Quantity goal = b.on == Bound::time ? Bound::energy : Bound::time;
  const double limit = limit_of(b, front);
  const double slack = std::fabs(limit) * 1e-12;  // "+0%" keeps the fastest point itself
  std::optional<std::size_t> best;
  for (std::size_t k = 0; k < front.size(); ++k) {
    if (value_of(front[k], b.on) > limit + slack) continue;
    const double v = value_of(front[k], goal), w = value_of(front[k], b.on);
    if (!best || v < value_of(front[*best], goal) ||
        (v == value_of(front[*best], goal) && w < value_of(front[*best], b.on)))
      best = k;
  }
  const std::string bound = fmt::format("{} ≤ {}", quantity_name(b.on), format_value(b.on, limit));
  if (!best) {
    // The nearest point to the bound: the least of the bounded quantity.
    std::size_t near = 0;
    for (std::size_t k = 1; k < front.size(); ++k)
      if (value_of(front[k], b.on) < value_of(front[near], b.on)) near = k;
    throw InfeasibleError(fmt::format("the pick {}: no point of {} has {}; the nearest is {}", pick.name(), where,
                                      bound, point_text(front, near)));
  }
  const std::size_t k = *best;
  const partition::Solution& fastest = front.front();
  return {k, fmt::format("{} ({}): {}, time {} and energy {} against the fastest point", pick.name(), bound,
                         point_text(front, k), format_percent(change(front[k].time, fastest.time)),
                         format_percent(change(front[k].energy, fastest.energy)))};
}

}  // namespace

Pick Pick::parse(std::string_view text) {
  if (text == "fastest" || text == "time-optimal") return {fastest, 0};
  if (text == "least-energy" || text == "energy-optimal") return {least_energy, 0};
  if (text == "load-balanced") return {load_balanced, 0};
  if (text == "even" || text == "even-split") return {even, 0};
  if (text == "all") return {all, 0};
  if (text.find('@') != std::string_view::npos) return parse_budget(text);
  index_t k = 0;
  try {
    k = parse_positive(text, "the pick");
  } catch (const UsageError&) {
    throw UsageError(
        fmt::format("the pick '{}' is none of fastest, least-energy, load-balanced, even, all, a "
                    "point's number (1, 2, ...) or a budget ({})",
                    text, budget_forms));
  }
  return {point, static_cast<std::size_t>(k)};
}

std::string Pick::name() const {
  switch (kind) {
    case fastest:
      return "fastest";
    case least_energy:
      return "least energy";
    case load_balanced:
      return "load-balanced";
    case even:
      return "even split";
    case all:
      return "all";
    case budget: {
      const std::string goal = bound.on == Bound::time ? "least energy" : "fastest";
      if (!bound.relative) return fmt::format("{} within {}", goal, format_value(bound.on, bound.value));
      const std::string of = bound.on == Bound::time ? "the fastest time" : "the fastest point's energy";
      return fmt::format("{} within {}{:g} % of {}", goal, bound.value >= 0 ? "+" : "", bound.value * 100, of);
    }
    case point:
      break;
  }
  return fmt::format("point {}", k);
}

bool Pick::by_energy() const { return kind == least_energy || kind == point || kind == budget; }

PointChoice choose_point(const Pick& pick, const partition::Front& front, const std::string& where) {
  if (front.empty()) throw UsageError(fmt::format("{} has no point", where));
  switch (pick.kind) {
    case Pick::fastest:
      return {0, {}};
    case Pick::least_energy:
      return {front.size() - 1, {}};
    case Pick::point:
      if (pick.k < 1 || pick.k > front.size())
        throw UsageError(fmt::format("pick {}: {} has {} point{} (1 to {})", pick.k, where, front.size(),
                                     front.size() == 1 ? "" : "s", front.size()));
      return {pick.k - 1, {}};
    case Pick::budget:
      return choose_within(pick, front, where);
    case Pick::load_balanced:
    case Pick::even:
    case Pick::all:
      break;
  }
  throw UsageError("choose_point: the " + pick.name() + " distribution is not a point of the front");
}

}  // namespace ctrl::loop
