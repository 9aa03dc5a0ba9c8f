// Clusters: processor classes (ranges in profile files, identical processors found), the
// (1 + epsilon)-approximate front against the exact one, and threads that do not change a front.
#include "test_support.hpp"
#include "threads.hpp"

#include <ctrl/errors.hpp>

#include <cmath>
#include <random>
#include <string>

namespace ctrl::partition {
namespace {

using testing::random_profile;
using testing::same_front;
using testing::valid_front;
using testing::Values;

std::string range_error(const std::string& name) {
  try {
    expand_processor_range(name, 1000);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ProcessorRange, ExpandsLikeSlurm) {
  using V = std::vector<std::string>;
  EXPECT_EQ(expand_processor_range("cpu:0"), V{"cpu:0"});
  EXPECT_EQ(expand_processor_range("node[001-003]/cuda:0"), (V{"node001/cuda:0", "node002/cuda:0", "node003/cuda:0"}));
  EXPECT_EQ(expand_processor_range("n[8-10,3]"), (V{"n8", "n9", "n10", "n3"}));
  EXPECT_EQ(expand_processor_range("n[08-10]"), (V{"n08", "n09", "n10"}));
  EXPECT_EQ(expand_processor_range("n[1-2]g[0-1]"), (V{"n1g0", "n1g1", "n2g0", "n2g1"}));
  EXPECT_EQ(expand_processor_range("node[001-125]/cuda:0").size(), 125u);
}

TEST(ProcessorRange, MalformedRangesSayWhat) {
  EXPECT_NE(range_error("node[001-003").find("'node[001-003': a '[' is not closed"), std::string::npos);
  EXPECT_NE(range_error("node]1[").find("a ']' without its '['"), std::string::npos);
  EXPECT_NE(range_error("node[]").find("an empty [] names no processor"), std::string::npos);
  EXPECT_NE(range_error("node[5-3]").find("the range 5-3 falls"), std::string::npos);
  EXPECT_NE(range_error("node[a-3]").find("'a-3' is not a number or a range"), std::string::npos);
  EXPECT_NE(range_error("node[1-2-3]").find("is not a number or a range"), std::string::npos);
  EXPECT_NE(range_error("node[1,,2]").find("'' is not a number"), std::string::npos);
  EXPECT_NE(range_error("n[1-40]g[1-40]").find("more than 1000 processors"), std::string::npos);
  EXPECT_NE(range_error("n[0-99999999]").find("more than 1000 processors"), std::string::npos);
}

std::string csv_error(const std::string& text) {
  try {
    parse_profile_csv(text, "c.csv");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ProfileClasses, RangesInProfileFilesAreClasses) {
  const Profile p = parse_profile_csv(
      "processor,size,time,energy\n"
      "node[01-03]/cpu,1,2.0,3.0\n"
      "node[01-03]/cpu,2,3.0,5.0\n"
      "node[01-02]/cuda:0,2,1.0,1.0\n"
      "node03/cuda:0,2,1.0,1.0\n"
      "odd,2,1.0,1.5\n",
      "c.csv");
  ASSERT_EQ(p.size(), 7u);
  EXPECT_EQ(p.names(), (std::vector<std::string>{"node01/cpu", "node02/cpu", "node03/cpu", "node01/cuda:0",
                                                 "node02/cuda:0", "node03/cuda:0", "odd"}));
  const ProcessorClasses c = processor_classes(p);
  ASSERT_EQ(c.count(), 3u);  // node03/cuda:0, named alone, has its class's points: found identical
  EXPECT_EQ(c.members[0], (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(c.members[1], (std::vector<std::size_t>{3, 4, 5}));
  EXPECT_EQ(c.members[2], (std::vector<std::size_t>{6}));
  EXPECT_EQ(c.class_of, (std::vector<std::size_t>{0, 0, 0, 1, 1, 1, 2}));
}

TEST(ProfileClasses, BadRangesAndConflictingRowsNameFileAndLine) {
  EXPECT_NE(csv_error("processor,size,time,energy\nn[1-200000],1,1,1\n")
                .find("c.csv:2: malformed processor range 'n[1-200000]': more than 100000 processors"),
            std::string::npos);
  EXPECT_NE(csv_error("processor,size,time,energy\nnode[1-2/cpu,1,1,1\n")
                .find("c.csv:2: malformed processor range 'node[1-2/cpu': a '[' is not closed"),
            std::string::npos);
  EXPECT_NE(csv_error("processor,size,time,energy\nnode[1-4],1,1,1\nnode3,1,2,2\n")
                .find("c.csv:3: processor 'node3' has size 1 twice (first on line 2)"),
            std::string::npos);
  EXPECT_NE(csv_error("processor,size,time,energy\nnode3,1,2,2\nnode[1-4],1,1,1\n")
                .find("c.csv:3: processor 'node3' (of 'node[1-4]') has size 1 twice (first on line 2)"),
            std::string::npos);
}

// Every exact point (T, E) has a reported point within (1 + epsilon) in both (to the rounding of
// the sums: a relative 1e-12).
::testing::AssertionResult within(const Front& exact, const Front& approx, double epsilon) {
  const double f = (1 + epsilon) * (1 + 1e-12);
  for (const Solution& s : exact) {
    bool covered = false;
    for (const Solution& a : approx) covered = covered || (a.time <= f * s.time && a.energy <= f * s.energy);
    if (!covered)
      return ::testing::AssertionFailure()
             << "no point within 1 + " << epsilon << " of (" << s.time << ", " << s.energy << ")\nexact:\n"
             << testing::describe(exact) << "approximate:\n"
             << testing::describe(approx);
  }
  return ::testing::AssertionSuccess();
}

// A profile with repeated processors: `kinds` random processors, each copied 1..copies times,
// interleaved (copies of one kind need not be neighbours).
Profile repeated_profile(std::mt19937_64& rng, int kinds, int copies, int max_size, Values values) {
  const Profile base = random_profile(rng, kinds, max_size, 0.8, values);
  std::vector<int> count(static_cast<std::size_t>(kinds));
  for (int& c : count) c = 1 + static_cast<int>(rng() % static_cast<unsigned>(copies));
  std::vector<ProcessorProfile> procs;
  for (int round = 0; round < copies; ++round)
    for (int k = 0; k < kinds; ++k)
      if (round < count[static_cast<std::size_t>(k)]) {
        const ProcessorProfile& b = base[static_cast<std::size_t>(k)];
        procs.emplace_back(b.name() + "." + std::to_string(round),
                           std::vector<ProfilePoint>(b.points().begin(), b.points().end()));
      }
  return Profile(std::move(procs));
}

TEST(ApproximateFront, WithinEpsilonOfTheExactFrontOnSmallInstances) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(20261206);
  int compared = 0;
  for (int i = 0; i < 1500; ++i) {
    const int p = 1 + i % 6;
    const int m = 2 + static_cast<int>(rng() % 8);
    const Values values = i % 3 == 0 ? Values::coarse : Values::fine;
    const Profile profile = i % 2 ? random_profile(rng, p, m, i % 4 == 1 ? 0.4 : 0.9, values)
                                  : repeated_profile(rng, 1 + p / 2, 3, m, values);
    const Size n =
        1 + static_cast<Size>(rng() % static_cast<std::uint64_t>(profile.size() * static_cast<std::size_t>(m) + 2));
    const double epsilon = i % 3 == 0 ? 0.5 : i % 3 == 1 ? 0.05 : 0.001;
    SCOPED_TRACE("case " + std::to_string(i) + " n=" + std::to_string(n) + " epsilon=" + std::to_string(epsilon));
    const Front exact = brute_force_front(profile, n);
    const Front approx = approximate_front(profile, n, epsilon, ApproxOptions{1 + static_cast<unsigned>(i % 3)});
    ASSERT_EQ(exact.empty(), approx.empty());
    ASSERT_TRUE(valid_front(profile, n, approx));
    ASSERT_TRUE(within(exact, approx, epsilon));
    compared += exact.empty() ? 0 : 1;
  }
  EXPECT_GT(compared, 1000);
}

TEST(ApproximateFront, WithinEpsilonOnClustersOfRepeatedProcessors) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(7);
  for (int i = 0; i < 16; ++i) {
    const Values values = i % 2 ? Values::fine : Values::coarse;
    const Profile profile = repeated_profile(rng, 2 + i % 4, 4 + i % 9, 12 + i % 20, values);
    const Size n = static_cast<Size>(profile.size()) * (3 + i % 5);
    SCOPED_TRACE("case " + std::to_string(i) + " p=" + std::to_string(profile.size()) + " n=" + std::to_string(n));
    DpOptions one;
    one.threads = 1;
    const Front exact = pareto_front_dp(profile, n, one);
    for (const double epsilon : {0.1, 0.01, 0.001}) {
      ApproxStats stats;
      const Front approx = approximate_front(profile, n, epsilon, ApproxOptions{1}, &stats);
      ASSERT_TRUE(valid_front(profile, n, approx));
      ASSERT_TRUE(within(exact, approx, epsilon)) << epsilon;
      EXPECT_LE(stats.classes, 5u);
      // The thresholds are shared between threads: any number gives the same front.
      for (const unsigned threads : {2u, 5u})
        ASSERT_TRUE(same_front(approx, approximate_front(profile, n, epsilon, ApproxOptions{threads}))) << threads;
    }
  }
}

TEST(ApproximateFront, RefusesBadEpsilonAndOtherMethods) {
  const Profile p({ProcessorProfile("a", {{1, 1.0, 1.0}}), ProcessorProfile("b", {{1, 2.0, 0.5}})});
  for (const double bad : {0.0, -0.1, std::nan(""), HUGE_VAL})
    EXPECT_THROW(approximate_front(p, 1, bad), UsageError) << bad;
  ParetoOptions opt;
  opt.epsilon = 0.01;
  EXPECT_EQ(hepopta(p, 2, opt).size(), 1u);
  opt.method = Method::paper;
  EXPECT_THROW(hepopta(p, 2, opt), UsageError);
  EXPECT_TRUE(approximate_front(p, 3, 0.1).empty());  // two processors of size 1 cannot take 3
}

// The exact programme on repeated processors, and with as many threads as a big node has, against
// enumeration and one thread.
TEST(DynamicProgramme, RepeatedProcessorsAndManyThreads) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(16);
  for (int i = 0; i < 300; ++i) {
    const Profile profile = repeated_profile(rng, 1 + i % 3, 3, 2 + i % 5, i % 2 ? Values::fine : Values::coarse);
    const Size n = 1 + static_cast<Size>(rng() % (profile.size() * static_cast<std::size_t>(2 + i % 5) + 1));
    DpOptions opt;
    opt.threads = 1 + static_cast<unsigned>(i % 16);
    ASSERT_TRUE(same_front(brute_force_front(profile, n), pareto_front_dp(profile, n, opt))) << "case " << i;
  }
  for (int i = 0; i < 4; ++i) {
    const Profile profile = repeated_profile(rng, 3, 8, 40, Values::fine);
    const Size n = static_cast<Size>(profile.size()) * 12;
    DpOptions one, many;
    one.threads = 1;
    many.threads = 16;
    ASSERT_TRUE(same_front(pareto_front_dp(profile, n, one), pareto_front_dp(profile, n, many))) << i;
  }
}

// The class walk (identical processors combined as classes) against enumeration and against the
// sweep over processors, on instances with many ties (coarse values), gaps in the sizes,
// workloads no distribution reaches, and classes mixed with single processors.
TEST(ClassWalk, SameFrontAsEnumerationAndTheSweep) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(1206);
  int walked = 0;
  for (int i = 0; i < 600; ++i) {
    const int m = 2 + i % 5;
    const Values values = i % 3 == 0 ? Values::coarse : Values::fine;
    Profile profile = repeated_profile(rng, 1 + i % 3, 4, m, values);
    if (i % 4 == 3) profile.add(random_profile(rng, 1, m, 0.6, values)[0]);  // a processor of its own
    const Size n = 1 + static_cast<Size>(rng() % (profile.size() * static_cast<std::size_t>(m) + 1));
    SCOPED_TRACE("case " + std::to_string(i) + " p=" + std::to_string(profile.size()) + " n=" + std::to_string(n));
    DpOptions walk, sweep;
    walk.threads = 1 + static_cast<unsigned>(i % 4);
    walk.classes = ClassUse::walk;
    sweep.classes = ClassUse::sweep;
    DpStats stats;
    const Front got = pareto_front_dp(profile, n, walk, &stats);
    ASSERT_TRUE(valid_front(profile, n, got));
    if (profile.size() <= 7) {
      ASSERT_TRUE(same_front(brute_force_front(profile, n), got));
    }
    ASSERT_TRUE(same_front(pareto_front_dp(profile, n, sweep), got));
    if (!got.empty()) {
      ASSERT_GT(stats.classes, 0u);  // the walk ran, not the sweep
    }
    walked += got.empty() ? 0 : 1;
  }
  EXPECT_GT(walked, 400);
}

// Larger clusters of a few kinds, beyond enumeration: the walk and the sweep agree, with one
// thread and with many.
TEST(ClassWalk, SameFrontAsTheSweepOnClusters) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(125);
  for (int i = 0; i < 12; ++i) {
    const Values values = i % 3 == 0 ? Values::coarse : Values::fine;
    const Profile profile = repeated_profile(rng, 2 + i % 4, 6 + i % 7, 10 + i % 15, values);
    const Size n = static_cast<Size>(profile.size()) * (2 + i % 6) + static_cast<Size>(i);
    SCOPED_TRACE("case " + std::to_string(i) + " p=" + std::to_string(profile.size()) + " n=" + std::to_string(n));
    DpOptions sweep;
    sweep.classes = ClassUse::sweep;
    const Front expected = pareto_front_dp(profile, n, sweep);
    for (const unsigned threads : {1u, 3u, 16u}) {
      DpOptions walk;
      walk.threads = threads;
      walk.classes = ClassUse::walk;
      DpStats stats;
      const Front got = pareto_front_dp(profile, n, walk, &stats);
      ASSERT_GT(stats.classes, 0u) << threads;
      ASSERT_TRUE(valid_front(profile, n, got)) << threads;
      ASSERT_TRUE(same_front(expected, got)) << threads;
    }
  }
}

// By default the walk runs where processors repeat enough (8 copies a class on average), and the
// sweep elsewhere; the fronts are the same.
TEST(ClassWalk, ChosenWhereProcessorsRepeatEnough) {
  const ProcessorProfile a("a", {{1, 1.0, 3.0}, {2, 2.5, 4.0}, {3, 2.6, 7.0}});
  const ProcessorProfile b("b", {{1, 0.5, 2.0}, {2, 3.0, 3.0}});
  const auto platform = [&](int copies) {
    std::vector<ProcessorProfile> procs;
    for (int i = 0; i < copies; ++i)
      for (const ProcessorProfile* kind : {&a, &b})
        procs.emplace_back(kind->name() + std::to_string(i),
                           std::vector<ProfilePoint>(kind->points().begin(), kind->points().end()));
    return Profile(std::move(procs));
  };
  for (const int copies : {2, 8}) {
    const Profile profile = platform(copies);
    const Size n = 3 * copies;
    DpStats stats;
    const Front got = pareto_front_dp(profile, n, {}, &stats);
    EXPECT_EQ(stats.classes, copies == 8 ? 2u : 0u) << copies;
    DpOptions sweep;
    sweep.classes = ClassUse::sweep;
    EXPECT_TRUE(same_front(copies == 2 ? brute_force_front(profile, n) : pareto_front_dp(profile, n, sweep), got));
  }
}

// Sizes that leave gaps: some workloads no distribution reaches, others only a few.
TEST(ClassWalk, UnreachableAndBarelyReachableWorkloads) {
  const ProcessorProfile a("a", {{3, 1.0, 3.0}, {5, 2.0, 4.0}});
  const Profile two({ProcessorProfile("a0", {a.points().begin(), a.points().end()}),
                     ProcessorProfile("a1", {a.points().begin(), a.points().end()})});
  for (Size n = 1; n <= 11; ++n) {
    SCOPED_TRACE("n=" + std::to_string(n));
    DpOptions walk;
    walk.classes = ClassUse::walk;
    const Front got = pareto_front_dp(two, n, walk);
    EXPECT_TRUE(same_front(brute_force_front(two, n), got));
    EXPECT_EQ(got.empty(), n == 1 || n == 2 || n == 4 || n == 7 || n == 9 || n == 11);
  }
}

}  // namespace
}  // namespace ctrl::partition
